// `drill`: the shortest queue among d random samples and m remembered members
// (for the group, or with drill.memory destination for each destination).
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::idle_paths;
using test::spec_of;

LbGroupSpec drill_spec(uint32_t members, uint32_t d, uint32_t m) {
  LbGroupSpec s = spec_of(LbMode::kDrill, members);
  s.knobs.drill = {d, m};
  return s;
}

TEST(DrillEngine, TwoSamplesOfTwoAlwaysTakeTheShorter) {
  LbEngine e(drill_spec(2, 2, 0), 0);
  auto paths = idle_paths(2);
  LbRng r(3);
  for (int i = 0; i < 2000; ++i) {
    paths[0].queue_bytes = r.below(100'000);
    paths[1].queue_bytes = r.below(100'000);
    if (paths[0].queue_bytes == paths[1].queue_bytes) continue;
    const uint32_t shorter = paths[0].queue_bytes < paths[1].queue_bytes ? 0 : 1;
    ASSERT_EQ(e.select(1, 1000, i, paths.data(), nullptr), shorter);
  }
}

TEST(DrillEngine, ChoosesTheShortestItCompared) {
  LbEngine e(drill_spec(16, 2, 1), 0);
  auto paths = idle_paths(16);
  LbRng r(4);
  for (int i = 0; i < 5000; ++i) {
    for (auto& p : paths) p.queue_bytes = r.below(1'000'000);
    LbDecision t;
    const uint32_t m = e.select(1, 1000, i, paths.data(), &t);
    ASSERT_EQ(t.compared, LbCompared::kQueueBytes);
    ASSERT_GE(t.num_candidates, 2);
    ASSERT_LE(t.num_candidates, 3);
    uint64_t shortest = UINT64_MAX;
    for (int k = 0; k < t.num_candidates; ++k) {
      ASSERT_EQ(t.value[k], paths[t.candidate[k]].queue_bytes);
      shortest = std::min(shortest, t.value[k]);
    }
    ASSERT_EQ(paths[m].queue_bytes, shortest);
  }
}

TEST(DrillEngine, SamplesAreDistinct) {
  LbEngine e(drill_spec(3, 3, 0), 0);
  auto paths = idle_paths(3);
  for (int i = 0; i < 200; ++i) {
    LbDecision t;
    e.select(1, 1000, i, paths.data(), &t);
    ASSERT_EQ(t.num_candidates, 3);
    std::vector<int> c{t.candidate[0], t.candidate[1], t.candidate[2]};
    std::sort(c.begin(), c.end());
    ASSERT_EQ(c, (std::vector<int>{0, 1, 2}));
  }
}

TEST(DrillEngine, MemoryKeepsTheBestOnceFound) {
  LbEngine e(drill_spec(8, 2, 1), 0);
  auto paths = idle_paths(8);
  for (uint32_t m = 0; m < 8; ++m) paths[m].queue_bytes = 10'000 * (m + 1);
  paths[5].queue_bytes = 1;
  int i = 0;
  while (e.select(1, 1000, i, paths.data(), nullptr) != 5) ASSERT_LT(++i, 100);
  for (int k = 0; k < 500; ++k) ASSERT_EQ(e.select(1, 1000, i + k, paths.data(), nullptr), 5u);
}

TEST(DrillEngine, WithoutMemoryOnlySamplesCount) {
  LbEngine e(drill_spec(8, 1, 0), 0);
  auto paths = idle_paths(8);
  paths[5].queue_bytes = 0;
  for (uint32_t m = 0; m < 8; ++m)
    if (m != 5) paths[m].queue_bytes = 50'000;
  for (int i = 0; i < 8000; ++i) e.select(1, 1000, i, paths.data(), nullptr);
  // d = 1, m = 0 is random choice: member 5 gets about an eighth.
  EXPECT_NEAR(double(e.counters().member_packets[5]) / 1000, 1.0, 0.1);
}

TEST(DrillEngine, DownMembersAreNeitherSampledNorRemembered) {
  LbEngine e(drill_spec(4, 2, 2), 0);
  auto paths = idle_paths(4);
  paths[2].queue_bytes = 0;
  paths[0].queue_bytes = paths[1].queue_bytes = paths[3].queue_bytes = 100'000;
  for (int i = 0; i < 50; ++i) e.select(1, 1000, i, paths.data(), nullptr);  // remembers 2
  paths[2].up = false;
  for (int i = 0; i < 1000; ++i) {
    LbDecision t;
    ASSERT_NE(e.select(1, 1000, 100 + i, paths.data(), &t), 2u);
    for (int k = 0; k < t.num_candidates; ++k) ASSERT_NE(t.candidate[k], 2);
  }
}

// drill.memory destination (ConWeave's ns-3): each destination (the hash the
// caller makes of it) has its own remembered best, compared first: one
// destination's best is not another's, and a member that went down is
// forgotten. With group memory, the one best is every destination's.
// Selects for destination `dst` until member `m`, the only short queue,
// is found (then remembered); every queue is long again afterwards.
void find_short_member(LbEngine& e, std::vector<MemberPath>& paths, uint32_t dst, uint32_t m,
                       int& now) {
  paths[m].queue_bytes = 0;
  const int start = now;
  while (e.select(dst, 1000, now, paths.data(), nullptr) != m) ASSERT_LT(++now, start + 200);
  paths[m].queue_bytes = 100'000;
}

TEST(DrillEngine, MemoryPerDestinationIsEachDestinationsOwn) {
  LbGroupSpec s = drill_spec(4, 1, 1);
  s.knobs.drill.per_destination = true;
  LbEngine e(s, 0);
  auto paths = idle_paths(4);
  for (auto& p : paths) p.queue_bytes = 100'000;
  int i = 0;
  find_short_member(e, paths, 0xA, 1, i);  // destination A finds member 1
  find_short_member(e, paths, 0xB, 3, i);  // then B finds member 3
  // Every member is alike now: each destination's remembered member comes
  // first and, on a tie, stays.
  for (int k = 0; k < 200; ++k) {
    LbDecision t;
    ASSERT_EQ(e.select(0xA, 1000, ++i, paths.data(), &t), 1u);
    ASSERT_EQ(t.candidate[0], 1);
    ASSERT_EQ(e.select(0xB, 1000, ++i, paths.data(), &t), 3u);
    ASSERT_EQ(t.candidate[0], 3);
  }
  // A destination never seen compares samples only.
  LbDecision fresh;
  e.select(0xC, 1000, ++i, paths.data(), &fresh);
  EXPECT_EQ(fresh.num_candidates, 1);
  // Member 1 goes down: A forgets it.
  paths[1].up = false;
  for (int k = 0; k < 200; ++k) ASSERT_NE(e.select(0xA, 1000, ++i, paths.data(), nullptr), 1u);

  // Group memory: B's decision is remembered for A too.
  LbEngine g(drill_spec(4, 1, 1), 0);
  auto gp = idle_paths(4);
  for (auto& p : gp) p.queue_bytes = 100'000;
  int j = 0;
  find_short_member(g, gp, 0xB, 3, j);
  LbDecision t;
  EXPECT_EQ(g.select(0xA, 1000, ++j, gp.data(), &t), 3u);
  EXPECT_EQ(t.candidate[0], 3);
}

}  // namespace
}  // namespace rocelb
