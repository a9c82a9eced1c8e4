// Which members of a group are up, as a snapshot the engines share: a bit
// mask, the count and the list of up member indexes in increasing order.
// LbEngine refreshes it from the MemberPath array once per call (once per
// burst in select_burst); generation() changes whenever the set does, so
// engines with derived state (resilient table, DRILL sample order) rebuild
// it only then. No knobs, no counters.
#pragma once

#include <array>
#include <cstdint>

#include "lb/lb_knobs.h"
#include "lb/path_state.h"

namespace rocelb {

class UpMembers {
 public:
  explicit UpMembers(uint32_t n = 0) : n_(n) {}

  // Re-reads the up flags; true when the set differs from the last refresh.
  bool refresh(const MemberPath* paths) {
    std::array<uint64_t, kWords> m{};
    for (uint32_t i = 0; i < n_; ++i) m[i >> 6] |= static_cast<uint64_t>(paths[i].up) << (i & 63);
    if (m == mask_) return false;
    mask_ = m;
    count_ = 0;
    for (uint32_t i = 0; i < n_; ++i)
      if (is_up(i)) list_[count_++] = static_cast<uint16_t>(i);
    ++generation_;
    return true;
  }

  uint32_t size() const { return n_; }
  uint32_t count() const { return count_; }
  bool all_up() const { return count_ == n_; }
  bool is_up(uint32_t i) const { return (mask_[i >> 6] >> (i & 63)) & 1; }
  // The k-th up member, k < count().
  uint32_t at(uint32_t k) const { return list_[k]; }
  const uint16_t* list() const { return list_.data(); }
  uint64_t generation() const { return generation_; }

 private:
  static constexpr uint32_t kWords = kMaxLbMembers / 64;
  uint32_t n_;
  uint32_t count_ = 0;
  uint64_t generation_ = 0;
  std::array<uint64_t, kWords> mask_{};
  std::array<uint16_t, kMaxLbMembers> list_{};
};

}  // namespace rocelb
