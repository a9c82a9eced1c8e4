#include "lb/bucket_table.h"

#include <algorithm>
#include <numeric>

namespace rocelb {

std::vector<uint32_t> largest_remainder_quotas(const std::vector<uint32_t>& weights,
                                               uint32_t size) {
  const size_t n = weights.size();
  std::vector<uint32_t> quota(n, 0);
  if (n == 0) return quota;
  const uint64_t total = std::accumulate(weights.begin(), weights.end(), uint64_t{0});
  if (total == 0) return quota;
  std::vector<uint64_t> rem(n);
  uint64_t given = 0;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t share = static_cast<uint64_t>(weights[i]) * size;
    quota[i] = static_cast<uint32_t>(share / total);
    rem[i] = share % total;
    given += quota[i];
  }
  std::vector<uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return rem[a] > rem[b]; });
  for (size_t k = 0; given < size; ++k, ++given) ++quota[order[k % n]];
  return quota;
}

std::vector<uint16_t> build_weighted_buckets(const std::vector<uint32_t>& weights, uint32_t size) {
  const std::vector<uint32_t> quota = largest_remainder_quotas(weights, size);
  struct Slot {
    uint32_t k;  // this member's k-th bucket
    uint32_t member;
  };
  std::vector<Slot> slots;
  slots.reserve(size);
  for (uint32_t i = 0; i < quota.size(); ++i)
    for (uint32_t k = 0; k < quota[i]; ++k) slots.push_back({k, i});
  // Position (2k + 1) / (2 quota): compare the fractions exactly.
  std::sort(slots.begin(), slots.end(), [&](const Slot& a, const Slot& b) {
    const uint64_t lhs = (2ull * a.k + 1) * quota[b.member];
    const uint64_t rhs = (2ull * b.k + 1) * quota[a.member];
    if (lhs != rhs) return lhs < rhs;
    return a.member < b.member;
  });
  std::vector<uint16_t> table(slots.size());
  for (size_t b = 0; b < slots.size(); ++b) table[b] = static_cast<uint16_t>(slots[b].member);
  return table;
}

}  // namespace rocelb
