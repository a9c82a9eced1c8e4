// parse_stage: every received frame is parsed, counted by kind, accepted or
// dropped by its destination MAC, and sorted: traffic for the switch itself
// (local_stage), IP to route (route_stage), or dropped with a reason.
#include <rte_prefetch.h>

#include <atomic>
#include <cstring>

#include "dataplane/forward/local_responder.h"
#include "dataplane/forward/stages.h"
#include "dataplane/wire/parser.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint8_t kBroadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
// Frames ahead whose first cache line is fetched while this one is parsed.
constexpr uint16_t kPrefetchAhead = 3;

// Packets of each kind in one burst, added to the port's counters once.
struct KindCounts {
  uint32_t vlan = 0, ipv4 = 0, ipv6 = 0, rocev2 = 0, rocev1 = 0, cnp = 0;
  void count(const ParsedPacket& p) {
    vlan += p.num_vlans != 0;
    ipv4 += p.kind == L3Kind::kIpv4;
    ipv6 += p.kind == L3Kind::kIpv6;
    rocev2 += p.is_rocev2;
    rocev1 += p.is_rocev1;
    cnp += p.is_cnp;
  }
  void add_to(PortCounters& c) const {
    if (vlan) c[PortCounter::rx_vlan_tagged] += vlan;
    if (ipv4) c[PortCounter::rx_ipv4] += ipv4;
    if (ipv6) c[PortCounter::rx_ipv6] += ipv6;
    if (rocev2) c[PortCounter::rx_rocev2] += rocev2;
    if (rocev1) c[PortCounter::rx_rocev1] += rocev1;
    if (cnp) c[PortCounter::rx_cnp] += cnp;
  }
};

// Addresses no router forwards (RFC 1812 5.3.7, RFC 4291 2.5.6): loopback,
// "this network", multicast and limited broadcast for IPv4; unspecified,
// loopback, link-local and multicast for IPv6; as source or destination.
inline bool martian_v4(const uint8_t* a) {
  return a[0] == 0 || a[0] == 127 || a[0] >= 224;  // 0/8, 127/8, 224/4 and 240/4
}
inline bool martian_v6(const uint8_t* a) {
  static constexpr uint8_t kZero[15] = {};
  const bool unspecified_or_loopback = std::memcmp(a, kZero, 15) == 0 && a[15] <= 1;
  return unspecified_or_loopback || a[0] == 0xff || (a[0] == 0xfe && (a[1] & 0xc0) == 0x80);
}

// ICMPv6 to the port's own or link-scope addresses (NDP, echo to the
// link-local address) is the switch's, before the martian check that most
// of it would fail.
inline bool link_scope_icmp6(const ParsedPacket& p, const PortConfig& port) {
  return p.proto == kIpProtoIcmpv6 && p.ip_version == 6 && !p.is_fragment &&
         (p.dst_ip[0] >= 0xfe || (port.has_v6 && std::memcmp(p.dst_ip, port.v6, 16) == 0));
}

}  // namespace

bool is_martian(const ParsedPacket& p) {
  if (p.ip_version == 4) return martian_v4(p.src_ip) || martian_v4(p.dst_ip);
  return martian_v6(p.src_ip) || martian_v6(p.dst_ip);
}

void parse_stage(Burst& b) {
  const PortConfig& iport = b.iport;
  uint64_t rx_bytes = 0;
  KindCounts kinds;
  // Counted in before any of them is dropped, consumed or queued, and
  // published first (Dataplane::snapshot reads rx last).
  if (!b.reinjected) b.ic[PortCounter::rx_packets] += b.n;
  std::atomic_thread_fence(std::memory_order_release);
  for (uint16_t i = 0; i < kPrefetchAhead && i < b.n; ++i)
    rte_prefetch0(rte_pktmbuf_mtod(b.pkts[i], void*));
  for (uint16_t i = 0; i < b.n; ++i) {
    if (i + kPrefetchAhead < b.n)
      rte_prefetch0(rte_pktmbuf_mtod(b.pkts[i + kPrefetchAhead], void*));
    rte_mbuf* m = b.pkts[i];
    m->port = b.in_port;
    rx_bytes += m->pkt_len;
    b.nd_mac[i] = false;
    ParsedPacket& p = b.pp[i];
    const ParseResult r = parse_frame(rte_pktmbuf_mtod(m, uint8_t*), m->data_len, m->pkt_len, p);
    if (r != ParseResult::ok) {
      b.drop(i, drop_from_parse(r));
      continue;
    }
    kinds.count(p);
    // Beyond the port's MTU (a host sending jumbo frames to a 1500 port):
    // refused as a real port does, before anything is queued for it.
    if (m->pkt_len - p.l3_offset > iport.mtu) {
      b.drop(i, DropReason::oversize_frame);
      continue;
    }

    const bool to_port = std::memcmp(p.dst_mac, iport.mac, 6) == 0;
    const bool bcast = !to_port && std::memcmp(p.dst_mac, kBroadcast, 6) == 0;
    const bool pfc_dest = !to_port && std::memcmp(p.dst_mac, kPfcDstMac.data(), 6) == 0;
    bool accepted = to_port || bcast || (pfc_dest && p.kind == L3Kind::kMacControl) ||
                    (iport.promiscuous && !(p.dst_mac[0] & 1));
    // Neighbor Solicitations come to the port's solicited-node groups; only
    // neighbor discovery for the switch may enter that way (local_stage).
    const bool nd_mac =
        !accepted && p.kind == L3Kind::kIpv6 &&
        is_port_solicited_node_mac(p.dst_mac, iport.mac, iport.has_v6 ? iport.v6 : nullptr);
    if (!accepted && !nd_mac) {
      b.drop(i, DropReason::dst_mac_not_accepted);
      continue;
    }
    b.nd_mac[i] = nd_mac;
    switch (p.kind) {
      case L3Kind::kMacControl:
      case L3Kind::kArp:
        b.step[i] = Step::kLocal;
        continue;
      case L3Kind::kRoceV1:
        b.drop(i, DropReason::rocev1_not_routable);
        continue;
      case L3Kind::kOther:
        b.drop(i, bcast ? DropReason::broadcast_not_routed : DropReason::unsupported_ethertype);
        continue;
      case L3Kind::kIpv4:
      case L3Kind::kIpv6:
        break;
    }
    if (bcast) {
      b.drop(i, DropReason::broadcast_not_routed);
      continue;
    }
    if (link_scope_icmp6(p, iport)) {
      b.step[i] = Step::kLocal;
      continue;
    }
    if (nd_mac) {
      b.drop(i, DropReason::dst_mac_not_accepted);
      continue;
    }
    if (is_martian(p)) {
      b.drop(i, DropReason::martian_address);
      continue;
    }
    b.step[i] = Step::kRoute;
  }
  if (b.reinjected) return;
  b.ic[PortCounter::rx_bytes] += rx_bytes;
  kinds.add_to(b.ic);
}

}  // namespace rocelb
