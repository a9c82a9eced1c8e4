// `resilient`: a member going down moves only its own buckets, spread evenly
// and deterministically; coming back takes back exactly those buckets.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::flow_hashes;
using test::idle_paths;
using test::spec_of;

// Runs one packet so that the engine sees the current up set.
std::vector<uint16_t> table_after(LbEngine& e, const std::vector<MemberPath>& paths) {
  e.select(0, 64, 0, paths.data(), nullptr);
  return *e.bucket_table();
}

std::vector<uint32_t> per_member(const std::vector<uint16_t>& table, uint32_t n) {
  std::vector<uint32_t> c(n);
  for (auto m : table) ++c[m];
  return c;
}

TEST(ResilientEngine, DefaultTableIs256BucketsEvenlyShared) {
  LbEngine e(spec_of(LbMode::kResilient, 4), 0);
  auto paths = idle_paths(4);
  auto table = table_after(e, paths);
  ASSERT_EQ(table.size(), 256u);
  EXPECT_EQ(per_member(table, 4), (std::vector<uint32_t>{64, 64, 64, 64}));
  EXPECT_EQ(e.counters().buckets_moved, 0u);
}

TEST(ResilientEngine, DownMovesOnlyItsBucketsEvenlyAndBackExactly) {
  for (uint32_t buckets : {64u, 256u, 4096u}) {
    LbGroupSpec s = spec_of(LbMode::kResilient, 5);
    s.knobs.buckets = buckets;
    LbEngine e(s, 0);
    auto paths = idle_paths(5);
    const auto before = table_after(e, paths);
    const uint32_t lost = static_cast<uint32_t>(std::count(before.begin(), before.end(), 2));

    paths[2].up = false;
    const auto down = table_after(e, paths);
    uint32_t moved = 0;
    for (size_t b = 0; b < buckets; ++b) {
      if (before[b] == 2) {
        ASSERT_NE(down[b], 2u);
        ++moved;
      } else {
        ASSERT_EQ(down[b], before[b]) << "bucket " << b << " of a live member moved";
      }
    }
    EXPECT_EQ(moved, lost);
    EXPECT_EQ(e.counters().buckets_moved, lost);
    // Evenly: the four survivors differ by at most one bucket.
    auto c = per_member(down, 5);
    EXPECT_EQ(c[2], 0u);
    c.erase(c.begin() + 2);
    EXPECT_LE(*std::max_element(c.begin(), c.end()) - *std::min_element(c.begin(), c.end()), 1u);

    paths[2].up = true;
    EXPECT_EQ(table_after(e, paths), before);
    EXPECT_EQ(e.counters().buckets_moved, 2u * lost);
  }
}

TEST(ResilientEngine, FlowsOfLiveMembersNeverMove) {
  LbEngine e(spec_of(LbMode::kResilient, 4), 0);
  auto paths = idle_paths(4);
  auto hashes = flow_hashes(20'000);
  std::vector<uint32_t> before;
  for (uint32_t h : hashes) before.push_back(e.select(h, 64, 0, paths.data(), nullptr));
  paths[0].up = false;
  for (size_t i = 0; i < hashes.size(); ++i) {
    const uint32_t m = e.select(hashes[i], 64, 0, paths.data(), nullptr);
    ASSERT_NE(m, 0u);
    if (before[i] != 0) {
      ASSERT_EQ(m, before[i]);
    }
  }
  paths[0].up = true;
  for (size_t i = 0; i < hashes.size(); ++i)
    ASSERT_EQ(e.select(hashes[i], 64, 0, paths.data(), nullptr), before[i]);
}

TEST(ResilientEngine, SecondFailureMovesOnlyWhatThatMemberHolds) {
  LbEngine e(spec_of(LbMode::kResilient, 4), 0);
  auto paths = idle_paths(4);
  table_after(e, paths);
  paths[0].up = false;
  const auto one_down = table_after(e, paths);
  paths[1].up = false;
  const auto two_down = table_after(e, paths);
  for (size_t b = 0; b < one_down.size(); ++b) {
    if (one_down[b] != 1) {
      ASSERT_EQ(two_down[b], one_down[b]);
    }
    ASSERT_TRUE(two_down[b] == 2 || two_down[b] == 3);
  }
  auto c = per_member(two_down, 4);
  EXPECT_EQ(c[2], 128u);
  EXPECT_EQ(c[3], 128u);
  // Member 1 returns: exactly its home buckets come back to it.
  paths[1].up = true;
  const auto back = table_after(e, paths);
  for (size_t b = 0; b < back.size(); ++b) {
    if (b % 4 == 1) {
      ASSERT_EQ(back[b], 1u);
    } else {
      ASSERT_EQ(back[b], two_down[b]);
    }
  }
}

TEST(ResilientEngine, WeightsSetTheHomeShares) {
  LbGroupSpec s = spec_of(LbMode::kResilient, 3);
  s.weights = {1, 1, 2};
  LbEngine e(s, 0);
  auto paths = idle_paths(3);
  EXPECT_EQ(per_member(table_after(e, paths), 3), (std::vector<uint32_t>{64, 64, 128}));
  paths[2].up = false;  // its 128 buckets: 64 each to the equal-weight survivors
  EXPECT_EQ(per_member(table_after(e, paths), 3), (std::vector<uint32_t>{128, 128, 0}));
}

TEST(ResilientEngine, Deterministic) {
  LbEngine a(spec_of(LbMode::kResilient, 6, 1), 0), b(spec_of(LbMode::kResilient, 6, 99), 3);
  auto paths = idle_paths(6);
  for (int round = 0; round < 20; ++round) {
    paths[round % 6].up = !paths[round % 6].up;
    if (std::none_of(paths.begin(), paths.end(), [](auto& p) { return p.up; })) paths[0].up = true;
    ASSERT_EQ(table_after(a, paths), table_after(b, paths));
  }
}

}  // namespace
}  // namespace rocelb
