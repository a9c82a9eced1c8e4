// Helpers for the load-balancing tests: group specs, path arrays and streams
// of flow hashes.
#pragma once

#include <cstdint>
#include <vector>

#include "lb/lb_engine.h"
#include "lb/lb_rng.h"

namespace rocelb::test {

inline constexpr uint64_t k100G = 100'000'000'000ull;

inline LbGroupSpec spec_of(LbMode mode, uint32_t members, uint64_t seed = 1) {
  LbGroupSpec s;
  s.mode = mode;
  s.weights.assign(members, 1);
  s.seed = seed;
  return s;
}

inline std::vector<MemberPath> idle_paths(uint32_t n) {
  std::vector<MemberPath> p(n);
  for (auto& m : p) m.speed_bps = k100G;
  return p;
}

// n distinct-looking flow hashes, reproducible.
inline std::vector<uint32_t> flow_hashes(uint32_t n, uint64_t seed = 42) {
  LbRng r(seed);
  std::vector<uint32_t> h(n);
  for (auto& x : h) x = static_cast<uint32_t>(r.next());
  return h;
}

inline constexpr LbMode kAllModes[] = {LbMode::kFixed,           LbMode::kWcmp,
                                       LbMode::kResilient,       LbMode::kFlowletRandom,
                                       LbMode::kFlowletQuality,  LbMode::kPerPacketQuality,
                                       LbMode::kPerPacketRandom, LbMode::kDrill};

}  // namespace rocelb::test
