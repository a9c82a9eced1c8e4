#include "dataplane/forward/pipeline.h"

#include <cstring>

#include "dataplane/forward/classify.h"
#include "dataplane/forward/ecn_mark.h"
#include "dataplane/forward/local_responder.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/parser.h"
#include "lb/flow_hash.h"
#include "lb/lb_engine.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint8_t kBroadcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

inline void drop(PortCounters& pc, DropReason r, rte_mbuf* m) {
  pc.drop(r);
  rte_pktmbuf_free(m);
}

inline void enqueue(Dataplane& dp, WorkerState& wc, uint16_t port, uint8_t tc, rte_mbuf* m) {
  QueueCounters& qc = wc.queue[port][tc];
  const uint32_t len = m->pkt_len;
  const uint16_t in_port = m->port;
  PfcGenerator& pfc = dp.pfc();
  const bool lossless = pfc.lossless(tc);
  if (lossless && ((dp.tx(port).storm_drop.load(std::memory_order_relaxed) >> tc) & 1)) {
    drop(wc.port[port], DropReason::pfc_watchdog_drop, m);  // the queue is in a PFC storm
    return;
  }
  if (lossless && pfc.admit(in_port, tc, len) == Admit::kDropped) {
    drop(wc.port[in_port], DropReason::lossless_dropped, m);  // headroom exhausted
    return;
  }
  if (dp.tx(port).queues[tc].enqueue(m)) {
    ++qc.enqueued_packets;
    qc.enqueued_bytes += len;
    pfc.add(in_port, tc, len);  // every class: pfc_enable may change while it is queued
  } else {
    ++qc.dropped_packets;
    qc.dropped_bytes += len;
    drop(wc.port[port], DropReason::queue_full, m);
  }
}

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

// Sends the reply the local responder wrote into m (reply_len bytes) back out
// of the port it came in on. Counts the request consumed and the reply
// generated, like ARP.
inline void send_icmp_reply(Dataplane& dp, WorkerState& wc, uint16_t in_port, rte_mbuf* m,
                            uint32_t reply_len) {
  PortCounters& ic = wc.port[in_port];
  ++ic[PortCounter::consumed_icmp];
  ++ic[PortCounter::generated_icmp_replies];
  if (reply_len != m->pkt_len) {  // only single-segment frames change length
    m->data_len = static_cast<uint16_t>(reply_len);
    m->pkt_len = reply_len;
  }
  enqueue(dp, wc, in_port, kControlTc, m);
}

inline void count_kind(PortCounters& c, const ParsedPacket& p) {
  if (p.num_vlans) ++c[PortCounter::rx_vlan_tagged];
  if (p.kind == L3Kind::kIpv4) ++c[PortCounter::rx_ipv4];
  if (p.kind == L3Kind::kIpv6) ++c[PortCounter::rx_ipv6];
  if (p.is_rocev2) ++c[PortCounter::rx_rocev2];
  if (p.is_rocev1) ++c[PortCounter::rx_rocev1];
  if (p.is_cnp) ++c[PortCounter::rx_cnp];
}

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
inline bool is_martian(const ParsedPacket& p) {
  if (p.ip_version == 4) return martian_v4(p.src_ip) || martian_v4(p.dst_ip);
  return martian_v6(p.src_ip) || martian_v6(p.dst_ip);
}

// Fresh queue depth and load of every member, for the modes that compare
// paths: the packet's class queue or the whole port (quality.depth).
inline void fill_paths(const Dataplane& dp, const GroupConfig& g, uint8_t tc, MemberPath* paths) {
  const bool whole_port = g.spec.knobs.quality.depth == QueueDepthSource::kPort;
  for (size_t k = 0; k < g.members.size(); ++k) {
    const PortTx& t = dp.tx(g.members[k].port);
    paths[k].queue_bytes = whole_port ? t.depth_bytes() : t.queues[tc].depth_bytes();
    paths[k].load_bps = t.load_bps.load(std::memory_order_relaxed);
  }
}

// A new config: the worker's WRED markers follow its profiles (counts kept).
void rebuild_wred(const Dataplane& dp, unsigned worker, WorkerState& wc, const SwitchConfig& cfg,
                  uint64_t generation) {
  (void)dp;
  const LosslessParams& l = cfg.params.qos.lossless;
  for (uint16_t port : cfg.port_ids)
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      wc.wred_retired[port][c].add(wc.wred[port][c].counters());
      wc.wred[port][c] =
          l.wred[c].enabled
              ? WredMarker(l.wred[c], WredMarker::seed_for(cfg.params.sw.hash_seed, port,
                                                           static_cast<uint8_t>(c), worker))
              : WredMarker();
    }
  wc.wred_generation = generation;
}

inline void fill_flow_key(const ParsedPacket& p, const uint8_t* frame, uint32_t avail, FlowKey& k) {
  k.family = p.ip_version;
  const int alen = p.ip_version == 4 ? 4 : 16;
  std::memcpy(k.src_ip, p.src_ip, alen);
  std::memcpy(k.dst_ip, p.dst_ip, alen);
  k.proto = p.proto;
  if (p.has_udp) {
    k.sport = p.sport;
    k.dport = p.dport;
  } else if (p.proto == 6 && !p.is_later_fragment && p.l4_offset + 4u <= avail) {
    k.sport = load_be16(frame + p.l4_offset);  // TCP ports
    k.dport = load_be16(frame + p.l4_offset + 2);
  }
  k.dest_qp = p.has_bth ? p.bth_dest_qp : 0;
}

}  // namespace

void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns) {
  const Epoch& epoch = dp.epoch();  // one config for the whole burst
  const SwitchConfig& cfg = *epoch.config;
  const WorkerLb& lb = epoch.workers[worker];
  WorkerState& wc = dp.worker(worker);
  if (wc.wred_generation != epoch.generation) rebuild_wred(dp, worker, wc, cfg, epoch.generation);
  const LosslessParams& lossless = cfg.params.qos.lossless;
  const bool mark_at_enqueue = lossless.ecn_mark == EcnMarkPoint::kEnqueue;
  PortCounters& ic = wc.port[in_port];
  const PortConfig& iport = cfg.ports[in_port];

  ParsedPacket pp[kMaxBurst];
  uint16_t routed[kMaxBurst];  // indexes of packets to look up
  uint16_t nrouted = 0;
  uint32_t v4_ips[kMaxBurst];
  uint8_t v6_ips[kMaxBurst][16];
  uint64_t v4_nh[kMaxBurst], v6_nh[kMaxBurst];
  uint16_t v4_of[kMaxBurst], v6_of[kMaxBurst];
  uint16_t nv4 = 0, nv6 = 0;

  for (uint16_t i = 0; i < n; ++i) {
    rte_mbuf* m = pkts[i];
    m->port = in_port;
    uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
    ++ic[PortCounter::rx_packets];
    ic[PortCounter::rx_bytes] += m->pkt_len;
    ParsedPacket& p = pp[i];
    const ParseResult r = parse_frame(frame, m->data_len, m->pkt_len, p);
    if (r != ParseResult::ok) {
      drop(ic, drop_from_parse(r), m);
      continue;
    }
    count_kind(ic, p);

    const bool to_port = std::memcmp(p.dst_mac, iport.mac, 6) == 0;
    const bool bcast = !to_port && std::memcmp(p.dst_mac, kBroadcast, 6) == 0;
    const bool pfc_dest = !to_port && std::memcmp(p.dst_mac, kPfcDstMac.data(), 6) == 0;
    bool accepted = to_port || bcast || (pfc_dest && p.kind == L3Kind::kMacControl) ||
                    (iport.promiscuous && !(p.dst_mac[0] & 1));
    // Neighbor Solicitations come to the port's solicited-node groups; only
    // neighbor discovery for the switch may enter that way (checked below).
    const bool nd_mac =
        !accepted && p.kind == L3Kind::kIpv6 &&
        is_port_solicited_node_mac(p.dst_mac, iport.mac, iport.has_v6 ? iport.v6 : nullptr);
    accepted = accepted || nd_mac;
    if (!accepted) {
      drop(ic, DropReason::dst_mac_not_accepted, m);
      continue;
    }

    switch (p.kind) {
      case L3Kind::kMacControl:
        // Received pause: this port's own transmission of those classes stops.
        if (p.mac_control_opcode == kPfcOpcode) {
          ++ic[PortCounter::rx_pfc_frames];
          ++ic[PortCounter::consumed_pfc];
          // 802.1Qbb: a port honours PFC only for its PFC-enabled priorities.
          dp.tx(in_port).pause.on_pfc(p.pfc_class_enable & lossless.pfc.enable_mask, p.pfc_quanta,
                                      now_ns, iport.speed_bps);
        } else {
          ++ic[PortCounter::rx_pause_frames];
          ++ic[PortCounter::consumed_pause];
          dp.tx(in_port).pause.on_pause(p.pause_quanta, now_ns, iport.speed_bps);
        }
        rte_pktmbuf_free(m);
        continue;
      case L3Kind::kArp: {
        const bool for_port = iport.has_v4 && p.arp_tpa == load_be32(iport.v4);
        if (!for_port) {
          drop(ic, DropReason::arp_not_for_switch, m);
          continue;
        }
        ++ic[PortCounter::consumed_arp];
        if (p.arp_op != 1) {  // a reply or announcement to us: nothing to learn (static neighbors)
          rte_pktmbuf_free(m);
          continue;
        }
        make_arp_reply(frame, p, iport);
        if (m->pkt_len < 60 && m->nb_segs == 1) {  // pad to the Ethernet minimum, as a NIC would
          const uint16_t add = static_cast<uint16_t>(60 - m->pkt_len);
          if (uint8_t* pad = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(m, add)))
            std::memset(pad, 0, add);
        }
        ++ic[PortCounter::generated_arp_replies];
        enqueue(dp, wc, in_port, kControlTc, m);
        continue;
      }
      case L3Kind::kRoceV1:
        drop(ic, DropReason::rocev1_not_routable, m);
        continue;
      case L3Kind::kOther:
        drop(ic, bcast ? DropReason::broadcast_not_routed : DropReason::unsupported_ethertype, m);
        continue;
      case L3Kind::kIpv4:
      case L3Kind::kIpv6:
        break;
    }
    if (bcast) {
      drop(ic, DropReason::broadcast_not_routed, m);
      continue;
    }
    // ICMPv6 to the port's own or link-scope addresses (NDP, echo to the
    // link-local address) is answered or consumed here, before the martian
    // check that most of it would fail.
    if (p.proto == kIpProtoIcmpv6 && p.ip_version == 6 && !p.is_fragment &&
        (p.dst_ip[0] >= 0xfe || (iport.has_v6 && std::memcmp(p.dst_ip, iport.v6, 16) == 0))) {
      const LocalPort lp = make_local_port(iport.mac, iport.has_v6 ? iport.v6 : nullptr);
      if (is_port_ipv6_destination(p.dst_ip, lp) &&
          (!nd_mac || is_ndp_message(frame, m->data_len, p))) {
        uint32_t reply_len = 0;
        const LocalVerdict v =
            answer_icmp6(frame, m->data_len, m->pkt_len, reply_capacity(m), p, lp, reply_len);
        if (v == LocalVerdict::kReplied) {
          send_icmp_reply(dp, wc, in_port, m, reply_len);
          continue;
        }
        if (v == LocalVerdict::kConsumed) {
          ++ic[PortCounter::consumed_icmp];
          rte_pktmbuf_free(m);
          continue;
        }
      }
    }
    if (nd_mac) {
      drop(ic, DropReason::dst_mac_not_accepted, m);
      continue;
    }
    if (is_martian(p)) {
      drop(ic, DropReason::martian_address, m);
      continue;
    }
    routed[nrouted++] = i;
    if (p.ip_version == 4) {
      v4_of[nv4] = i;
      v4_ips[nv4++] = load_be32(p.dst_ip);
    } else {
      v6_of[nv6] = i;
      std::memcpy(v6_ips[nv6++], p.dst_ip, 16);
    }
  }
  if (nrouted == 0) return;

  uint32_t nh_of[kMaxBurst];
  if (nv4) cfg.routes->lookup_v4(v4_ips, v4_nh, nv4);
  if (nv6) cfg.routes->lookup_v6(v6_ips, v6_nh, nv6);
  for (uint16_t j = 0; j < nv4; ++j) nh_of[v4_of[j]] = static_cast<uint32_t>(v4_nh[j]);
  for (uint16_t j = 0; j < nv6; ++j) nh_of[v6_of[j]] = static_cast<uint32_t>(v6_nh[j]);

  for (uint16_t r = 0; r < nrouted; ++r) {
    const uint16_t i = routed[r];
    rte_mbuf* m = pkts[i];
    const ParsedPacket& p = pp[i];
    uint8_t* frame = rte_pktmbuf_mtod(m, uint8_t*);
    const NextHop& nh = cfg.nexthops[nh_of[i]];

    if (nh.kind == NextHopKind::kNone) {
      drop(ic, DropReason::no_route, m);
      continue;
    }
    if (nh.kind == NextHopKind::kLocal) {
      // Echo requests to any switch address are answered on the ingress
      // port; NDP to another port's address is consumed.
      uint32_t reply_len = 0;
      LocalVerdict v = LocalVerdict::kNotMine;
      if (p.proto == kIpProtoIcmp && p.ip_version == 4) {
        reply_len = make_icmp4_echo_reply(frame, m->data_len, m->pkt_len, p, iport.mac);
        if (reply_len) v = LocalVerdict::kReplied;
      } else if (p.proto == kIpProtoIcmpv6 && p.ip_version == 6) {
        const LocalPort lp = make_local_port(iport.mac, iport.has_v6 ? iport.v6 : nullptr);
        v = answer_icmp6(frame, m->data_len, m->pkt_len, reply_capacity(m), p, lp, reply_len);
      }
      if (v == LocalVerdict::kReplied) {
        send_icmp_reply(dp, wc, in_port, m, reply_len);
      } else if (v == LocalVerdict::kConsumed) {
        ++ic[PortCounter::consumed_icmp];
        rte_pktmbuf_free(m);
      } else {
        drop(ic, DropReason::to_switch_address, m);
      }
      continue;
    }
    if (p.ttl <= 1) {  // before any group state or member counter is touched
      drop(ic, DropReason::ttl_expired, m);
      continue;
    }
    const uint8_t tc = classify(cfg, p);
    uint16_t out_port = 0;
    const uint8_t* out_mac = nullptr;
    switch (nh.kind) {
      case NextHopKind::kNone:
      case NextHopKind::kLocal:
        continue;  // handled above
      case NextHopKind::kConnected: {
        const NeighborEntry* e = cfg.neighbors.find(p.ip_version, p.dst_ip);
        if (!e || e->port != nh.port) {
          drop(ic, DropReason::no_neighbor, m);
          continue;
        }
        out_port = e->port;
        out_mac = e->mac;
        break;
      }
      case NextHopKind::kNeighbor:
        out_port = nh.port;
        out_mac = nh.mac;
        break;
      case NextHopKind::kGroup: {
        const GroupConfig& g = cfg.groups[nh.group];
        FlowKey key;
        fill_flow_key(p, frame, m->data_len, key);
        const uint32_t h = flow_hash(key, g.spec.hash);
        MemberPath* paths = lb.paths[nh.group].data();
        if (g.needs_depth) fill_paths(dp, g, tc, paths);
        DecisionLog* log = dp.decision_log();
        LbDecision why;
        if (log) why.clear();
        const uint32_t k =
            lb.engines[nh.group]->select(h, m->pkt_len, now_ns, paths, log ? &why : nullptr);
        if (k == kNoMember) {
          drop(ic, DropReason::no_member_up, m);
          continue;
        }
        const GroupMember& mem = g.members[k];
        if (log) log->write(now_ns, g.name, g.spec.mode, key, h, why, mem.port);
        out_port = mem.port;
        out_mac = mem.mac;
        break;
      }
    }
    uint8_t* l3 = frame + p.l3_offset;
    if (p.ip_version == 4) {
      ipv4_decrement_ttl(l3);
    } else {
      l3[7] = static_cast<uint8_t>(p.ttl - 1);
    }
    std::memcpy(frame, out_mac, 6);
    std::memcpy(frame + 6, cfg.ports[out_port].mac, 6);
    // Where the IP header is, for marking at dequeue.
    m->l2_len = p.l3_offset;
    m->packet_type = p.ip_version == 4 ? RTE_PTYPE_L3_IPV4 : RTE_PTYPE_L3_IPV6;
    if (mark_at_enqueue && lossless.wred[tc].enabled) {
      const bool is_lossless = (lossless.pfc.enable_mask >> tc) & 1;
      const WredVerdict v = wc.wred[out_port][tc].decide(dp.tx(out_port).queues[tc].depth_bytes(),
                                                         m->pkt_len, p.ecn, is_lossless);
      if (v == WredVerdict::kDrop) {
        drop(wc.port[out_port], DropReason::wred_dropped, m);
        continue;
      }
      if (v == WredVerdict::kMark) mark_ce(l3, p.ip_version);
    }
    enqueue(dp, wc, out_port, tc, m);
  }
}

}  // namespace rocelb
