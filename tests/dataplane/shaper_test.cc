// Shaper: exact wire times and departures in virtual time; the live burst.
#include <gtest/gtest.h>

#include "dataplane/forward/shaper.h"

namespace rocelb {
namespace {

TEST(Shaper, WireTimeIsBytesPlus20TimesEightOverSpeed) {
  Shaper s;
  s.configure(100'000'000'000ull, 0);
  EXPECT_EQ(s.wire_ps(1000), 1020u * 80);  // 81.6 ns
  EXPECT_EQ(s.wire_ps(64), 84u * 80);      // 6.72 ns: 148.8 Mpps line rate
  s.configure(25'000'000'000ull, 0);
  EXPECT_EQ(s.wire_ps(1000), 1020u * 320);
  s.configure(400'000'000'000ull, 0);
  EXPECT_EQ(s.wire_ps(4096 + 78), (4096u + 78 + 20) * 20);
  s.configure(10'000'000'000ull, 0);
  EXPECT_EQ(s.wire_ps(1500), 1520u * 800);
}

TEST(Shaper, BackToBackDeparturesInVirtualTime) {
  Shaper s;
  s.configure(100'000'000'000ull, 0);
  EXPECT_TRUE(s.can_send(0));
  EXPECT_EQ(s.send(0, 1000), 0u);
  EXPECT_FALSE(s.can_send(81'599));
  EXPECT_TRUE(s.can_send(81'600));
  // A frame handed over early still waits for the wire.
  EXPECT_EQ(s.send(10, 1000), 81'600u);
  EXPECT_EQ(s.wire_free_ps(), 163'200u);
  // After idle, a frame leaves when it is handed over.
  EXPECT_EQ(s.send(1'000'000, 64), 1'000'000u);
  EXPECT_EQ(s.wire_free_ps(), 1'000'000u + 84 * 80);
}

TEST(Shaper, BurstLetsTheLiveRunSendAheadByTheBurstOnly) {
  Shaper s;
  const uint64_t burst = 10'000'000;  // 10 us
  s.configure(100'000'000'000ull, burst);
  // From idle at t, frames go from t − burst (credit carried back) while the
  // wire is booked no further than t + burst.
  const uint64_t t = 5'000'000'000;
  int sent = 0;
  while (s.can_send(t)) {
    s.send(t, 1500);
    ++sent;
  }
  // 20 us at 100 Gb/s holds 20e-6 * 100e9 / 8 / 1520 = 164.5 frames: 165 start by t + 10 us.
  EXPECT_EQ(sent, 165);
  // Long run: rate equals the speed (no drift from the burst).
  uint64_t now = t;
  uint64_t bytes = 0;
  for (int i = 0; i < 100000; ++i) {
    now = std::max(now, s.next_start(now));
    s.send(now, 1500);
    bytes += 1520;
  }
  const double seconds = double(s.wire_free_ps() - t) * 1e-12;
  EXPECT_NEAR(double(bytes + 165 * 1520) * 8 / seconds, 100e9 * (1 + 10e-6 / seconds),
              100e9 * 1e-6);
}

TEST(Shaper, AWorkerLoopSlowerThanTheBurstStillSendsAtTheSpeed) {
  // A port at 5 Gb/s with a full queue, looked at every 13.4 us with a
  // 10 us burst: each pass sends while it may. Wire time between passes
  // must not be lost (it was: 75 % of the speed).
  Shaper s;
  s.configure(5'000'000'000ull, 10'000'000);
  uint64_t bytes = 0, now = 1'000'000'000;
  const uint64_t begin = now;
  for (int pass = 0; pass < 10'000; ++pass, now += 13'400'000)
    while (s.can_send(now)) {
      s.send(now, 1086);
      bytes += 1086 + 20;
    }
  const double rate = double(bytes) * 8 / (double(now - begin) * 1e-12);
  EXPECT_GT(rate, 5e9 * 0.999);
  EXPECT_LT(rate, 5e9 * 1.001);
}

}  // namespace
}  // namespace rocelb
