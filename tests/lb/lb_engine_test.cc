// Properties every mode shares: a down member gets nothing, every member
// down gives kNoMember, the same seed gives the same choices, a burst decides
// like single calls, tracing changes nothing, bad specs are refused.
#include "lb/lb_engine.h"

#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::flow_hashes;
using test::idle_paths;
using test::kAllModes;
using test::spec_of;

// A changing path state: queues and loads move, packets come from many flows.
struct Workload {
  explicit Workload(uint32_t members) : paths(idle_paths(members)), hashes(flow_hashes(500)) {}
  void step(uint64_t i) {
    auto& p = paths[i % paths.size()];
    p.queue_bytes = rng.below(2'000'000);
    p.load_bps = rng.below(100) * 1'000'000'000ull;
  }
  uint32_t hash(uint64_t i) const { return hashes[(i * 7) % hashes.size()]; }
  std::vector<MemberPath> paths;
  std::vector<uint32_t> hashes;
  LbRng rng{11};
};

TEST(LbEngine, DownMemberGetsNothingInEveryMode) {
  for (LbMode mode : kAllModes) {
    LbEngine e(spec_of(mode, 5), 0);
    Workload w(5);
    for (uint64_t i = 0; i < 3000; ++i) {
      w.step(i);
      e.select(w.hash(i), 1000, i * 1000, w.paths.data(), nullptr);
    }
    w.paths[3].up = false;
    const uint64_t before = e.counters().member_packets[3];
    for (uint64_t i = 3000; i < 20000; ++i) {
      w.step(i);
      w.paths[3].up = false;
      ASSERT_NE(e.select(w.hash(i), 1000, i * 1000, w.paths.data(), nullptr), 3u)
          << to_string(mode);
    }
    EXPECT_EQ(e.counters().member_packets[3], before) << to_string(mode);
    for (uint32_t m : {0, 1, 2, 4}) EXPECT_GT(e.counters().member_packets[m], 0u);
  }
}

TEST(LbEngine, EveryMemberDownInEveryMode) {
  for (LbMode mode : kAllModes) {
    LbEngine e(spec_of(mode, 3), 0);
    auto paths = idle_paths(3);
    e.select(5, 100, 0, paths.data(), nullptr);
    for (auto& p : paths) p.up = false;
    LbDecision t;
    EXPECT_EQ(e.select(5, 100, 10, paths.data(), &t), kNoMember) << to_string(mode);
    EXPECT_EQ(t.member, kNoMember);
    EXPECT_EQ(e.counters().no_member, 1u);
    EXPECT_EQ(e.counters().decisions, 1u);
    paths[1].up = true;
    EXPECT_EQ(e.select(5, 100, 20, paths.data(), nullptr), 1u) << to_string(mode);
  }
}

std::vector<uint32_t> run(LbEngine& e, bool trace) {
  Workload w(6);
  std::vector<uint32_t> out;
  for (uint64_t i = 0; i < 5000; ++i) {
    w.step(i);
    w.paths[i % 6].up = (i % 97) != 0;
    LbDecision t;
    out.push_back(e.select(w.hash(i), 1000, i * 5000, w.paths.data(), trace ? &t : nullptr));
  }
  return out;
}

TEST(LbEngine, SameSeedSameChoices) {
  for (LbMode mode : kAllModes) {
    LbEngine a(spec_of(mode, 6, 77), 2), b(spec_of(mode, 6, 77), 2);
    EXPECT_EQ(run(a, false), run(b, false)) << to_string(mode);
  }
}

TEST(LbEngine, RandomModesDependOnSeedAndLcore) {
  for (LbMode mode : {LbMode::kFlowletRandom, LbMode::kPerPacketRandom, LbMode::kDrill}) {
    LbEngine a(spec_of(mode, 6, 77), 0), b(spec_of(mode, 6, 78), 0), c(spec_of(mode, 6, 77), 1);
    const auto ra = run(a, false);
    EXPECT_NE(ra, run(b, false)) << to_string(mode);
    EXPECT_NE(ra, run(c, false)) << to_string(mode);
  }
  // The group seed (knobs.seed) counts too.
  LbGroupSpec s = spec_of(LbMode::kPerPacketRandom, 6, 77);
  LbEngine a(s, 0);
  s.knobs.seed = 1;
  LbEngine b(s, 0);
  EXPECT_NE(run(a, false), run(b, false));
}

TEST(LbEngine, TracingChangesNoChoice) {
  for (LbMode mode : kAllModes) {
    LbEngine a(spec_of(mode, 6), 0), b(spec_of(mode, 6), 0);
    EXPECT_EQ(run(a, false), run(b, true)) << to_string(mode);
  }
}

// A burst decides as single calls would if each saw the packets before it
// queued on their members (the modes that compare depths see that growth).
TEST(LbEngine, BurstDecidesLikeSingleCallsThatSeeTheBurstQueueUp) {
  for (LbMode mode : kAllModes) {
    const bool reads_depth = uses_quality(mode) || mode == LbMode::kDrill;
    LbEngine a(spec_of(mode, 4), 0), b(spec_of(mode, 4), 0);
    Workload w(4);
    std::vector<uint32_t> bytes(32, 1500), out(32);
    std::vector<LbDecision> traces(32);
    for (uint64_t burst = 0; burst < 200; ++burst) {
      w.step(burst);
      std::vector<uint32_t> h(32);
      for (uint32_t i = 0; i < 32; ++i) h[i] = w.hash(burst * 32 + i);
      const uint64_t now = burst * 3000;
      std::vector<MemberPath> pa = w.paths, pb = w.paths;
      a.select_burst(h.data(), bytes.data(), 32, now, pa.data(), out.data(),
                     burst % 2 ? traces.data() : nullptr);
      for (uint32_t i = 0; i < 32; ++i) {
        const uint32_t m = b.select(h[i], 1500, now, pb.data(), nullptr);
        ASSERT_EQ(m, out[i]) << to_string(mode);
        if (reads_depth) pb[m].queue_bytes += 1500;
        if (burst % 2) {
          ASSERT_EQ(traces[i].member, out[i]);
        }
      }
      for (size_t k = 0; k < pa.size(); ++k) ASSERT_EQ(pa[k].queue_bytes, pb[k].queue_bytes);
    }
    EXPECT_EQ(a.counters().member_bytes, b.counters().member_bytes);
    EXPECT_EQ(a.counters().decisions, 6400u);
  }
}

TEST(LbEngine, CountersTableNamesEveryCounter) {
  std::set<std::string_view> names;
  for (const auto& c : kLbCounters) {
    EXPECT_FALSE(c.help.empty());
    names.insert(c.name);
  }
  EXPECT_EQ(names.size(), std::size(kLbCounters));
  EXPECT_TRUE(names.count("flowlets_created"));
  EXPECT_TRUE(names.count("flowlet_collisions"));
  LbEngineCounters a, b;
  a.member_packets = {Counter{1}, Counter{2}};
  a.member_bytes = {Counter{10}, Counter{20}};
  a.flowlets_created = 3;
  b.add(a);
  b.add(a);
  EXPECT_EQ(b.flowlets_created, 6u);
  ASSERT_EQ(b.member_bytes.size(), 2u);
  EXPECT_EQ(b.member_bytes[0], 20u);
  EXPECT_EQ(b.member_bytes[1], 40u);
  EXPECT_EQ(b.*kLbCounters[2].field, 6u);
}

// DRILL reads every member's depth once per burst; the burst's own packets
// must still spread rather than all follow the shortest queue of the moment.
TEST(LbEngine, DrillSpreadsOneBurstOverIdleMembers) {
  LbEngine e(spec_of(LbMode::kDrill, 4), 0);
  std::vector<MemberPath> paths(4);
  for (auto& p : paths) p.speed_bps = 100'000'000'000ull;
  std::vector<uint32_t> h(32), bytes(32, 1024), out(32);
  for (uint32_t i = 0; i < 32; ++i) h[i] = i * 2654435761u;
  e.select_burst(h.data(), bytes.data(), 32, 1000, paths.data(), out.data(), nullptr);
  std::vector<int> per(4);
  for (uint32_t m : out) ++per[m];
  for (int k = 0; k < 4; ++k) EXPECT_GE(per[k], 4) << "member " << k;
  uint64_t total = 0;
  for (const auto& p : paths) total += p.queue_bytes;
  EXPECT_EQ(total, 32u * 1024);
}

TEST(LbEngine, RefusesBadSpecs) {
  LbGroupSpec s = spec_of(LbMode::kFixed, 0);
  EXPECT_THROW(LbEngine(s, 0), std::invalid_argument);
  s = spec_of(LbMode::kFixed, 257);
  EXPECT_THROW(LbEngine(s, 0), std::invalid_argument);
  s = spec_of(LbMode::kWcmp, 2);
  s.weights[1] = 0;
  EXPECT_THROW(LbEngine(s, 0), std::invalid_argument);
  s = spec_of(LbMode::kFlowletRandom, 2);
  s.knobs.max_flows = 1000;
  EXPECT_THROW(LbEngine(s, 0), std::invalid_argument);
  s = spec_of(LbMode::kResilient, 100);
  s.knobs.buckets = 64;  // fewer buckets than members
  EXPECT_THROW(LbEngine(s, 0), std::invalid_argument);
  s.mode = LbMode::kFixed;  // knobs of other modes are not checked
  EXPECT_NO_THROW(LbEngine(s, 0));
}

TEST(LbEngine, ModeNamesRoundTrip) {
  for (LbMode mode : kAllModes) EXPECT_EQ(lb_mode_from_string(to_string(mode)), mode);
  EXPECT_EQ(to_string(LbMode::kFlowletQuality), "flowlet_quality");
  EXPECT_EQ(lb_mode_from_string("letflow"), std::nullopt);
}

}  // namespace
}  // namespace rocelb
