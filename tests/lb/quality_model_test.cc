// QualityModel: levels by threshold, weighted bands, best-band choice.
#include "lb/quality_model.h"

#include <gtest/gtest.h>

#include <array>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::k100G;

TEST(QualityModel, QueueLevelsByDefaultThresholds) {
  QualityModel q{QualityKnobs{}};
  EXPECT_EQ(q.queue_level(0), 0u);
  EXPECT_EQ(q.queue_level(15'999), 0u);
  EXPECT_EQ(q.queue_level(16'000), 1u);
  EXPECT_EQ(q.queue_level(63'999), 2u);
  EXPECT_EQ(q.queue_level(64'000), 3u);
  EXPECT_EQ(q.queue_level(999'999), 6u);
  EXPECT_EQ(q.queue_level(1'000'000), 7u);
  EXPECT_EQ(q.queue_level(UINT64_MAX), 7u);
}

TEST(QualityModel, LoadLevelsArePercentOfSpeed) {
  QualityModel q{QualityKnobs{}};  // 10 25 40 55 70 80 90
  EXPECT_EQ(q.load_level(0, k100G), 0u);
  EXPECT_EQ(q.load_level(9'999'999'999, k100G), 0u);
  EXPECT_EQ(q.load_level(10'000'000'000, k100G), 1u);
  EXPECT_EQ(q.load_level(54'999'999'999, k100G), 3u);
  EXPECT_EQ(q.load_level(55'000'000'000, k100G), 4u);
  EXPECT_EQ(q.load_level(90'000'000'000, k100G), 7u);
  EXPECT_EQ(q.load_level(UINT64_MAX, k100G), 7u);
  EXPECT_EQ(q.load_level(2'500'000'000, 25'000'000'000), 1u);  // 10 % of 25G
  EXPECT_EQ(q.load_level(123, 0), 0u);                         // unknown speed
  EXPECT_EQ(q.load_level(k100G + 1, k100G), 7u);               // above line rate
  // Absurd speeds are still compared exactly.
  const uint64_t huge = uint64_t{1} << 60;
  EXPECT_EQ(q.load_level(huge / 2, huge), 3u);
  EXPECT_EQ(q.load_level(huge / 10 - 1, huge), 0u);
  EXPECT_EQ(q.load_level(huge - 1, huge), 7u);
}

TEST(QualityModel, BandIsTheRoundedWeightedMix) {
  QualityModel even{QualityKnobs{}};
  MemberPath p{.queue_bytes = 64'000, .load_bps = 0, .speed_bps = k100G, .up = true};
  EXPECT_EQ(even.band(p), 2u);  // (50*0 + 50*3 + 50) / 100
  p.load_bps = 90'000'000'000;
  EXPECT_EQ(even.band(p), 5u);  // (50*7 + 50*3 + 50) / 100

  QualityKnobs k;
  k.load_weight = 100;
  k.queue_weight = 0;
  QualityModel load_only{k};
  EXPECT_EQ(load_only.band(p), 7u);
  p.load_bps = 0;
  EXPECT_EQ(load_only.band(p), 0u);

  k.load_weight = 0;
  k.queue_weight = 100;
  QualityModel queue_only{k};
  EXPECT_EQ(queue_only.band(p), 3u);
}

TEST(QualityModel, CustomThresholds) {
  QualityKnobs k;
  k.queue_weight = 100;
  k.load_weight = 0;
  k.queue_thresholds = {1, 2, 3, 4, 5, 6, 7};
  QualityModel q{k};
  for (uint64_t b = 0; b < 10; ++b)
    EXPECT_EQ(q.band(MemberPath{b, 0, k100G, true}), std::min<uint64_t>(b, 7));
}

TEST(QualityModel, PickBestChoosesTheBestBandAndSkipsDownMembers) {
  QualityModel q{QualityKnobs{}};
  auto paths = test::idle_paths(4);
  paths[0].queue_bytes = 2'000'000;  // band 4
  paths[1].queue_bytes = 100'000;    // band 2
  paths[2].queue_bytes = 0;          // band 0, but down
  paths[2].up = false;
  paths[3].queue_bytes = 40'000;  // band 1
  UpMembers up(4);
  up.refresh(paths.data());
  LbRng rng(1);
  LbDecision t;
  t.clear();
  EXPECT_EQ(q.pick_best(up, paths.data(), rng, &t), 3u);
  EXPECT_EQ(t.compared, LbCompared::kBands);
  ASSERT_EQ(t.num_candidates, 3);
  EXPECT_EQ(t.candidate[0], 0);
  EXPECT_EQ(t.value[0], 4u);
  EXPECT_EQ(t.candidate[1], 1);
  EXPECT_EQ(t.value[1], 2u);
  EXPECT_EQ(t.candidate[2], 3);
  EXPECT_EQ(t.value[2], 1u);
}

TEST(QualityModel, TiesAreBrokenAtRandomOverAllTiedMembers) {
  QualityModel q{QualityKnobs{}};
  auto paths = test::idle_paths(4);
  paths[2].queue_bytes = 500'000;  // worse: never chosen
  UpMembers up(4);
  up.refresh(paths.data());
  LbRng rng(7);
  std::array<int, 4> hits{};
  for (int i = 0; i < 3000; ++i) ++hits[q.pick_best(up, paths.data(), rng, nullptr)];
  EXPECT_EQ(hits[2], 0);
  for (int m : {0, 1, 3}) {
    EXPECT_GT(hits[m], 900);
    EXPECT_LT(hits[m], 1100);
  }
}

TEST(QualityModel, NobodyUp) {
  QualityModel q{QualityKnobs{}};
  auto paths = test::idle_paths(2);
  paths[0].up = paths[1].up = false;
  UpMembers up(2);
  up.refresh(paths.data());
  LbRng rng(1);
  EXPECT_EQ(q.pick_best(up, paths.data(), rng, nullptr), kNoMember);
}

}  // namespace
}  // namespace rocelb
