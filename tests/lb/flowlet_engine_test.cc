// Flowlet modes (`flowlet_random` = LetFlow, `flowlet_quality` = DLB): a flow
// stays on its member while its gaps stay within idle_time; counters are
// exact in constructed cases.
#include <gtest/gtest.h>

#include <set>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::flow_hashes;
using test::idle_paths;
using test::spec_of;

constexpr uint64_t kUs = 1000;

// n flow hashes that each own a different entry of a 4096-entry table.
std::vector<uint32_t> distinct_entry_hashes(uint32_t n) {
  auto h = flow_hashes(n);
  for (uint32_t i = 0; i < n; ++i) h[i] = (h[i] & ~0xfffu) | i;
  return h;
}

TEST(FlowletEngine, DefaultsFollowDlb) {
  LbEngine e(spec_of(LbMode::kFlowletRandom, 4), 0);
  ASSERT_NE(e.flowlet_table(), nullptr);
  EXPECT_EQ(e.flowlet_table()->size(), 4096u);
  EXPECT_EQ(LbKnobs{}.idle_time_ns, 256 * kUs);
  EXPECT_EQ(LbKnobs{}.sampling_interval_ns, 16 * kUs);
}

TEST(FlowletEngine, FlowStaysWhileGapsAreWithinIdleTime) {
  for (LbMode mode : {LbMode::kFlowletRandom, LbMode::kFlowletQuality}) {
    LbEngine e(spec_of(mode, 4), 0);
    auto paths = idle_paths(4);
    auto hashes = flow_hashes(300);
    std::vector<uint32_t> first;
    for (uint32_t h : hashes) first.push_back(e.select(h, 1000, 0, paths.data(), nullptr));
    uint64_t now = 0;
    for (int round = 1; round <= 40; ++round) {
      now += 256 * kUs;  // exactly idle_time: still the same flowlet
      paths[round % 4].queue_bytes = 400'000ull * (round % 3);
      for (size_t i = 0; i < hashes.size(); ++i)
        ASSERT_EQ(e.select(hashes[i], 1000, now, paths.data(), nullptr), first[i])
            << to_string(mode) << " round " << round;
    }
    EXPECT_EQ(e.counters().flowlets_expired, 0u);
  }
}

TEST(FlowletEngine, RandomModeMovesFlowsAfterAGap) {
  LbEngine e(spec_of(LbMode::kFlowletRandom, 4), 0);
  auto paths = idle_paths(4);
  auto hashes = distinct_entry_hashes(400);
  std::vector<uint32_t> first;
  for (uint32_t h : hashes) first.push_back(e.select(h, 1000, 0, paths.data(), nullptr));
  int moved = 0;
  for (size_t i = 0; i < hashes.size(); ++i)
    moved += e.select(hashes[i], 1000, 256 * kUs + 1, paths.data(), nullptr) != first[i];
  // A new flowlet lands on a random member: about 3 in 4 move.
  EXPECT_GT(moved, 250);
  EXPECT_LT(moved, 350);
  EXPECT_EQ(e.counters().flowlets_rerouted, uint64_t(moved));
}

TEST(FlowletEngine, QualityModeStartsFlowletsOnTheBestBand) {
  LbEngine e(spec_of(LbMode::kFlowletQuality, 4), 0);
  auto paths = idle_paths(4);
  paths[0].queue_bytes = 1'000'000;
  paths[1].queue_bytes = 20'000;
  paths[2].queue_bytes = 300'000;
  paths[3].queue_bytes = 20'000;
  for (uint32_t h : flow_hashes(500)) {
    const uint32_t m = e.select(h, 1000, 0, paths.data(), nullptr);
    ASSERT_TRUE(m == 1 || m == 3);
  }
  EXPECT_GT(e.counters().member_packets[1], 150u);
  EXPECT_GT(e.counters().member_packets[3], 150u);
}

// Two flows sharing entry 0 of a 64-entry table: index = hash & 63, tag = hash >> 6.
constexpr uint32_t kFlowA = 0x100;  // tag 4
constexpr uint32_t kFlowB = 0x200;  // tag 8

LbGroupSpec small_quality_spec() {
  LbGroupSpec s = spec_of(LbMode::kFlowletQuality, 3);
  s.knobs.max_flows = 64;
  s.knobs.idle_time_ns = 100 * kUs;
  return s;
}

TEST(FlowletEngine, CountersExactInAConstructedCase) {
  LbEngine e(small_quality_spec(), 0);
  auto paths = idle_paths(3);
  paths[1].queue_bytes = paths[2].queue_bytes = 2'000'000;  // member 0 is best
  auto& c = e.counters();
  LbDecision t;

  EXPECT_EQ(e.select(kFlowA, 100, 0, paths.data(), &t), 0u);
  EXPECT_TRUE(t.new_flowlet);
  EXPECT_EQ(t.flowlet_age_ns, 0u);
  EXPECT_EQ(c.flowlets_created, 1u);

  paths[0].queue_bytes = 2'000'000;  // now member 1 is best; A keeps its flowlet
  paths[1].queue_bytes = 0;
  EXPECT_EQ(e.select(kFlowA, 100, 100 * kUs, paths.data(), &t), 0u);  // gap == idle_time
  EXPECT_FALSE(t.new_flowlet);
  EXPECT_EQ(t.flowlet_age_ns, 100 * kUs);

  // B shares A's entry while it is active: a collision, B follows the entry.
  EXPECT_EQ(e.select(kFlowB, 100, 150 * kUs, paths.data(), &t), 0u);
  EXPECT_TRUE(t.flowlet_collision);
  EXPECT_EQ(c.flowlet_collisions, 1u);
  EXPECT_EQ(e.select(kFlowB, 100, 160 * kUs, paths.data(), &t), 0u);  // same tag now
  EXPECT_FALSE(t.flowlet_collision);
  EXPECT_EQ(e.select(kFlowA, 100, 170 * kUs, paths.data(), &t), 0u);
  EXPECT_EQ(c.flowlet_collisions, 2u);

  // Gap > idle_time: expired; the new flowlet goes to member 1: rerouted.
  EXPECT_EQ(e.select(kFlowA, 100, 270 * kUs + 1, paths.data(), &t), 1u);
  EXPECT_TRUE(t.new_flowlet);
  EXPECT_EQ(t.flowlet_age_ns, 100 * kUs + 1);
  EXPECT_EQ(c.flowlets_expired, 1u);
  EXPECT_EQ(c.flowlets_created, 2u);
  EXPECT_EQ(c.flowlets_rerouted, 1u);

  // Expired again, but member 1 is still best: a new flowlet, not rerouted.
  EXPECT_EQ(e.select(kFlowA, 100, 500 * kUs, paths.data(), &t), 1u);
  EXPECT_EQ(c.flowlets_expired, 2u);
  EXPECT_EQ(c.flowlets_created, 3u);
  EXPECT_EQ(c.flowlets_rerouted, 1u);

  // An expired entry found by another flow is no collision.
  EXPECT_EQ(e.select(kFlowB, 100, 700 * kUs, paths.data(), &t), 1u);
  EXPECT_FALSE(t.flowlet_collision);
  EXPECT_EQ(c.flowlet_collisions, 2u);
  EXPECT_EQ(c.flowlets_expired, 3u);

  // Its member goes down within the flowlet: moved at once (created, rerouted, not expired).
  paths[1].up = false;
  paths[2].queue_bytes = 0;
  EXPECT_EQ(e.select(kFlowB, 100, 710 * kUs, paths.data(), &t), 2u);
  EXPECT_TRUE(t.new_flowlet);
  EXPECT_EQ(c.flowlets_created, 5u);
  EXPECT_EQ(c.flowlets_rerouted, 2u);
  EXPECT_EQ(c.flowlets_expired, 3u);

  // Another entry: first packet of a flow, created only.
  EXPECT_EQ(e.select(0x5, 100, 720 * kUs, paths.data(), &t), 2u);
  EXPECT_EQ(c.flowlets_created, 6u);
  EXPECT_EQ(c.decisions, 10u);
  EXPECT_EQ(c.member_packets[0] + c.member_packets[1] + c.member_packets[2], 10u);
  EXPECT_EQ(c.member_bytes[1], 300u);
}

TEST(FlowletEngine, ResetEmptiesTheTable) {
  LbEngine e(small_quality_spec(), 0);
  auto paths = idle_paths(3);
  e.select(kFlowA, 100, 0, paths.data(), nullptr);
  e.reset();
  LbDecision t;
  e.select(kFlowA, 100, 10 * kUs, paths.data(), &t);
  EXPECT_TRUE(t.new_flowlet);
  EXPECT_EQ(t.flowlet_age_ns, 0u);
  EXPECT_EQ(e.counters().flowlets_created, 2u);
  EXPECT_EQ(e.counters().flowlets_expired, 0u);
  EXPECT_EQ(e.counters().flowlets_rerouted, 0u);
}

TEST(FlowletEngine, DownMemberGetsNoNewFlowlet) {
  for (LbMode mode : {LbMode::kFlowletRandom, LbMode::kFlowletQuality}) {
    LbEngine e(spec_of(mode, 4), 0);
    auto paths = idle_paths(4);
    auto hashes = distinct_entry_hashes(2000);
    for (uint32_t h : hashes) e.select(h, 100, 0, paths.data(), nullptr);
    paths[3].up = false;
    const uint64_t on3 = e.counters().member_packets[3];
    for (uint32_t h : hashes) ASSERT_NE(e.select(h, 100, 10 * kUs, paths.data(), nullptr), 3u);
    EXPECT_EQ(e.counters().member_packets[3], on3);
    EXPECT_EQ(e.counters().flowlets_rerouted, on3);  // every flowlet that was on 3 moved
  }
}

}  // namespace
}  // namespace rocelb
