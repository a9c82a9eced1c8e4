// Weighted bucket tables: largest-remainder quotas and even interleaving.
#include "lb/bucket_table.h"

#include <gtest/gtest.h>

#include <numeric>

namespace rocelb {
namespace {

TEST(BucketTable, LargestRemainderQuotas) {
  // 4096 * {1,2,3,4} / 10 = 409.6, 819.2, 1228.8, 1638.4 → floors 409, 819, 1228, 1638
  // (sum 4094); the two leftovers go to the largest remainders (.8, .6).
  EXPECT_EQ(largest_remainder_quotas({1, 2, 3, 4}, 4096),
            (std::vector<uint32_t>{410, 819, 1229, 1638}));
  EXPECT_EQ(largest_remainder_quotas({1, 1, 1}, 64), (std::vector<uint32_t>{22, 21, 21}));
  EXPECT_EQ(largest_remainder_quotas({5}, 64), (std::vector<uint32_t>{64}));
  // A tiny weight may round to no bucket at all.
  EXPECT_EQ(largest_remainder_quotas({1, 1000}, 64), (std::vector<uint32_t>{0, 64}));
}

TEST(BucketTable, TableHoldsTheQuotas) {
  const std::vector<uint32_t> w{3, 1, 7, 2, 2};
  auto table = build_weighted_buckets(w, 1024);
  ASSERT_EQ(table.size(), 1024u);
  auto quota = largest_remainder_quotas(w, 1024);
  std::vector<uint32_t> count(w.size());
  for (auto m : table) ++count[m];
  EXPECT_EQ(count, quota);
}

TEST(BucketTable, EqualWeightsInterleaveRoundRobin) {
  auto table = build_weighted_buckets({1, 1, 1, 1}, 64);
  for (uint32_t b = 0; b < 64; ++b) EXPECT_EQ(table[b], b % 4) << b;
}

TEST(BucketTable, EachMemberSpreadOverTheTable) {
  // Every window of 64 buckets holds each member in proportion (± 2).
  auto table = build_weighted_buckets({1, 2, 5}, 4096);
  for (uint32_t start = 0; start + 64 <= 4096; start += 64) {
    std::vector<int> c(3);
    for (uint32_t b = start; b < start + 64; ++b) ++c[table[b]];
    EXPECT_NEAR(c[0], 8, 2);
    EXPECT_NEAR(c[1], 16, 2);
    EXPECT_NEAR(c[2], 40, 2);
  }
}

TEST(BucketTable, BucketOfUsesTheTopBits) {
  EXPECT_EQ(bucket_of(0, 256), 0u);
  EXPECT_EQ(bucket_of(0xffffffffu, 256), 255u);
  EXPECT_EQ(bucket_of(0x80000000u, 256), 128u);
}

}  // namespace
}  // namespace rocelb
