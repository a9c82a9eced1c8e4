// The state every engine of one LbEngine shares: the up-member snapshot, the
// quality model, the seeded RNG and the counters. Engines take it by
// reference on each call. No knobs of its own.
#pragma once

#include <cstdint>

#include "lb/lb_counters.h"
#include "lb/lb_knobs.h"
#include "lb/lb_rng.h"
#include "lb/quality_model.h"
#include "lb/up_members.h"

namespace rocelb {

struct LbShared {
  LbShared(uint32_t n, const QualityKnobs& q, uint64_t seed) : up(n), quality(q), rng(seed) {}

  // A uniformly random up member (kNoMember if none is up).
  uint32_t random_up() {
    const uint32_t n = up.count();
    if (n == 0) return kNoMember;
    return up.at(n == 1 ? 0 : rng.below(n));
  }

  UpMembers up;
  QualityModel quality;
  LbRng rng;
  LbEngineCounters counters;
};

}  // namespace rocelb
