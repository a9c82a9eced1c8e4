// PauseReceiver: exact pause timers per priority (quanta × 512 / speed,
// rounded up), XON, a new frame replacing the timer, 802.3x PAUSE, ignored
// priorities (watchdog forward), and the paused-time accounting.
#include "pfc/pause_receiver.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace rocelb {
namespace {

constexpr uint64_t k100G = 100'000'000'000ull;
constexpr uint64_t k25G = 25'000'000'000ull;
constexpr uint64_t kFullPause100G = 335'540;  // 65535 × 512 / 100e9 s = 335539.2 ns, rounded up
constexpr uint8_t kP3 = 1u << 3;

std::array<uint16_t, 8> times(int prio, uint16_t q) {
  std::array<uint16_t, 8> t{};
  t[prio] = q;
  return t;
}

TEST(PauseReceiver, FullPauseAt100GIsExact) {
  ASSERT_EQ(pause_quanta_to_ns(65535, k100G), kFullPause100G);
  PauseReceiver r;
  const uint64_t t0 = 1'000'000;
  EXPECT_EQ(r.paused_mask(t0), 0);
  EXPECT_EQ(r.next_change_ns(t0), UINT64_MAX);
  r.on_pfc(kP3, times(3, 65535).data(), t0, k100G);
  EXPECT_EQ(r.paused_mask(t0), kP3);  // only priority 3
  EXPECT_EQ(r.paused_mask(t0 + kFullPause100G - 1), kP3);
  EXPECT_EQ(r.paused_mask(t0 + kFullPause100G), 0);
  EXPECT_EQ(r.paused_until_ns(3), t0 + kFullPause100G);
  EXPECT_EQ(r.next_change_ns(t0), t0 + kFullPause100G);
  EXPECT_EQ(r.next_change_ns(t0 + kFullPause100G), UINT64_MAX);
  // Paused time, exact while running and after.
  EXPECT_EQ(r.pause_ns(3, t0 + 50'000), 50'000u);
  EXPECT_EQ(r.pause_ns(3, t0 + kFullPause100G + 7'000), kFullPause100G);
  for (int p = 0; p < 8; ++p) {
    if (p != 3) {
      EXPECT_EQ(r.pause_ns(p, t0 + 1'000'000), 0u) << p;
    }
  }
  PfcRxCounters c = r.counters(3, t0 + 1'000'000);
  EXPECT_EQ(c.pfc_rx_frames, 1u);
  EXPECT_EQ(c.pfc_rx_xon_frames, 0u);
  EXPECT_EQ(c.pfc_rx_pause_us, 335u);
  EXPECT_EQ(r.counters(0, t0 + 1'000'000), PfcRxCounters{});
}

TEST(PauseReceiver, OtherSpeedsRoundUp) {
  PauseReceiver r;
  r.on_pfc(kP3, times(3, 65535).data(), 0, k25G);  // 1342156.8 ns
  EXPECT_EQ(r.paused_until_ns(3), 1'342'157u);
  r.on_pfc(kP3, times(3, 1).data(), 0, k100G);  // 5.12 ns
  EXPECT_EQ(r.paused_until_ns(3), 6u);
}

TEST(PauseReceiver, XonEndsThePause) {
  PauseReceiver r;
  const uint64_t t0 = 5'000;
  r.on_pfc(kP3, times(3, 65535).data(), t0, k100G);
  r.on_pfc(kP3, times(3, 0).data(), t0 + 100'000, k100G);
  EXPECT_EQ(r.paused_mask(t0 + 100'000), 0);
  EXPECT_EQ(r.next_change_ns(t0 + 100'000), UINT64_MAX);
  EXPECT_EQ(r.pause_ns(3, t0 + 500'000), 100'000u);
  PfcRxCounters c = r.counters(3, t0 + 500'000);
  EXPECT_EQ(c.pfc_rx_frames, 2u);
  EXPECT_EQ(c.pfc_rx_xon_frames, 1u);
  EXPECT_EQ(c.pfc_rx_pause_us, 100u);
  // XON while not paused changes nothing but the counts.
  r.on_pfc(kP3, times(3, 0).data(), t0 + 600'000, k100G);
  EXPECT_EQ(r.pause_ns(3, t0 + 700'000), 100'000u);
  EXPECT_EQ(r.counters(3, t0).pfc_rx_xon_frames, 2u);
}

TEST(PauseReceiver, NewFrameReplacesTheTimer) {
  PauseReceiver r;
  const uint64_t t0 = 0;
  r.on_pfc(kP3, times(3, 65535).data(), t0, k100G);
  // Refresh halfway: the pause now ends a full pause time after the refresh.
  const uint64_t t1 = t0 + 167'770;
  r.on_pfc(kP3, times(3, 65535).data(), t1, k100G);
  EXPECT_EQ(r.paused_until_ns(3), t1 + kFullPause100G);
  EXPECT_EQ(r.paused_mask(t0 + kFullPause100G), kP3);
  // A shorter time replaces it too (1000 quanta = 5120 ns).
  const uint64_t t2 = t1 + 10'000;
  r.on_pfc(kP3, times(3, 1000).data(), t2, k100G);
  EXPECT_EQ(r.paused_until_ns(3), t2 + 5'120);
  EXPECT_EQ(r.paused_mask(t2 + 5'119), kP3);
  EXPECT_EQ(r.paused_mask(t2 + 5'120), 0);
  // One continuous pause from t0 to t2 + 5120: no gap, nothing twice.
  EXPECT_EQ(r.pause_ns(3, t2 + 1'000'000), t2 + 5'120 - t0);
  // A new pause after a gap adds to the total.
  const uint64_t t3 = t2 + 100'000;
  r.on_pfc(kP3, times(3, 1000).data(), t3, k100G);
  EXPECT_EQ(r.pause_ns(3, t3 + 2'000), t2 + 5'120 - t0 + 2'000);
  EXPECT_EQ(r.pause_ns(3, t3 + 9'000), t2 + 5'120 - t0 + 5'120);
  EXPECT_EQ(r.counters(3, t3 + 9'000).pfc_rx_frames, 4u);
}

TEST(PauseReceiver, OnlyEnabledPrioritiesChange) {
  PauseReceiver r;
  const std::array<uint16_t, 8> q = {100, 200, 300, 400, 500, 600, 700, 800};
  r.on_pfc(0x05, q.data(), 0, k100G);  // priorities 0 and 2; the other times are ignored
  EXPECT_EQ(r.paused_mask(0), 0x05);
  EXPECT_EQ(r.paused_until_ns(0), 512u);   // 100 × 5.12 ns
  EXPECT_EQ(r.paused_until_ns(2), 1536u);  // 300 × 5.12 ns
  EXPECT_EQ(r.paused_until_ns(1), 0u);
  EXPECT_EQ(r.next_change_ns(0), 512u);
  EXPECT_EQ(r.next_change_ns(512), 1536u);
  EXPECT_EQ(r.paused_mask(600), 0x04);
  EXPECT_EQ(r.counters(1, 0).pfc_rx_frames, 0u);
  EXPECT_EQ(r.counters(0, 0).pfc_rx_frames, 1u);
  // XON for one priority and a pause for another in the same frame.
  PfcFrame f;
  f.class_enable = 0x06;
  f.quanta = {0, 1000, 0, 0, 0, 0, 0, 0};
  r.on_pfc(f, 100, k100G);
  EXPECT_EQ(r.paused_mask(100), 0x03);  // 0 still running, 1 paused, 2 resumed
  EXPECT_EQ(r.counters(2, 100).pfc_rx_xon_frames, 1u);
  EXPECT_EQ(r.pause_ns(2, 10'000), 100u);
}

TEST(PauseReceiver, Ieee8023xPausesEveryPriority) {
  PauseReceiver r;
  r.on_pause(65535, 1'000, k100G);
  EXPECT_EQ(r.paused_mask(1'000), 0xff);
  EXPECT_EQ(r.next_change_ns(1'000), 1'000 + kFullPause100G);
  r.on_pause(0, 11'000, k100G);
  EXPECT_EQ(r.paused_mask(11'000), 0);
  for (int p = 0; p < 8; ++p) {
    EXPECT_EQ(r.pause_ns(p, 50'000), 10'000u) << p;
    EXPECT_EQ(r.counters(p, 50'000).pfc_rx_frames, 0u) << p;  // not PFC
  }
}

TEST(PauseReceiver, IgnoredPrioritiesAreNotHeld) {
  PauseReceiver r;
  r.on_pfc(kP3, times(3, 65535).data(), 0, k100G);
  r.set_ignored(kP3, 10'000);
  EXPECT_EQ(r.ignored(), kP3);
  EXPECT_EQ(r.paused_mask(10'000), 0);
  EXPECT_EQ(r.next_change_ns(10'000), UINT64_MAX);
  EXPECT_EQ(r.paused_until_ns(3), kFullPause100G);  // the peer's timer still runs
  // Frames still count (the watchdog watches them); paused time does not.
  r.on_pfc(kP3, times(3, 65535).data(), 20'000, k100G);
  EXPECT_EQ(r.counters(3, 20'000).pfc_rx_frames, 2u);
  EXPECT_EQ(r.paused_mask(20'000), 0);
  EXPECT_EQ(r.pause_ns(3, 30'000), 10'000u);
  // Honoured again: the rest of the running timer counts from then.
  r.set_ignored(0, 40'000);
  EXPECT_EQ(r.paused_mask(40'000), kP3);
  EXPECT_EQ(r.next_change_ns(40'000), 20'000 + kFullPause100G);
  EXPECT_EQ(r.pause_ns(3, 50'000), 20'000u);
  EXPECT_EQ(r.pause_ns(3, 1'000'000), 10'000 + (20'000 + kFullPause100G - 40'000));
  // Un-ignoring after the timer ran out adds nothing.
  r.set_ignored(kP3, 1'000'000);
  r.on_pfc(kP3, times(3, 100).data(), 1'000'000, k100G);
  r.set_ignored(0, 2'000'000);
  EXPECT_EQ(r.pause_ns(3, 3'000'000), 10'000 + (20'000 + kFullPause100G - 40'000));
  // Other priorities are not affected by ignoring priority 3.
  r.set_ignored(kP3, 3'000'000);
  r.on_pfc(0x09, std::array<uint16_t, 8>{1000, 0, 0, 1000, 0, 0, 0, 0}.data(), 3'000'000, k100G);
  EXPECT_EQ(r.paused_mask(3'000'000), 0x01);
}

TEST(PauseReceiver, CounterTable) {
  std::vector<std::string> names;
  for (const auto& c : kPfcRxCounters) {
    names.emplace_back(c.name);
    EXPECT_FALSE(c.help.empty());
  }
  EXPECT_EQ(names,
            (std::vector<std::string>{"pfc_rx_frames", "pfc_rx_xon_frames", "pfc_rx_pause_us"}));
  PauseReceiver r;
  r.on_pfc(kP3, times(3, 65535).data(), 0, k100G);
  PfcRxCounters c = r.counters(3, 2'000'000);
  EXPECT_EQ(c.*kPfcRxCounters[0].field, 1u);
  EXPECT_EQ(c.*kPfcRxCounters[2].field, 335u);
  PfcRxCounters sum;
  sum.add(c);
  sum.add(c);
  EXPECT_EQ(sum.pfc_rx_pause_us, 670u);
}

}  // namespace
}  // namespace rocelb
