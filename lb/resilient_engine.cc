#include "lb/resilient_engine.h"

#include <algorithm>

namespace rocelb {
namespace {
constexpr uint16_t kUnassigned = 0xffff;
}

ResilientEngine::ResilientEngine(const std::vector<uint32_t>& weights, uint32_t buckets)
    : weights_(weights),
      home_(build_weighted_buckets(weights, buckets)),
      table_(home_),
      count_(weights.size(), 0) {}

void ResilientEngine::rebalance(LbShared& s) {
  const UpMembers& up = s.up;
  generation_ = up.generation();
  if (up.count() == 0) return;  // nothing to move to; LbEngine returns kNoMember
  std::fill(count_.begin(), count_.end(), 0u);
  uint64_t moved = 0;
  bool orphans = false;
  for (size_t b = 0; b < table_.size(); ++b) {
    uint16_t m = table_[b];
    if (up.is_up(home_[b])) {
      if (m != home_[b]) ++moved;
      m = home_[b];
    } else if (!up.is_up(m)) {
      m = kUnassigned;
      orphans = true;
    }
    table_[b] = m;
    if (m != kUnassigned) ++count_[m];
  }
  if (orphans) {
    for (auto& m : table_) {
      if (m != kUnassigned) continue;
      // Fewest buckets per unit of weight: count_a / w_a < count_b / w_b.
      uint32_t best = up.at(0);
      for (uint32_t k = 1; k < up.count(); ++k) {
        const uint32_t j = up.at(k);
        if (static_cast<uint64_t>(count_[j]) * weights_[best] <
            static_cast<uint64_t>(count_[best]) * weights_[j])
          best = j;
      }
      m = static_cast<uint16_t>(best);
      ++count_[best];
      ++moved;
    }
  }
  s.counters.buckets_moved += moved;
}

}  // namespace rocelb
