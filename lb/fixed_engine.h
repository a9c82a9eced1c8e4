// `fixed`: ECMP. The flow hash picks one of the members (ecmp_pick); a flow
// never moves while the member set stays the same. With members down the hash
// picks among the up members only (standard ECMP rehash: flows of other
// members may move too — use `resilient` to avoid that).
// Knobs: hash_fields (the caller's flow hash). Counters: none of its own.
#pragma once

#include <cstdint>

#include "lb/flow_hash.h"
#include "lb/lb_shared.h"

namespace rocelb {

class FixedEngine {
 public:
  uint32_t select(uint32_t hash, LbShared& s) const {
    const UpMembers& up = s.up;
    if (up.all_up()) return ecmp_pick(hash, up.size());
    return up.at(ecmp_pick(hash, up.count()));
  }
};

}  // namespace rocelb
