// local_stage and local_reply: everything addressed to the switch itself,
// in one place. PFC and PAUSE frames pause the port's own transmission (the
// port's TX owner applies them); ARP requests for the port's address, IPv6
// neighbor discovery and echo requests to any switch address are answered
// on the port they came in on, at class kControlTc; the rest is consumed or
// dropped with a reason. The byte-level rewrites are local_responder.h's.
#include <cstring>

#include "dataplane/forward/local_responder.h"
#include "dataplane/forward/stages.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

// Turns an ARP request for the port's own address into the reply, in place.
inline void make_arp_reply(uint8_t* frame, const ParsedPacket& p, const PortConfig& port) {
  uint8_t* arp = frame + p.l3_offset;
  uint8_t requester_mac[6];
  uint8_t requester_ip[4];
  std::memcpy(requester_mac, arp + 8, 6);
  std::memcpy(requester_ip, arp + 14, 4);
  std::memcpy(frame, requester_mac, 6);  // Ethernet destination
  std::memcpy(frame + 6, port.mac, 6);   // Ethernet source
  store_be16(arp + 6, 2);                // op = reply
  std::memcpy(arp + 8, port.mac, 6);     // sender = the switch
  std::memcpy(arp + 14, port.v4, 4);
  std::memcpy(arp + 18, requester_mac, 6);  // target = the requester
  std::memcpy(arp + 24, requester_ip, 4);
}

// Bytes a reply of another length may use from the frame's first byte: a
// single-segment frame up to its tailroom; none for chained mbufs (echo
// replies keep the frame's length and need no capacity).
inline uint32_t reply_capacity(const rte_mbuf* m) {
  return m->nb_segs == 1 ? uint32_t{m->data_len} + rte_pktmbuf_tailroom(m) : 0;
}

// The reply the responder wrote into packet i goes back out of the ingress
// port, at the control class.
inline void reply(Burst& b, uint16_t i) {
  b.out_port[i] = b.in_port;
  b.tc[i] = kControlTc;
  b.step[i] = Step::kReply;
}

// An ICMP reply of reply_len bytes: the request counts as consumed and the
// reply as generated, like ARP.
inline void icmp_reply(Burst& b, uint16_t i, uint32_t reply_len) {
  rte_mbuf* m = b.pkts[i];
  ++b.ic[PortCounter::consumed_icmp];
  ++b.ic[PortCounter::generated_icmp_replies];
  if (reply_len != m->pkt_len) {  // only single-segment frames change length
    m->data_len = static_cast<uint16_t>(reply_len);
    m->pkt_len = reply_len;
  }
  reply(b, i);
}

void mac_control(Burst& b, uint16_t i) {
  const ParsedPacket& p = b.pp[i];
  PauseEvent ev;
  ev.now_ns = b.now_ns;
  const bool pfc = p.mac_control_opcode == kPfcOpcode;
  if (pfc) {
    ++b.ic[PortCounter::rx_pfc_frames];
    ev.class_enable = p.pfc_class_enable;
    std::memcpy(ev.quanta.data(), p.pfc_quanta, sizeof p.pfc_quanta);
  } else {
    ++b.ic[PortCounter::rx_pause_frames];
    ev.is_pause = 1;
    ev.quanta[0] = p.pause_quanta;
  }
  // Received pause stops this port's own transmission of those classes.
  if (!b.dp.receive_pause(b.worker, b.in_port, ev)) {
    b.drop(i, DropReason::pause_inbox_full);
    return;
  }
  ++b.ic[pfc ? PortCounter::consumed_pfc : PortCounter::consumed_pause];
  b.ws.touched_ports.add(b.in_port);  // what it may send, and when, changed
  b.consume(i);
}

void arp(Burst& b, uint16_t i) {
  const ParsedPacket& p = b.pp[i];
  const PortConfig& iport = b.iport;
  if (!(iport.has_v4 && p.arp_tpa == load_be32(iport.v4))) {
    b.drop(i, DropReason::arp_not_for_switch);
    return;
  }
  ++b.ic[PortCounter::consumed_arp];
  if (p.arp_op != 1) {  // a reply or announcement to us: nothing to learn (static neighbors)
    b.consume(i);
    return;
  }
  rte_mbuf* m = b.pkts[i];
  make_arp_reply(rte_pktmbuf_mtod(m, uint8_t*), p, iport);
  if (m->pkt_len < 60 && m->nb_segs == 1) {  // pad to the Ethernet minimum, as a NIC would
    const uint16_t add = static_cast<uint16_t>(60 - m->pkt_len);
    if (uint8_t* pad = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, add)))
      std::memset(pad, 0, add);
  }
  ++b.ic[PortCounter::generated_arp_replies];
  reply(b, i);
}

// ICMPv6 to a link-scope or port address: NDP and echo are answered or
// consumed; anything else goes on to routing (or is dropped as it would
// have been had it not looked local).
void link_icmp6(Burst& b, uint16_t i) {
  const ParsedPacket& p = b.pp[i];
  const PortConfig& iport = b.iport;
  rte_mbuf* m = b.pkts[i];
  uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
  const LocalPort lp = make_local_port(iport.mac, iport.has_v6 ? iport.v6 : nullptr);
  if (is_port_ipv6_destination(p.dst_ip, lp) &&
      (!b.nd_mac[i] || is_ndp_message(frame, m->data_len, p))) {
    uint32_t reply_len = 0;
    const LocalVerdict v =
        answer_icmp6(frame, m->data_len, m->pkt_len, reply_capacity(m), p, lp, reply_len);
    if (v == LocalVerdict::kReplied) {
      icmp_reply(b, i, reply_len);
      return;
    }
    if (v == LocalVerdict::kConsumed) {
      ++b.ic[PortCounter::consumed_icmp];
      b.consume(i);
      return;
    }
  }
  if (b.nd_mac[i]) {
    b.drop(i, DropReason::dst_mac_not_accepted);
  } else if (is_martian(p)) {
    b.drop(i, DropReason::martian_address);
  } else {
    b.step[i] = Step::kRoute;
  }
}

}  // namespace

void local_stage(Burst& b) {
  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kLocal) continue;
    switch (b.pp[i].kind) {
      case L3Kind::kMacControl:
        mac_control(b, i);
        break;
      case L3Kind::kArp:
        arp(b, i);
        break;
      default:
        link_icmp6(b, i);
        break;
    }
  }
}

void local_reply(Burst& b, uint16_t i) {
  // Echo requests to any switch address are answered on the ingress port;
  // NDP to another port's address is consumed.
  const ParsedPacket& p = b.pp[i];
  rte_mbuf* m = b.pkts[i];
  uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
  uint32_t reply_len = 0;
  LocalVerdict v = LocalVerdict::kNotMine;
  if (p.proto == kIpProtoIcmp && p.ip_version == 4) {
    reply_len = make_icmp4_echo_reply(frame, m->data_len, m->pkt_len, p, b.iport.mac);
    if (reply_len) v = LocalVerdict::kReplied;
  } else if (p.proto == kIpProtoIcmpv6 && p.ip_version == 6) {
    const LocalPort lp = make_local_port(b.iport.mac, b.iport.has_v6 ? b.iport.v6 : nullptr);
    v = answer_icmp6(frame, m->data_len, m->pkt_len, reply_capacity(m), p, lp, reply_len);
  }
  if (v == LocalVerdict::kReplied) {
    icmp_reply(b, i, reply_len);
  } else if (v == LocalVerdict::kConsumed) {
    ++b.ic[PortCounter::consumed_icmp];
    b.consume(i);
  } else {
    b.drop(i, DropReason::to_switch_address);
  }
}

}  // namespace rocelb
