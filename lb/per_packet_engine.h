// Per-packet modes: `per_packet_random` (spraying: every packet to a uniformly
// random up member) and `per_packet_quality` (adaptive routing: every packet
// to a member of the best quality band, ties at random). No per-flow state;
// packets of one flow may arrive out of order.
// Knobs: quality.* (per_packet_quality). Counters: none of its own.
#pragma once

#include <cstdint>

#include "lb/lb_decision.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"

namespace rocelb {

class PerPacketEngine {
 public:
  template <bool kQuality>
  uint32_t select(const MemberPath* paths, LbShared& s, LbDecision* trace) const {
    if constexpr (kQuality) {
      return s.quality.pick_best(s.up, paths, s.rng, trace);
    } else {
      return s.random_up();
    }
  }
};

}  // namespace rocelb
