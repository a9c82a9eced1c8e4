// WredMarker: the measured mark (and drop) fraction between the thresholds
// follows the line within 4 standard deviations over 100k packets; none
// below min; all at and above max; Not-ECT never marked (dropped on lossy
// classes, left alone on lossless ones); ecn_none drops instead of marking;
// the same seed gives the same verdicts; exact counters.
#include "pfc/wred.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace rocelb {
namespace {

constexpr uint64_t kMin = 150'000;
constexpr uint64_t kMax = 1'500'000;
constexpr int kPackets = 100'000;
constexpr uint32_t kPkt = 1'000;

WredProfile profile(uint32_t pct, EcnMode ecn = EcnMode::kEcnAll) {
  WredProfile p;
  p.enabled = true;
  p.min_bytes = kMin;
  p.max_bytes = kMax;
  p.probability_pct = pct;
  p.ecn = ecn;
  return p;
}

// Fraction of kPackets packets at depth q that get `want`.
double fraction(WredMarker& m, uint64_t q, uint8_t ecn, bool lossless, WredVerdict want) {
  int n = 0;
  for (int i = 0; i < kPackets; ++i) n += m.decide(q, kPkt, ecn, lossless) == want;
  return static_cast<double>(n) / kPackets;
}

void expect_on_line(double measured, double p, const std::string& what) {
  const double sigma = std::sqrt(p * (1 - p) / kPackets);
  EXPECT_NEAR(measured, p, 4 * sigma + 1e-12) << what << ": p " << p << " sigma " << sigma;
}

TEST(Wred, MarkFractionFollowsTheLine) {
  for (uint32_t pct : {100u, 50u, 20u, 5u}) {
    WredMarker m(profile(pct), WredMarker::seed_for(7, 3, 3, 0));
    for (int k = 1; k <= 9; ++k) {
      const uint64_t q = kMin + (kMax - kMin) * k / 10;
      const double p = pct / 100.0 * k / 10;
      EXPECT_DOUBLE_EQ(m.hit_probability(q), p);
      for (uint8_t ecn : {kEcnEct0, kEcnEct1, kEcnCe}) {
        expect_on_line(fraction(m, q, ecn, false, WredVerdict::kMark), p,
                       "pct " + std::to_string(pct) + " k " + std::to_string(k) + " ecn " +
                           std::to_string(ecn));
      }
    }
    // Nothing is dropped when every packet is ECN-capable.
    EXPECT_EQ(m.counters().wred_dropped_packets, 0u);
  }
}

TEST(Wred, NothingBelowMinEverythingAtAndAboveMax) {
  WredMarker m(profile(20), 1);
  for (uint64_t q : {uint64_t{0}, uint64_t{1'000}, kMin - 1}) {
    EXPECT_EQ(fraction(m, q, kEcnEct0, false, WredVerdict::kPass), 1.0) << q;
    EXPECT_EQ(fraction(m, q, kEcnNotEct, false, WredVerdict::kPass), 1.0) << q;
  }
  EXPECT_EQ(m.counters(), WredCounters{});
  // At min the line starts at 0.
  EXPECT_EQ(fraction(m, kMin, kEcnEct0, false, WredVerdict::kPass), 1.0);
  // At and above max: always, whatever the probability.
  for (uint64_t q : {kMax, kMax + 1, uint64_t{100'000'000}}) {
    EXPECT_EQ(fraction(m, q, kEcnEct0, false, WredVerdict::kMark), 1.0) << q;
    EXPECT_EQ(fraction(m, q, kEcnCe, true, WredVerdict::kMark), 1.0) << q;
    EXPECT_EQ(fraction(m, q, kEcnNotEct, false, WredVerdict::kDrop), 1.0) << q;
    EXPECT_EQ(fraction(m, q, kEcnNotEct, true, WredVerdict::kPass), 1.0) << q;
  }
  // A zero probability: never between the thresholds, always at max.
  WredMarker zero(profile(0), 1);
  EXPECT_EQ(fraction(zero, kMax - 1, kEcnEct0, false, WredVerdict::kPass), 1.0);
  EXPECT_EQ(fraction(zero, kMax, kEcnEct0, false, WredVerdict::kMark), 1.0);
}

TEST(Wred, NotEctIsNeverMarked) {
  WredMarker m(profile(100), 99);
  // Lossless: left alone at every depth.
  for (uint64_t q = 0; q <= 2 * kMax; q += 10'000)
    for (int i = 0; i < 100; ++i)
      EXPECT_EQ(m.decide(q, kPkt, kEcnNotEct, true), WredVerdict::kPass);
  EXPECT_EQ(m.counters(), WredCounters{});
  // Lossy: dropped on the same line instead.
  for (int k : {2, 5, 8}) {
    const uint64_t q = kMin + (kMax - kMin) * k / 10;
    expect_on_line(fraction(m, q, kEcnNotEct, false, WredVerdict::kDrop), k / 10.0,
                   "not-ect k " + std::to_string(k));
  }
  EXPECT_EQ(m.counters().wred_ecn_marked_packets, 0u);
  // Only the two ECN bits count.
  EXPECT_EQ(m.decide(kMax, kPkt, 0xfc, false), WredVerdict::kDrop);
  EXPECT_EQ(m.decide(kMax, kPkt, 0xfe, false), WredVerdict::kMark);
}

TEST(Wred, EcnNoneDropsInsteadOfMarking) {
  WredMarker m(profile(100, EcnMode::kEcnNone), 5);
  for (uint8_t ecn : {kEcnNotEct, kEcnEct0, kEcnEct1, kEcnCe}) {
    EXPECT_EQ(fraction(m, kMax, ecn, false, WredVerdict::kDrop), 1.0) << int{ecn};
    EXPECT_EQ(fraction(m, kMax, ecn, true, WredVerdict::kPass), 1.0) << int{ecn};
  }
  expect_on_line(fraction(m, (kMin + kMax) / 2, kEcnEct0, false, WredVerdict::kDrop), 0.5,
                 "ecn_none");
  EXPECT_EQ(m.counters().wred_ecn_marked_packets, 0u);
}

TEST(Wred, DisabledPassesEverything) {
  WredProfile p = profile(100);
  p.enabled = false;
  WredMarker m(p, 1);
  WredMarker dflt;
  for (uint64_t q : {uint64_t{0}, kMin, kMax, 10 * kMax}) {
    EXPECT_EQ(m.decide(q, kPkt, kEcnNotEct, false), WredVerdict::kPass);
    EXPECT_EQ(m.decide(q, kPkt, kEcnEct0, false), WredVerdict::kPass);
    EXPECT_EQ(dflt.decide(q, kPkt, kEcnEct0, false), WredVerdict::kPass);
    EXPECT_EQ(m.hit_probability(q), 0.0);
  }
  EXPECT_EQ(m.counters(), WredCounters{});
}

TEST(Wred, SameSeedSameVerdicts) {
  auto run = [](uint64_t seed) {
    WredMarker m(profile(60), seed);
    std::vector<WredVerdict> v;
    for (int i = 0; i < 10'000; ++i) {
      const uint64_t q = kMin + (static_cast<uint64_t>(i) * 7919) % (kMax - kMin);
      v.push_back(m.decide(q, kPkt, static_cast<uint8_t>(i & 3), (i & 4) != 0));
    }
    return v;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
  // Distinct seeds for distinct ports, classes and lcores.
  std::set<uint64_t> seeds;
  for (uint16_t port = 0; port < 8; ++port)
    for (uint8_t tc = 0; tc < 8; ++tc)
      for (uint32_t lcore = 0; lcore < 4; ++lcore)
        seeds.insert(WredMarker::seed_for(0, port, tc, lcore));
  EXPECT_EQ(seeds.size(), 8u * 8 * 4);
  EXPECT_NE(WredMarker::seed_for(1, 0, 3, 0), WredMarker::seed_for(2, 0, 3, 0));
}

TEST(Wred, CountersAreExact) {
  WredMarker m(profile(100), 3);
  EXPECT_EQ(m.decide(kMax, 1'000, kEcnEct0, false), WredVerdict::kMark);
  EXPECT_EQ(m.decide(kMax, 4'096, kEcnEct1, true), WredVerdict::kMark);
  EXPECT_EQ(m.decide(kMax, 1'500, kEcnNotEct, false), WredVerdict::kDrop);
  EXPECT_EQ(m.decide(kMax, 9'000, kEcnNotEct, true), WredVerdict::kPass);
  EXPECT_EQ(m.decide(kMin - 1, 64, kEcnEct0, false), WredVerdict::kPass);
  WredCounters c = m.counters();
  EXPECT_EQ(c.wred_ecn_marked_packets, 2u);
  EXPECT_EQ(c.wred_ecn_marked_bytes, 5'096u);
  EXPECT_EQ(c.wred_dropped_packets, 1u);
  EXPECT_EQ(c.wred_dropped_bytes, 1'500u);
  WredCounters sum;
  sum.add(c);
  sum.add(c);
  EXPECT_EQ(sum.wred_ecn_marked_bytes, 10'192u);

  std::vector<std::string> names;
  for (const auto& i : kWredCounters) {
    names.emplace_back(i.name);
    EXPECT_FALSE(i.help.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"wred_ecn_marked_packets", "wred_ecn_marked_bytes",
                                             "wred_dropped_packets", "wred_dropped_bytes"}));
  EXPECT_EQ(c.*kWredCounters[3].field, 1'500u);
}

TEST(Wred, HugeThresholdsDoNotOverflow) {
  WredProfile p;
  p.enabled = true;
  p.min_bytes = 0;
  p.max_bytes = UINT64_MAX;
  p.probability_pct = 100;
  WredMarker m(p, 11);
  expect_on_line(fraction(m, UINT64_MAX / 4, kEcnEct0, false, WredVerdict::kMark), 0.25, "huge");
}

}  // namespace
}  // namespace rocelb
