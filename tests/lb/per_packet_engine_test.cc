// Per-packet modes: one elephant spread over all members within 5 %; the
// quality mode always picks a member of the best band.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::idle_paths;
using test::spec_of;

// One flow, n packets of 4 KB; every member drains 1 KB per packet time, so
// the offered load equals the capacity of the four members.
std::vector<uint64_t> spray_elephant(LbMode mode, uint32_t n) {
  LbEngine e(spec_of(mode, 4), 0);
  auto paths = idle_paths(4);
  const uint32_t elephant = 0xe1e9a47u;
  for (uint32_t i = 0; i < n; ++i) {
    const uint32_t m = e.select(elephant, 4096, i * 80ull, paths.data(), nullptr);
    paths[m].queue_bytes += 4096;
    for (auto& p : paths) p.queue_bytes -= std::min<uint64_t>(p.queue_bytes, 1024);
  }
  const auto& c = e.counters().member_packets;
  return std::vector<uint64_t>(c.begin(), c.end());
}

TEST(PerPacketEngine, ElephantSpreadWithinFivePercent) {
  for (LbMode mode : {LbMode::kPerPacketRandom, LbMode::kPerPacketQuality, LbMode::kDrill}) {
    const uint32_t n = 100'000;
    auto count = spray_elephant(mode, n);
    for (uint32_t m = 0; m < 4; ++m)
      EXPECT_NEAR(double(count[m]) / (n / 4), 1.0, 0.05) << to_string(mode) << " member " << m;
  }
}

TEST(PerPacketEngine, RandomSpraysOverIdleMembersEvenly) {
  LbEngine e(spec_of(LbMode::kPerPacketRandom, 8), 0);
  auto paths = idle_paths(8);
  for (int i = 0; i < 80'000; ++i) e.select(7, 1000, i, paths.data(), nullptr);
  for (uint64_t c : e.counters().member_packets) EXPECT_NEAR(double(c) / 10'000, 1.0, 0.05);
}

TEST(PerPacketEngine, QualityPicksAMemberOfTheBestBand) {
  LbEngine e(spec_of(LbMode::kPerPacketQuality, 6), 0);
  QualityModel q{QualityKnobs{}};
  auto paths = idle_paths(6);
  LbRng r(5);
  for (int i = 0; i < 5000; ++i) {
    for (auto& p : paths) {
      p.queue_bytes = r.below(1'500'000);
      p.load_bps = r.below(100) * 1'000'000'000ull;
    }
    paths[i % 6].up = (i % 7) != 0;
    LbDecision t;
    const uint32_t m = e.select(9, 1000, i, paths.data(), &t);
    uint32_t best = 8;
    for (const auto& p : paths)
      if (p.up) best = std::min(best, q.band(p));
    ASSERT_TRUE(paths[m].up);
    ASSERT_EQ(q.band(paths[m]), best);
    ASSERT_EQ(t.compared, LbCompared::kBands);
    ASSERT_EQ(t.member, m);
    paths[i % 6].up = true;
  }
}

}  // namespace
}  // namespace rocelb
