// `wcmp`: weighted ECMP. The flow hash picks a bucket of a table of `buckets`
// entries (default 4096) shared among the members by weight (bucket_table.h),
// so each member's share of the flows is its weight's share to within
// 1/buckets. A flow that hits a down member's bucket is re-hashed into the same
// table (up to 8 probes, then ECMP over the up members), so the down member's
// flows spread over the others by weight and no other flow moves.
// Knobs: buckets, members[].weight. Counters: none of its own.
#pragma once

#include <cstdint>
#include <vector>

#include "lb/bucket_table.h"
#include "lb/flow_hash.h"
#include "lb/lb_decision.h"
#include "lb/lb_rng.h"
#include "lb/lb_shared.h"

namespace rocelb {

class WcmpEngine {
 public:
  WcmpEngine(const std::vector<uint32_t>& weights, uint32_t buckets)
      : table_(build_weighted_buckets(weights, buckets)) {}

  uint32_t select(uint32_t hash, LbShared& s, LbDecision* trace) const {
    const uint32_t size = static_cast<uint32_t>(table_.size());
    const uint32_t b = bucket_of(hash, size);
    if (trace) trace->bucket = b;
    uint32_t m = table_[b];
    if (s.up.is_up(m)) return m;
    uint32_t h = hash;
    for (int probe = 0; probe < kProbes; ++probe) {
      h = remix32(h + 0x9e3779b9u);
      m = table_[bucket_of(h, size)];
      if (s.up.is_up(m)) return m;
    }
    return s.up.at(ecmp_pick(hash, s.up.count()));
  }

  const std::vector<uint16_t>& table() const { return table_; }

 private:
  static constexpr int kProbes = 8;
  std::vector<uint16_t> table_;
};

}  // namespace rocelb
