// Flowlet switching: `flowlet_random` (LetFlow) and `flowlet_quality` (DLB).
// A packet whose flowlet-table entry saw its last packet at most `idle_time`
// ago follows that entry's member; otherwise (empty entry, gap > idle_time,
// or the member went down) it starts a new flowlet on a random up member
// (LetFlow) or on a member of the best quality band, ties at random (DLB).
// Knobs: idle_time, max_flows, quality.*. Counters: flowlets_created,
// flowlets_expired, flowlet_collisions, flowlets_rerouted.
#pragma once

#include <cstdint>

#include "lb/flowlet_table.h"
#include "lb/lb_decision.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"

namespace rocelb {

class FlowletEngine {
 public:
  FlowletEngine(uint32_t max_flows, uint64_t idle_time_ns)
      : table_(max_flows), idle_ns_(idle_time_ns) {}

  template <bool kQuality>
  uint32_t select(uint32_t hash, uint64_t now_ns, const MemberPath* paths, LbShared& s,
                  LbDecision* trace) {
    FlowletEntry& e = table_.entry(hash);
    const uint32_t tag = table_.tag(hash);
    LbEngineCounters& c = s.counters;
    bool start = true;
    if (e.valid) {
      const uint64_t age = now_ns >= e.last_seen_ns ? now_ns - e.last_seen_ns : 0;
      if (trace) trace->flowlet_age_ns = age;
      if (age > idle_ns_) {
        ++c.flowlets_expired;
      } else {
        if (e.tag != tag) {
          ++c.flowlet_collisions;
          if (trace) trace->flowlet_collision = true;
        }
        start = !s.up.is_up(e.member);
      }
    }
    uint32_t m = e.member;
    if (start) {
      m = kQuality ? s.quality.pick_best(s.up, paths, s.rng, trace) : s.random_up();
      if (m == kNoMember) return kNoMember;
      ++c.flowlets_created;
      if (e.valid && m != e.member) ++c.flowlets_rerouted;
      e.member = static_cast<uint16_t>(m);
      e.valid = 1;
      if (trace) trace->new_flowlet = true;
    }
    e.tag = tag;
    e.last_seen_ns = now_ns;
    return m;
  }

  void reset() { table_.clear(); }
  const FlowletTable& table() const { return table_; }
  uint64_t idle_time_ns() const { return idle_ns_; }

 private:
  FlowletTable table_;
  uint64_t idle_ns_;
};

}  // namespace rocelb
