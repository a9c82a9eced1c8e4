// Counters of one LbEngine (one group on one lcore), summed on read. The
// engine's lcore is their one writer; other threads read them (Counter). Names and
// help text are declared once in ROCELB_LB_COUNTERS; every reader walks
// kLbCounters. Per member: packets and bytes the engine sent there.
//
//   decisions           packets the engine chose a member for
//   no_member           packets that found every member down (kNoMember)
//   flowlets_created    new flowlets started (first packet, gap, or member down)
//   flowlets_expired    flowlets ended by a gap longer than idle_time
//   flowlet_collisions  packets that found another flow's tag in an active entry
//   flowlets_rerouted   new flowlets placed on another member than the entry's last
//   buckets_moved       bucket-table entries reassigned after members went down or up
//   bpf_refused         packets a bpf policy gave an index out of range or down
//   conweave_*          mode conweave at the source ToR (conweave_source.h): epochs
//                       started (RTT requests), tails sent, reroutes, timely RTT
//                       replies, clears, notifies received, stale replies
#pragma once

#include <cstdint>

#include <string_view>
#include <vector>
#include "common/counter.h"

namespace rocelb {

#define ROCELB_LB_COUNTERS(X)                                                                   \
  X(decisions, "packets the engine chose a member for")                                         \
  X(no_member, "packets that found every member of the group down")                             \
  X(flowlets_created, "new flowlets started (first packet, idle gap, or member down)")          \
  X(flowlets_expired, "flowlets ended by a gap longer than idle_time")                          \
  X(flowlet_collisions, "packets that found another flow's tag in an active flowlet entry")     \
  X(flowlets_rerouted, "new flowlets placed on another member than the entry's last one")       \
  X(buckets_moved, "bucket-table entries reassigned after members went down or came back")      \
  X(bpf_refused, "packets a bpf policy sent to no member: out of range or down (dropped)")      \
  X(conweave_epochs, "conweave: epochs started (the packet asks the far ToR for an RTT reply)") \
  X(conweave_tails, "conweave: RTT replies that missed their deadline (TAIL sent, flow moves)") \
  X(conweave_reroutes, "conweave: flows moved to another member (at an epoch or a TAIL)")       \
  X(conweave_replies_timely, "conweave: RTT replies back before their deadline (path is good)") \
  X(conweave_clears, "conweave: clears back (the far ToR saw the TAIL: reordering is over)")    \
  X(conweave_notifies, "conweave: notifies back (a CE-marked packet crossed that member)")      \
  X(conweave_stale_replies, "conweave: replies for another epoch or phase, or late (ignored)")

struct alignas(64) LbEngineCounters {
#define ROCELB_X(name, help) Counter name;
  ROCELB_LB_COUNTERS(ROCELB_X)
#undef ROCELB_X
  std::vector<Counter> member_packets;  // indexed like the group's members
  std::vector<Counter> member_bytes;

  // Adds another lcore's counters of the same group (same member count).
  void add(const LbEngineCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_LB_COUNTERS(ROCELB_X)
#undef ROCELB_X
    if (member_packets.size() < o.member_packets.size()) {
      member_packets.resize(o.member_packets.size());
      member_bytes.resize(o.member_bytes.size());
    }
    for (size_t i = 0; i < o.member_packets.size(); ++i) {
      member_packets[i] += o.member_packets[i];
      member_bytes[i] += o.member_bytes[i];
    }
  }
};

struct LbCounterInfo {
  std::string_view name;
  std::string_view help;
  Counter LbEngineCounters::*field;
};

inline constexpr LbCounterInfo kLbCounters[] = {
#define ROCELB_X(name, help) {#name, help, &LbEngineCounters::name},
    ROCELB_LB_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

}  // namespace rocelb
