// `wcmp`: traffic within 1 % of the weights over many flows; a down member's
// flows spread over the others and nobody else's move.
#include <gtest/gtest.h>

#include <numeric>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::flow_hashes;
using test::idle_paths;

LbGroupSpec wcmp_spec(std::vector<uint32_t> w, uint32_t buckets = 0) {
  LbGroupSpec s;
  s.mode = LbMode::kWcmp;
  s.weights = std::move(w);
  s.knobs.buckets = buckets;
  return s;
}

TEST(WcmpEngine, DefaultTableIs4096Buckets) {
  LbEngine e(wcmp_spec({1, 2}), 0);
  ASSERT_NE(e.bucket_table(), nullptr);
  EXPECT_EQ(e.bucket_table()->size(), 4096u);
  LbEngine f(wcmp_spec({1, 2}, 256), 0);
  EXPECT_EQ(f.bucket_table()->size(), 256u);
}

TEST(WcmpEngine, TrafficWithinOnePercentOfTheWeights) {
  const std::vector<uint32_t> w{1, 2, 3, 4, 10};
  LbEngine e(wcmp_spec(w), 0);
  auto paths = idle_paths(5);
  const uint32_t flows = 2'000'000;
  for (uint32_t h : flow_hashes(flows)) e.select(h, 1, 0, paths.data(), nullptr);
  const double total = std::accumulate(w.begin(), w.end(), 0.0);
  for (size_t m = 0; m < w.size(); ++m) {
    const double share = double(e.counters().member_packets[m]) / flows;
    const double want = w[m] / total;
    EXPECT_NEAR(share / want, 1.0, 0.01) << "member " << m << " share " << share;
  }
}

TEST(WcmpEngine, AFlowKeepsItsMember) {
  LbEngine e(wcmp_spec({3, 1, 1}), 0);
  auto paths = idle_paths(3);
  for (uint32_t h : flow_hashes(500)) {
    const uint32_t m = e.select(h, 64, 0, paths.data(), nullptr);
    paths[m].queue_bytes += 1'000'000;
    EXPECT_EQ(e.select(h, 64, 5'000'000, paths.data(), nullptr), m);
  }
}

TEST(WcmpEngine, DownMemberFlowsSpreadByWeightOthersStay) {
  LbEngine e(wcmp_spec({1, 1, 2, 4}), 0);
  auto paths = idle_paths(4);
  auto hashes = flow_hashes(100'000);
  std::vector<uint32_t> before;
  for (uint32_t h : hashes) before.push_back(e.select(h, 64, 0, paths.data(), nullptr));
  paths[3].up = false;
  std::vector<uint64_t> moved_to(4);
  for (size_t i = 0; i < hashes.size(); ++i) {
    const uint32_t m = e.select(hashes[i], 64, 0, paths.data(), nullptr);
    ASSERT_NE(m, 3u);
    if (before[i] != 3) {
      ASSERT_EQ(m, before[i]);
    } else {
      ++moved_to[m];
    }
  }
  const double moved = moved_to[0] + moved_to[1] + moved_to[2];
  EXPECT_NEAR(moved_to[0] / moved, 0.25, 0.02);
  EXPECT_NEAR(moved_to[1] / moved, 0.25, 0.02);
  EXPECT_NEAR(moved_to[2] / moved, 0.50, 0.02);
}

TEST(WcmpEngine, TraceNamesTheBucket) {
  LbEngine e(wcmp_spec({1, 1}, 64), 0);
  auto paths = idle_paths(2);
  LbDecision t;
  const uint32_t m = e.select(0x80000000u, 64, 0, paths.data(), &t);
  EXPECT_EQ(t.bucket, 32u);
  EXPECT_EQ(t.member, m);
  EXPECT_EQ(m, (*e.bucket_table())[32]);
}

}  // namespace
}  // namespace rocelb
