// `resilient`: resilient hashing. The flow hash picks a bucket of a table of
// `buckets` entries (64..4096, default 256), first shared among the members
// by weight (each bucket's "home" member). When members go down, only the
// buckets they hold move: each goes to the up member with the fewest buckets
// per unit of weight (ties: lowest index), in bucket order — deterministic
// and even. When a member comes back it takes back exactly its home buckets.
// The table is rebuilt only when the up set changes (UpMembers::generation).
// Knobs: buckets, members[].weight. Counters: buckets_moved.
#pragma once

#include <cstdint>
#include <vector>

#include "lb/bucket_table.h"
#include "lb/lb_decision.h"
#include "lb/lb_shared.h"

namespace rocelb {

class ResilientEngine {
 public:
  ResilientEngine(const std::vector<uint32_t>& weights, uint32_t buckets);

  uint32_t select(uint32_t hash, LbShared& s, LbDecision* trace) {
    if (s.up.generation() != generation_) rebalance(s);
    const uint32_t b = bucket_of(hash, static_cast<uint32_t>(table_.size()));
    if (trace) trace->bucket = b;
    return table_[b];
  }

  // Reassigns the buckets to follow the current up set.
  void rebalance(LbShared& s);

  const std::vector<uint16_t>& table() const { return table_; }
  const std::vector<uint16_t>& home() const { return home_; }

 private:
  std::vector<uint32_t> weights_;
  std::vector<uint16_t> home_;
  std::vector<uint16_t> table_;
  std::vector<uint32_t> count_;  // buckets held per member, scratch for rebalance
  uint64_t generation_ = 0;
};

}  // namespace rocelb
