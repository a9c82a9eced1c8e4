// The forwarding stages. process_burst() (pipeline.h) runs them in order
// over one received burst; each walks the burst's arrays and writes, per
// packet, what the next stage needs: a verdict, an egress port and class, a
// next hop. A packet leaves the burst in exactly one place: freed and
// counted (consumed or dropped with a reason) or handed to an egress queue.
//
//   parse_stage      parse, destination-MAC acceptance, per-kind counters,
//                    martian check; prefetches the packets ahead
//   local_stage      traffic for the switch itself: PFC/PAUSE (to the port's
//                    TX owner), ARP, IPv6 neighbor discovery and echo to
//                    link-scope addresses
//   route_stage      bulk LPM lookups (IPv4 and IPv6), next hop, TTL check,
//                    traffic class; echo requests routed to a switch address
//                    go back to local_reply()
//   balance_stage    one select_burst() per (group, depth source) over the
//                    packets routed to it; member depths and loads read once
//   conweave_stage   mode conweave (switch.conweave): ConWeave's header off
//                    what goes to a connected host, the destination ToR's
//                    reordering, replies and notifies; the source ToR takes
//                    replies and notifies for its flows
//   rewrite_stage    MACs, TTL / hop limit, IPv4 checksum
//   enqueue_stage    grouped by (egress port, class): WRED/ECN at enqueue,
//                    PFC-storm and headroom admission, tail drop, then one
//                    burst hand-off and one update of the shared depth and
//                    PFC counters per group
//
// No allocation, logging, exceptions or locks; counters go to the worker's
// own blocks.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>
#include <tuple>

#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

inline constexpr uint16_t kMaxBurst = 32;
static_assert(std::tuple_size_v<decltype(WorkerState::parsed)> == kMaxBurst);

// What a stage decided for one packet.
enum class Step : uint8_t {
  kDone,     // freed (consumed or dropped) or already handed over
  kLocal,    // for local_stage
  kRoute,    // for route_stage
  kBalance,  // routed to a group: for balance_stage
  kForward,  // egress port, class and MAC known: rewrite, then enqueue
  kReply,    // a reply the switch wrote: enqueue as is
};

struct Burst {
  Burst(Dataplane& d, unsigned w, uint16_t port, rte_mbuf** p, uint16_t count, uint64_t now,
        bool again = false)
      : dp(d),
        worker(w),
        ws(d.worker(w)),
        epoch(*ws.epoch),
        cfg(*epoch.config),
        in_port(port),
        iport(cfg.ports[port]),
        ic(ws.port[port]),
        now_ns(now),
        pkts(p),
        n(count),
        reinjected(again),
        pp(ws.parsed.data()) {}

  Dataplane& dp;
  unsigned worker;
  WorkerState& ws;
  const Epoch& epoch;
  const SwitchConfig& cfg;
  uint16_t in_port;
  const PortConfig& iport;
  PortCounters& ic;  // the ingress port's counters on this worker
  uint64_t now_ns;
  rte_mbuf** pkts;
  uint16_t n;
  // Frames the switch runs through again (conweave: held packets leaving
  // their reorder queue, replies it made): counted in already, as received
  // or as generated, so not again as received.
  bool reinjected;

  ParsedPacket* pp;  // kMaxBurst entries (the worker's scratch)
  Step step[kMaxBurst];
  bool nd_mac[kMaxBurst];  // accepted only as neighbor discovery to the switch
  uint32_t nh[kMaxBurst];  // route_stage: next-hop index
  uint16_t out_port[kMaxBurst];
  uint8_t tc[kMaxBurst];
  const uint8_t* out_mac[kMaxBurst];

  // Frees a packet and counts the drop on `pc` (ingress or egress port:
  // an element of ws.port); `cls` is its class when known.
  void drop(uint16_t i, PortCounters& pc, DropReason r, uint8_t cls = kClassUnknown) {
    pc.drop(r);
    if (PacketObserver* obs = dp.observer()) [[unlikely]]
      obs->on_drop(pkts[i], static_cast<uint16_t>(&pc - ws.port.data()), cls, r, now_ns);
    mbuf_free(pkts[i]);
    step[i] = Step::kDone;
  }
  void drop(uint16_t i, DropReason r) { drop(i, ic, r); }
  // Frees a packet the switch consumed (counted by the caller).
  void consume(uint16_t i) {
    mbuf_free(pkts[i]);
    step[i] = Step::kDone;
  }
};

// Loopback, multicast, link-local or unspecified source or destination.
bool is_martian(const ParsedPacket& p);

void parse_stage(Burst& b);
void local_stage(Burst& b);
// An IP packet routed to one of the switch's addresses (route_stage).
void local_reply(Burst& b, uint16_t i);
void route_stage(Burst& b);
void balance_stage(Burst& b);
// Mode conweave at the source ToR: its engine places cnt RoCE data
// packets (idx[j], hashes[j], bytes[j]) into member[j], and each carries
// ConWeave's header (stage_conweave.cc).
void conweave_place(Burst& b, LbEngine& engine, const uint16_t* idx, const uint32_t* hashes,
                    const uint32_t* bytes, uint32_t cnt, const MemberPath* paths, uint32_t* member,
                    LbDecision* why);
void conweave_stage(Burst& b);
void rewrite_stage(Burst& b);
void enqueue_stage(Burst& b);

}  // namespace rocelb
