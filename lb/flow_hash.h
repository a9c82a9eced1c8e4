// ECMP flow hash: a seeded 32-bit hash over the fields of a FlowKey selected
// by a HashField mask (lb_mode.h). The seed is per switch (`switch.hash_seed`)
// so that two switches in a row hashing the same fields do not polarize.
// ecmp_pick() maps a hash onto n members without modulo bias.
#pragma once

#include <cstdint>

#include "common/flow_key.h"
#include "lb/lb_mode.h"

namespace rocelb {

struct HashConfig {
  uint64_t seed = 0;
  uint32_t fields = kHashFiveTuple;
};

uint32_t flow_hash(const FlowKey& key, const HashConfig& cfg);

// Member index in [0, n) for a 32-bit hash (multiply-shift: uniform for any n).
inline uint32_t ecmp_pick(uint32_t hash, uint32_t n) {
  return static_cast<uint32_t>((static_cast<uint64_t>(hash) * n) >> 32);
}

}  // namespace rocelb
