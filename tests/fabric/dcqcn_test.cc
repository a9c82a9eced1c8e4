// DCQCN's reaction and notification points (dataplane/sim/dcqcn.h): a CNP
// cuts the rate by α/2 and moves the target, α decays without CNPs and rises
// with them, the rate comes back by fast recovery, additive and hyper
// increase as the paper's counters say, the min and max rates hold, and the
// NP sends at most one CNP per QP per min_time_between_cnps.
#include <gtest/gtest.h>

#include <algorithm>

#include "dataplane/sim/dcqcn.h"

namespace rocelb {
namespace {

constexpr uint64_t kLine = 100'000'000'000;  // 100 Gb/s
constexpr uint64_t kUs = 1'000'000;          // ps

// α after n quiet periods from a (in 1/1024), as the paper's real number.
double decay(double a, int n, double g = 1019) {
  for (int i = 0; i < n; ++i) a = a * g / 1024;
  return a;
}

// α in 1/1024 as a double, from the RP's 2^-32 (each period truncates
// by at most 2^-32, 2.4e-7 of 1/1024: 1e-3 allows 4,000 periods of it).
double alpha_of(const DcqcnRp& rp, uint64_t t) {
  return static_cast<double>(rp.alpha_q32_at(t)) / (1 << 22);
}

uint64_t cut_of(uint64_t rc, uint32_t alpha, uint32_t gd = 11) {
  const uint64_t dec = static_cast<uint64_t>((static_cast<unsigned __int128>(rc) * alpha) >> gd);
  return std::max(rc - dec, rc / 2);  // rpg_min_dec_fac 50
}

uint64_t half_way(uint64_t rt, uint64_t rc) {
  return (rt + rc + 1) / 2;
}

TEST(DcqcnRp, StartsAtLineRateAndIdle) {
  DcqcnParams p;
  DcqcnRp rp(&p, kLine);
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_EQ(rp.target_bps(), kLine);
  EXPECT_FALSE(rp.active());
  EXPECT_EQ(rp.next_timer_ps(), UINT64_MAX);
  EXPECT_FALSE(rp.on_sent(1'000'000, 0));  // no byte counting at the max rate
}

TEST(DcqcnRp, CnpCutsRateByHalfAlphaAndMovesTarget) {
  DcqcnParams p;
  p.clamp_tgt_rate = true;  // the paper: every cut sets RT = RC
  DcqcnRp rp(&p, kLine);
  const uint64_t t0 = 10 * kUs;
  EXPECT_TRUE(rp.on_cnp(t0));
  // First CNP: α = initial_alpha_value (1023/1024), RC -= RC × α / 2.
  EXPECT_EQ(rp.alpha_at(t0), 1023u);
  const uint64_t rc1 = cut_of(kLine, 1023);
  EXPECT_EQ(rp.rate_bps(), rc1);
  EXPECT_NEAR(static_cast<double>(rc1), kLine * (1 - 1023.0 / 2048), 1.0);
  EXPECT_EQ(rp.target_bps(), kLine);  // RT = the rate before the cut
  EXPECT_EQ(rp.cuts(), 1u);
  EXPECT_TRUE(rp.active());
  EXPECT_EQ(rp.next_timer_ps(), t0 + 300 * kUs);  // rpg_time_reset

  // Ten α periods (dce_tcp_rtt = 1 us) later, without a CNP in them.
  const uint64_t t1 = t0 + 10 * kUs;
  const double a10 = decay(1023, 10);
  EXPECT_NEAR(alpha_of(rp, t1), a10, 1e-3);
  EXPECT_TRUE(rp.on_cnp(t1));
  EXPECT_EQ(rp.target_bps(), rc1);
  EXPECT_NEAR(static_cast<double>(rp.rate_bps()), rc1 * (1 - a10 / 2048), 1e3);
  EXPECT_LT(rp.rate_bps(), rc1 * 53 / 100);
  EXPECT_GT(rp.rate_bps(), rc1 / 2);
}

TEST(DcqcnRp, NvidiaDefaultKeepsTargetUntilATimerIncrease) {
  DcqcnParams p;  // clamp_tgt_rate false, clamp_tgt_rate_after_time_inc true
  DcqcnRp rp(&p, kLine);
  rp.on_cnp(0);
  EXPECT_EQ(rp.target_bps(), kLine);
  const uint64_t rc1 = rp.rate_bps();
  // Byte-counter increases alone do not clamp the target at the next cut.
  EXPECT_TRUE(rp.on_sent(32767, 1 * kUs));
  EXPECT_EQ(rp.byte_stage(), 1u);
  const uint64_t rc2 = half_way(kLine, rc1);
  EXPECT_EQ(rp.rate_bps(), rc2);
  EXPECT_TRUE(rp.on_cnp(10 * kUs));
  EXPECT_EQ(rp.target_bps(), kLine);
  // A timer increase does.
  const uint64_t rc3 = rp.rate_bps();
  EXPECT_TRUE(rp.on_timer(310 * kUs));
  EXPECT_EQ(rp.time_stage(), 1u);
  const uint64_t rc4 = half_way(kLine, rc3);
  EXPECT_EQ(rp.rate_bps(), rc4);
  EXPECT_TRUE(rp.on_cnp(320 * kUs));
  EXPECT_EQ(rp.target_bps(), rc4);
}

TEST(DcqcnRp, CutsAtMostOncePerMonitorPeriod) {
  DcqcnParams p;
  DcqcnRp rp(&p, kLine);
  EXPECT_TRUE(rp.on_cnp(0));
  const uint64_t rc1 = rp.rate_bps();
  EXPECT_FALSE(rp.on_cnp(1 * kUs));  // within rate_reduce_monitor_period (4 us)
  EXPECT_FALSE(rp.on_cnp(2 * kUs));
  EXPECT_EQ(rp.rate_bps(), rc1);
  EXPECT_TRUE(rp.cut_pending());
  EXPECT_EQ(rp.next_timer_ps(), 4 * kUs);
  EXPECT_FALSE(rp.on_timer(3 * kUs));
  EXPECT_TRUE(rp.on_timer(4 * kUs));
  EXPECT_EQ(rp.cuts(), 2u);
  EXPECT_LT(rp.rate_bps(), rc1);
  EXPECT_FALSE(rp.cut_pending());
  EXPECT_TRUE(rp.on_cnp(8 * kUs));  // a period after the last cut: at once
  EXPECT_EQ(rp.cuts(), 3u);
}

// rate_reduce_mode periodic (ConWeave's ns-3, rdma-hw.cc:929-977): the first
// CNP keeps the rate and starts a clock of rate_reduce_monitor_period; each
// tick cuts if a CNP came since the last one, with α as of the tick.
TEST(DcqcnRp, PeriodicReduceCutsOnTheFirstCnpsClock) {
  DcqcnParams p;
  p.reduce_periodic = true;
  DcqcnRp rp(&p, kLine);
  const uint64_t t0 = 10 * kUs;
  EXPECT_FALSE(rp.on_cnp(t0));
  EXPECT_EQ(rp.rate_bps(), kLine);
  EXPECT_TRUE(rp.cut_pending());
  EXPECT_EQ(rp.next_timer_ps(), t0 + 4 * kUs);
  EXPECT_FALSE(rp.on_timer(t0 + 4 * kUs - 1));
  EXPECT_TRUE(rp.on_timer(t0 + 4 * kUs));
  // The first CNP sets α without marking its period: four quiet updates.
  const double a4 = decay(1023, 4);
  EXPECT_NEAR(static_cast<double>(rp.rate_bps()), kLine * (1 - a4 / 2048), 1e3);
  EXPECT_EQ(rp.cuts(), 1u);
  EXPECT_FALSE(rp.cut_pending());
  EXPECT_EQ(rp.next_timer_ps(), t0 + 304 * kUs);  // the increase timer only
  // Two CNPs between ticks: one cut, on the next tick of the first CNP's clock.
  EXPECT_FALSE(rp.on_cnp(t0 + 5 * kUs));
  EXPECT_FALSE(rp.on_cnp(t0 + 6 * kUs));
  EXPECT_EQ(rp.next_timer_ps(), t0 + 8 * kUs);
  EXPECT_TRUE(rp.on_timer(t0 + 8 * kUs));
  EXPECT_EQ(rp.cuts(), 2u);
  // A CNP on a tick is that tick's: it cuts at once.
  EXPECT_TRUE(rp.on_cnp(t0 + 12 * kUs));
  EXPECT_EQ(rp.cuts(), 3u);
  // Even long after the last cut a CNP waits for the clock, not a period.
  EXPECT_FALSE(rp.on_cnp(t0 + 101 * kUs));
  EXPECT_EQ(rp.next_timer_ps(), t0 + 104 * kUs);
  // rate_to_set_on_first_cnp applies at once; the clock's first tick cuts.
  p.rate_to_set_on_first_cnp = 40'000;
  DcqcnRp set(&p, kLine);
  EXPECT_TRUE(set.on_cnp(0));
  EXPECT_EQ(set.rate_bps(), 40'000'000'000u);
  EXPECT_TRUE(set.on_timer(4 * kUs));
  EXPECT_LT(set.rate_bps(), 40'000'000'000u);
}

// rpg_increase timer (ConWeave's ns-3, rdma-hw.cc:985-1040): the timer stage
// alone picks the phase: F fast recoveries, one additive step, then hyper
// steps of one rpg_hai_rate each; the byte counter does nothing.
TEST(DcqcnRp, TimerIncreaseRuleIsNs3s) {
  DcqcnParams p;
  p.increase_by_timer = true;
  p.clamp_tgt_rate = true;
  p.rpg_threshold = 1;
  p.rpg_ai_rate = 40;
  p.rpg_hai_rate = 100;
  DcqcnRp rp(&p, kLine);
  rp.on_cnp(0);
  rp.on_cnp(10 * kUs);
  uint64_t rt = rp.target_bps(), rc = rp.rate_bps();
  ASSERT_LT(rt, kLine - 1'000'000'000);
  EXPECT_FALSE(rp.on_sent(1'000'000, 10 * kUs));  // no byte counter
  EXPECT_EQ(rp.byte_stage(), 0u);
  const struct {
    DcqcnIncrease kind;
    uint64_t add;
  } steps[] = {{DcqcnIncrease::kFastRecovery, 0},
               {DcqcnIncrease::kAdditive, 40'000'000},
               {DcqcnIncrease::kHyper, 100'000'000},
               {DcqcnIncrease::kHyper, 100'000'000},
               {DcqcnIncrease::kHyper, 100'000'000}};
  uint64_t t = 10 * kUs;
  for (const auto& s : steps) {
    t += 300 * kUs;
    EXPECT_TRUE(rp.on_timer(t));
    rt += s.add;
    rc = half_way(rt, rc);
    EXPECT_EQ(rp.last_increase(), s.kind) << rp.time_stage();
    EXPECT_EQ(rp.target_bps(), rt) << rp.time_stage();
    EXPECT_EQ(rp.rate_bps(), rc) << rp.time_stage();
  }
}

TEST(DcqcnRp, AlphaDecaysWithoutCnpsAndRisesWithThem) {
  DcqcnParams p;
  DcqcnRp rp(&p, kLine);
  const uint64_t t0 = 5 * kUs;
  rp.on_cnp(t0);
  EXPECT_EQ(rp.alpha_at(t0), 1023u);
  EXPECT_EQ(rp.alpha_at(t0 + kUs - 1), 1023u);  // the first period is not over
  EXPECT_NEAR(alpha_of(rp, t0 + kUs), decay(1023, 1), 1e-3);
  EXPECT_NEAR(alpha_of(rp, t0 + 5 * kUs), decay(1023, 5), 1e-3);
  EXPECT_NEAR(alpha_of(rp, t0 + 100 * kUs), decay(1023, 100), 1e-3);
  // Kept finer than the knobs' 1/1024: after 600 quiet periods the real α
  // is ~0.053 (54/1024), where a 1/1024 integer would have reached 0.
  EXPECT_NEAR(alpha_of(rp, t0 + 600 * kUs), decay(1023, 600), 1e-3);
  EXPECT_EQ(rp.alpha_at(t0 + 600 * kUs), 54u);
  EXPECT_EQ(rp.alpha_at(t0 + 5000 * kUs), 0u);  // far below 1/1024
  // A CNP in the period [100, 101) raises α at its end:
  // α = α·g/1024 + (1024 − g).
  EXPECT_TRUE(rp.on_cnp(t0 + 100 * kUs + kUs / 2));
  const double a100 = decay(1023, 100);
  EXPECT_NEAR(alpha_of(rp, t0 + 101 * kUs - 1), a100, 1e-3);
  EXPECT_NEAR(alpha_of(rp, t0 + 101 * kUs), a100 * 1019 / 1024 + 5, 1e-3);
  EXPECT_NEAR(alpha_of(rp, t0 + 102 * kUs), (a100 * 1019 / 1024 + 5) * 1019 / 1024, 1e-3);
  // Many CNPs hold α near 1.
  DcqcnRp busy(&p, kLine);
  for (uint64_t t = 0; t < 2000 * kUs; t += kUs / 2) busy.on_cnp(t);
  EXPECT_GE(busy.alpha_at(2000 * kUs), 1015u);
}

TEST(DcqcnRp, FastRecoveryThenAdditiveIncreaseByTimer) {
  DcqcnParams p;
  p.clamp_tgt_rate = true;
  p.rpg_threshold = 2;
  p.rpg_byte_reset = 0;  // timer only: BC stays 0, so never hyper
  DcqcnRp rp(&p, kLine);
  rp.on_cnp(0);
  rp.on_cnp(10 * kUs);  // RT = the first cut's rate, below the line rate
  uint64_t rt = rp.target_bps(), rc = rp.rate_bps();
  ASSERT_LT(rt, kLine);
  uint64_t t = 10 * kUs;
  for (int i = 1; i <= 6; ++i) {
    t += 300 * kUs;
    EXPECT_EQ(rp.next_timer_ps(), t);
    EXPECT_TRUE(rp.on_timer(t));
    EXPECT_EQ(rp.time_stage(), static_cast<uint32_t>(i));
    if (i <= 2) {  // max(T, BC) <= F: fast recovery, RT unchanged
      EXPECT_EQ(rp.last_increase(), DcqcnIncrease::kFastRecovery) << i;
    } else {  // additive: RT += rpg_ai_rate
      EXPECT_EQ(rp.last_increase(), DcqcnIncrease::kAdditive) << i;
      rt += 5'000'000;
    }
    rc = half_way(rt, rc);
    EXPECT_EQ(rp.target_bps(), rt) << i;
    EXPECT_EQ(rp.rate_bps(), rc) << i;
  }
}

TEST(DcqcnRp, HyperIncreaseNeedsBothCounters) {
  DcqcnParams p;
  p.clamp_tgt_rate = true;
  p.rpg_threshold = 1;
  p.rpg_byte_reset = 10'000;
  DcqcnRp rp(&p, kLine);
  rp.on_cnp(0);
  rp.on_cnp(10 * kUs);
  uint64_t rt = rp.target_bps(), rc = rp.rate_bps();
  ASSERT_LT(rt, kLine - 1'000'000'000);
  const uint64_t ai = 5'000'000, hai = 50'000'000;
  uint64_t t = 10 * kUs;
  struct Step {
    bool timer;
    uint32_t T, BC;
    DcqcnIncrease kind;
    uint64_t rt_add;
  };
  const Step steps[] = {
      {false, 0, 1, DcqcnIncrease::kFastRecovery, 0},  // max 1 <= F
      {false, 0, 2, DcqcnIncrease::kAdditive, ai},     // BC > F, T = 0
      {true, 1, 2, DcqcnIncrease::kAdditive, ai},      // min 1 = F
      {false, 1, 3, DcqcnIncrease::kAdditive, ai},
      {true, 2, 3, DcqcnIncrease::kHyper, 1 * hai},  // min 2 > F: i = 1
      {false, 2, 4, DcqcnIncrease::kHyper, 1 * hai},
      {true, 3, 4, DcqcnIncrease::kHyper, 2 * hai},  // i = min − F = 2
      {false, 3, 5, DcqcnIncrease::kHyper, 2 * hai},
      {true, 4, 5, DcqcnIncrease::kHyper, 3 * hai},
  };
  for (const Step& s : steps) {
    if (s.timer) {
      t += 300 * kUs;
      EXPECT_TRUE(rp.on_timer(t));
    } else {
      EXPECT_TRUE(rp.on_sent(10'000, t));
    }
    rt += s.rt_add;
    rc = half_way(rt, rc);
    EXPECT_EQ(rp.time_stage(), s.T);
    EXPECT_EQ(rp.byte_stage(), s.BC);
    EXPECT_EQ(rp.last_increase(), s.kind) << s.T << "," << s.BC;
    EXPECT_EQ(rp.target_bps(), rt) << s.T << "," << s.BC;
    EXPECT_EQ(rp.rate_bps(), rc) << s.T << "," << s.BC;
  }
  // A byte-counter event is counted per rpg_byte_reset bytes, not per call.
  EXPECT_FALSE(rp.on_sent(9'999, t));
  EXPECT_TRUE(rp.on_sent(1, t));
  EXPECT_EQ(rp.byte_stage(), 6u);
}

TEST(DcqcnRp, MinRateAndMinDecreaseFactorHold) {
  DcqcnParams p;
  p.rpg_gd = 10;  // cut = RC × α: all but nothing
  DcqcnRp half(&p, kLine);
  half.on_cnp(0);
  EXPECT_EQ(half.rate_bps(), kLine / 2);  // rpg_min_dec_fac 50: at most halved

  p.rpg_min_dec_fac = 0;
  p.rpg_min_rate = 1000;  // Mb/s
  DcqcnRp rp(&p, kLine);
  rp.on_cnp(0);
  EXPECT_EQ(rp.rate_bps(), 1'000'000'000u);
  for (int i = 1; i < 20; ++i) rp.on_cnp(i * 10 * kUs);
  EXPECT_EQ(rp.rate_bps(), 1'000'000'000u);
  EXPECT_EQ(rp.cuts(), 20u);
}

TEST(DcqcnRp, MaxRateCapsTheRecovery) {
  DcqcnParams p;
  p.rpg_max_rate = 40'000;  // Mb/s
  DcqcnRp rp(&p, kLine);
  EXPECT_EQ(rp.rate_bps(), 40'000'000'000u);
  rp.on_cnp(0);
  EXPECT_LT(rp.rate_bps(), 40'000'000'000u);
  uint64_t t = 0;
  for (int i = 0; i < 200 && rp.active(); ++i) {
    t = rp.next_timer_ps();
    rp.on_timer(t);
    rp.on_sent(1'000'000, t);
    EXPECT_LE(rp.rate_bps(), 40'000'000'000u);
    EXPECT_LE(rp.target_bps(), 40'000'000'000u);
  }
  EXPECT_FALSE(rp.active());  // back at the max: idle
  EXPECT_EQ(rp.rate_bps(), 40'000'000'000u);
  EXPECT_EQ(rp.next_timer_ps(), UINT64_MAX);
}

TEST(DcqcnRp, RateToSetOnFirstCnpAndDisabled) {
  DcqcnParams p;
  p.rate_to_set_on_first_cnp = 25'000;
  DcqcnRp rp(&p, kLine);
  EXPECT_TRUE(rp.on_cnp(0));
  EXPECT_EQ(rp.rate_bps(), 25'000'000'000u);
  EXPECT_EQ(rp.target_bps(), 25'000'000'000u);
  DcqcnParams off;
  off.enabled = false;
  DcqcnRp idle(&off, kLine);
  EXPECT_FALSE(idle.on_cnp(0));
  EXPECT_EQ(idle.rate_bps(), kLine);
}

TEST(DcqcnNp, AtMostOneCnpPerMinTimeBetweenCnps) {
  DcqcnParams p;  // min_time_between_cnps 4 us
  DcqcnNp np;
  EXPECT_TRUE(np.on_ce(p, 100));
  EXPECT_FALSE(np.on_ce(p, 100 + kUs));
  EXPECT_FALSE(np.on_ce(p, 100 + 4 * kUs - 1));
  EXPECT_TRUE(np.on_ce(p, 100 + 4 * kUs));
  EXPECT_FALSE(np.on_ce(p, 100 + 5 * kUs));
  EXPECT_TRUE(np.on_ce(p, 100 + 9 * kUs));
  p.min_time_between_cnps = 0;
  DcqcnNp every;
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(every.on_ce(p, 7));
}

}  // namespace
}  // namespace rocelb
