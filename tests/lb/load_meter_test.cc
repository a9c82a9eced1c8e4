// LoadMeter: exact EWMA values, interval handling, late samples.
#include "lb/load_meter.h"

#include <gtest/gtest.h>

namespace rocelb {
namespace {

constexpr uint64_t kInterval = 16'000;  // 16 us
constexpr uint32_t kQuarter = 16384;    // alpha 1/4
// 200,000 bytes in 16 us = 100 Gb/s exactly.
constexpr uint64_t kBytes100G = 200'000;

TEST(LoadMeter, NoUpdateBeforeAnInterval) {
  LoadMeter m(kInterval, kQuarter);
  m.on_tx(kBytes100G);
  EXPECT_FALSE(m.sample(kInterval - 1));
  EXPECT_EQ(m.load_bps(), 0u);
  EXPECT_EQ(m.pending_bytes(), kBytes100G);
}

TEST(LoadMeter, ExactEwmaSteps) {
  LoadMeter m(kInterval, kQuarter);
  m.on_tx(kBytes100G);
  ASSERT_TRUE(m.sample(kInterval));
  EXPECT_EQ(m.load_bps(), 25'000'000'000u);  // 0 + (100G - 0) / 4
  m.on_tx(kBytes100G);
  ASSERT_TRUE(m.sample(2 * kInterval));
  EXPECT_EQ(m.load_bps(), 43'750'000'000u);  // 25G + 75G / 4
  m.on_tx(kBytes100G);
  ASSERT_TRUE(m.sample(3 * kInterval));
  EXPECT_EQ(m.load_bps(), 57'812'500'000u);  // 43.75G + 56.25G / 4
  // Idle interval: decays by a quarter.
  ASSERT_TRUE(m.sample(4 * kInterval));
  EXPECT_EQ(m.load_bps(), 43'359'375'000u);
  EXPECT_EQ(m.pending_bytes(), 0u);
}

TEST(LoadMeter, HalfRate) {
  LoadMeter m(kInterval, 65536);  // alpha 1: load is the last interval's rate
  m.on_tx(kBytes100G / 2);
  ASSERT_TRUE(m.sample(kInterval));
  EXPECT_EQ(m.load_bps(), 50'000'000'000u);
}

TEST(LoadMeter, LateSampleTakesOneStepPerInterval) {
  // 3 intervals at once with 300,000 bytes: rate 50 Gb/s over 48 us, three steps.
  LoadMeter m(kInterval, kQuarter);
  m.on_tx(300'000);
  ASSERT_TRUE(m.sample(3 * kInterval));
  // 0 → 12.5G → 21.875G → 28.90625G
  EXPECT_EQ(m.load_bps(), 28'906'250'000u);
  EXPECT_EQ(m.last_sample_ns(), 3 * kInterval);
}

TEST(LoadMeter, LongIdleConvergesToTheRate) {
  LoadMeter m(kInterval, kQuarter);
  m.on_tx(kBytes100G);
  m.sample(kInterval);
  ASSERT_TRUE(m.sample(kInterval + 1000 * kInterval));
  EXPECT_EQ(m.load_bps(), 0u);
}

TEST(LoadMeter, StartTimeAndBackwardTime) {
  LoadMeter m(kInterval, kQuarter, 1'000'000);
  m.on_tx(kBytes100G);
  EXPECT_FALSE(m.sample(1'000'000 + kInterval - 1));
  EXPECT_FALSE(m.sample(10));  // time going backwards changes nothing
  ASSERT_TRUE(m.sample(1'000'000 + kInterval));
  EXPECT_EQ(m.load_bps(), 25'000'000'000u);
}

TEST(LoadMeter, SameInputsSameBits) {
  LoadMeter a(kInterval, 12345), b(kInterval, 12345);
  uint64_t t = 0;
  for (int i = 0; i < 1000; ++i) {
    const uint64_t bytes = (i * 7919) % 250'000;
    t += kInterval + (i % 5) * 3000;
    a.on_tx(bytes);
    b.on_tx(bytes);
    a.sample(t);
    b.sample(t);
    ASSERT_EQ(a.load_bps(), b.load_bps());
  }
}

}  // namespace
}  // namespace rocelb
