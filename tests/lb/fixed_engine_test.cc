// `fixed` (ECMP): a flow stays on one member; down members get nothing and
// the hash is taken over the up members.
#include <gtest/gtest.h>

#include <array>
#include <map>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::flow_hashes;
using test::idle_paths;
using test::spec_of;

TEST(FixedEngine, AFlowStaysOnOneMemberWhateverTheQueues) {
  LbEngine e(spec_of(LbMode::kFixed, 4), 0);
  auto paths = idle_paths(4);
  for (uint32_t h : flow_hashes(200)) {
    const uint32_t first = e.select(h, 1000, 0, paths.data(), nullptr);
    for (uint64_t t = 1; t < 50; ++t) {
      paths[t % 4].queue_bytes = t * 100'000;
      ASSERT_EQ(e.select(h, 1000, t * 1'000'000, paths.data(), nullptr), first);
    }
  }
}

TEST(FixedEngine, MatchesEcmpPick) {
  LbEngine e(spec_of(LbMode::kFixed, 5), 0);
  auto paths = idle_paths(5);
  for (uint32_t h : flow_hashes(1000))
    EXPECT_EQ(e.select(h, 64, 0, paths.data(), nullptr), ecmp_pick(h, 5));
}

TEST(FixedEngine, DownMemberGetsNothingAndHashIsOverTheUpMembers) {
  LbEngine e(spec_of(LbMode::kFixed, 4), 0);
  auto paths = idle_paths(4);
  paths[1].up = false;
  std::array<int, 4> count{};
  const std::array<uint32_t, 3> up{0, 2, 3};
  for (uint32_t h : flow_hashes(30000)) {
    const uint32_t m = e.select(h, 64, 0, paths.data(), nullptr);
    ASSERT_EQ(m, up[ecmp_pick(h, 3)]);
    ++count[m];
  }
  EXPECT_EQ(count[1], 0);
  for (int m : {0, 2, 3}) EXPECT_NEAR(count[m], 10000, 400);
  EXPECT_EQ(e.counters().member_packets[1], 0u);
}

TEST(FixedEngine, EveryMemberDownGivesNoMember) {
  LbEngine e(spec_of(LbMode::kFixed, 2), 0);
  auto paths = idle_paths(2);
  paths[0].up = paths[1].up = false;
  EXPECT_EQ(e.select(123, 64, 0, paths.data(), nullptr), kNoMember);
  EXPECT_EQ(e.counters().no_member, 1u);
  EXPECT_EQ(e.counters().decisions, 0u);
  paths[1].up = true;
  EXPECT_EQ(e.select(123, 64, 0, paths.data(), nullptr), 1u);
}

}  // namespace
}  // namespace rocelb
