// Builds the weighted bucket table that `wcmp` and `resilient` hash into:
// `size` buckets shared among the members in proportion to their weights by
// the largest-remainder method (floor(w * size / W) each, the leftover
// buckets to the largest remainders, ties to the lower member index), then
// interleaved so that each member's buckets are spread evenly over the table
// (member i's k-th bucket sits near (k + 1/2) / quota_i). bucket_of() maps a
// 32-bit hash onto a bucket by multiply-shift (its top bits).
// No knobs of its own (`buckets` is the size); no counters.
#pragma once

#include <cstdint>
#include <vector>

namespace rocelb {

// Buckets per member (sums to size). weights: one per member, each >= 1.
std::vector<uint32_t> largest_remainder_quotas(const std::vector<uint32_t>& weights, uint32_t size);

// The table: size entries, each a member index.
std::vector<uint16_t> build_weighted_buckets(const std::vector<uint32_t>& weights, uint32_t size);

inline uint32_t bucket_of(uint32_t hash, uint32_t size) {
  return static_cast<uint32_t>((static_cast<uint64_t>(hash) * size) >> 32);
}

}  // namespace rocelb
