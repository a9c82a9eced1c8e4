// PfcWatchdog: a queue paused by a peer that keeps sending XOFF, while it
// holds packets, is a storm within detection_time + one poll interval; each
// action, carried out with PauseReceiver and PfcGenerator as the dataplane
// would; restoration once the frames stop; counters.
#include "pfc/pfc_watchdog.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"

namespace rocelb {
namespace {

constexpr uint64_t k100G = 100'000'000'000ull;
constexpr uint64_t kMs = 1'000'000;
constexpr int kPrio = 3;
constexpr uint8_t kP3 = 1u << kPrio;

WatchdogParams params(WatchdogAction action) {
  WatchdogParams p;
  p.action = action;  // 200 ms / 200 ms, polled every 1 ms
  return p;
}

// One lossless queue of port 0, class 3, fed by a peer that sends XOFF
// every 100 µs from storm_start to storm_end; the queue holds packets the
// whole time. The watchdog polls every interval; its events drive the
// action as the dataplane would.
struct Rig {
  explicit Rig(const WatchdogParams& p)
      : wd(p), cfg(PfcConfig::build(static_pfc(), std::vector<uint64_t>{k100G, k100G})), gen(2) {
    gen.add(0, kPrio, 50'000);  // port 0 feeds the queue and is above XOFF
  }
  static PfcParams static_pfc() {
    PfcParams p;
    p.xoff_bytes = 10'000;
    p.xon_bytes = 5'000;
    return p;
  }

  // Runs to `until`; returns the times of the events.
  void run(uint64_t storm_start, uint64_t storm_end, uint64_t until) {
    const std::array<uint16_t, 8> xoff = {0, 0, 0, 65535, 0, 0, 0, 0};
    uint64_t next_frame = storm_start;
    for (; now < until; now += 10'000) {  // 10 µs steps
      while (next_frame <= now && next_frame < storm_end) {
        rx.on_pfc(kP3, xoff.data(), next_frame, k100G);
        next_frame += 100'000;
      }
      if (now % wd.poll_interval_ns() != 0) continue;
      const bool paused = rx.paused_until_ns(kPrio) > now;
      WatchdogEvent e = wd.poll(now, paused, queued > 0, rx.rx_frames(kPrio));
      if (e == WatchdogEvent::kStormDetected) {
        detected_at.push_back(now);
        act(true);
      } else if (e == WatchdogEvent::kStormRestored) {
        restored_at.push_back(now);
        act(false);
      }
      // While a drop-action storm lasts, arrivals for the queue are dropped.
      if (wd.in_storm() && wd.action() == WatchdogAction::kDrop) wd.count_dropped(1);
      PfcFrameRequest r;
      if (gen.poll(cfg, 0, now, r)) ++pfc_sent;
    }
  }

  void act(bool storm) {
    switch (wd.action()) {
      case WatchdogAction::kDrop:
        if (storm) {
          wd.count_dropped(queued);  // flush
          queued = 0;
        }
        if (storm)
          gen.storm_begin(kPrio);
        else
          gen.storm_end(kPrio);
        break;
      case WatchdogAction::kForward:
        rx.set_ignored(storm ? kP3 : 0, now);
        break;
      case WatchdogAction::kAlert:
        break;
    }
  }

  PfcWatchdog wd;
  PauseReceiver rx;
  PfcConfig cfg;
  PfcGenerator gen;
  uint64_t now = 0;
  uint64_t queued = 7;
  uint64_t pfc_sent = 0;
  std::vector<uint64_t> detected_at, restored_at;
};

TEST(PfcWatchdog, StormDetectedWithinDetectionTimePlusInterval) {
  for (uint64_t start : {uint64_t{10 * kMs}, 10 * kMs + 10'000, 10 * kMs + 990'000}) {
    Rig rig(params(WatchdogAction::kAlert));
    rig.run(start, UINT64_MAX, 300 * kMs);
    ASSERT_EQ(rig.detected_at.size(), 1u) << start;
    const uint64_t took = rig.detected_at[0] - start;
    EXPECT_GE(took, 200 * kMs) << start;
    EXPECT_LE(took, 200 * kMs + kMs) << start;
    EXPECT_EQ(rig.wd.state(), WatchdogState::kStorm);
    EXPECT_TRUE(rig.restored_at.empty());  // frames never stop
  }
}

TEST(PfcWatchdog, NoStormWithoutPacketsOrWithoutPause) {
  Rig empty(params(WatchdogAction::kDrop));
  empty.queued = 0;
  empty.run(0, UINT64_MAX, 500 * kMs);
  EXPECT_TRUE(empty.detected_at.empty());

  Rig short_pauses(params(WatchdogAction::kDrop));
  // Paused 150 ms, free over one poll (151 ms), paused again: the detection restarts.
  short_pauses.run(0, 150 * kMs, 152 * kMs);
  short_pauses.run(152 * kMs, 302 * kMs, 303 * kMs);
  EXPECT_TRUE(short_pauses.detected_at.empty());
  EXPECT_EQ(short_pauses.wd.counters(), PfcWatchdogCounters{});

  WatchdogParams off = params(WatchdogAction::kDrop);
  off.enabled = false;
  Rig disabled(off);
  disabled.run(0, UINT64_MAX, 500 * kMs);
  EXPECT_TRUE(disabled.detected_at.empty());
  EXPECT_EQ(disabled.wd.state(), WatchdogState::kNormal);
}

TEST(PfcWatchdog, DropActionFlushesAndSuppressesPfc) {
  Rig rig(params(WatchdogAction::kDrop));
  rig.run(0, 400 * kMs, 700 * kMs);
  ASSERT_EQ(rig.detected_at.size(), 1u);
  ASSERT_EQ(rig.restored_at.size(), 1u);
  const uint64_t d = rig.detected_at[0];
  const uint64_t r = rig.restored_at[0];
  EXPECT_EQ(d, 200 * kMs);
  // The last frame at 399.9 ms; restoration 200 ms later, within two polls.
  const uint64_t last_frame = 400 * kMs - 100'000;
  EXPECT_GE(r - last_frame, 200 * kMs);
  EXPECT_LE(r - last_frame, 200 * kMs + 2 * kMs);
  // No PFC for priority 3 from detection to restoration; XOFF again after.
  EXPECT_EQ(rig.gen.suppressed_mask(), 0);
  EXPECT_EQ(rig.gen.asserted_mask(0), kP3);
  const PfcTxCounters tx = rig.gen.counters(0, kPrio, rig.now);
  EXPECT_EQ(tx.xoff_asserted_us, (d + (rig.now - r)) / 1000);
  PfcWatchdogCounters c = rig.wd.counters();
  EXPECT_EQ(c.storms_detected, 1u);
  EXPECT_EQ(c.storms_restored, 1u);
  // 7 flushed + one refused arrival per poll while in the storm.
  EXPECT_EQ(c.packets_dropped, 7 + (r - d) / kMs);
  EXPECT_EQ(c.storm, 0u);
}

TEST(PfcWatchdog, ForwardActionIgnoresReceivedPfc) {
  Rig rig(params(WatchdogAction::kForward));
  rig.run(0, UINT64_MAX, 250 * kMs);
  ASSERT_EQ(rig.detected_at.size(), 1u);
  EXPECT_EQ(rig.rx.ignored(), kP3);
  EXPECT_EQ(rig.rx.paused_mask(rig.now), 0);          // the class sends again
  EXPECT_GT(rig.rx.paused_until_ns(kPrio), rig.now);  // though the peer still pauses it
  EXPECT_EQ(rig.wd.counters().storm, 1u);
  // Frames stop: back to normal, PFC honoured again.
  const uint64_t stop = rig.now;
  rig.run(0, 0, stop + 300 * kMs);
  ASSERT_EQ(rig.restored_at.size(), 1u);
  EXPECT_EQ(rig.rx.ignored(), 0);
  EXPECT_EQ(rig.wd.counters().packets_dropped, 0u);
  EXPECT_EQ(rig.gen.counters(0, kPrio, rig.now).pfc_tx_frames, rig.pfc_sent);
}

TEST(PfcWatchdog, AlertActionOnlyCounts) {
  Rig rig(params(WatchdogAction::kAlert));
  rig.run(0, 300 * kMs, 600 * kMs);
  ASSERT_EQ(rig.detected_at.size(), 1u);
  ASSERT_EQ(rig.restored_at.size(), 1u);
  EXPECT_EQ(rig.queued, 7u);
  EXPECT_EQ(rig.rx.ignored(), 0);
  EXPECT_EQ(rig.gen.suppressed_mask(), 0);
  EXPECT_EQ(rig.gen.xoff_asserted_ns(0, kPrio, rig.now), rig.now);  // never interrupted
  PfcWatchdogCounters c = rig.wd.counters();
  EXPECT_EQ(c.storms_detected, 1u);
  EXPECT_EQ(c.storms_restored, 1u);
  EXPECT_EQ(c.packets_dropped, 0u);
}

TEST(PfcWatchdog, SecondStormCountsAgain) {
  Rig rig(params(WatchdogAction::kAlert));
  rig.run(0, 250 * kMs, 500 * kMs);
  rig.run(500 * kMs, 800 * kMs, 1'100 * kMs);
  EXPECT_EQ(rig.detected_at.size(), 2u);
  EXPECT_EQ(rig.restored_at.size(), 2u);
  EXPECT_EQ(rig.wd.counters().storms_detected, 2u);
  EXPECT_EQ(rig.wd.counters().storms_restored, 2u);
  EXPECT_EQ(rig.wd.state(), WatchdogState::kNormal);
}

TEST(PfcWatchdog, ShorterTimes) {
  WatchdogParams p = params(WatchdogAction::kAlert);
  p.detection_ns = 5 * kMs;
  p.restoration_ns = 3 * kMs;
  p.poll_interval_ns = 100'000;
  PfcWatchdog wd(p);
  // Paused with packets from 0: storm at 5 ms.
  uint64_t t = 0;
  uint64_t frames = 0;
  for (; wd.poll(t, true, true, ++frames) != WatchdogEvent::kStormDetected; t += 100'000) {
    ASSERT_LT(t, 10 * kMs);
  }
  EXPECT_EQ(t, 5 * kMs);
  // Frames stop at t; restored 3 ms later.
  const uint64_t last = t;
  for (t += 100'000; wd.poll(t, false, true, frames) != WatchdogEvent::kStormRestored;
       t += 100'000) {
    ASSERT_LT(t, 20 * kMs);
  }
  EXPECT_EQ(t - last, 3 * kMs);
}

TEST(PfcWatchdog, Names) {
  EXPECT_STREQ(watchdog_state_name(WatchdogState::kNormal), "normal");
  EXPECT_STREQ(watchdog_state_name(WatchdogState::kStorm), "storm");
  EXPECT_STREQ(watchdog_action_name(WatchdogAction::kDrop), "drop");
  EXPECT_STREQ(watchdog_action_name(WatchdogAction::kForward), "forward");
  EXPECT_STREQ(watchdog_action_name(WatchdogAction::kAlert), "alert");
  std::vector<std::string> names;
  for (const auto& c : kPfcWatchdogCounters) {
    names.emplace_back(c.name);
    EXPECT_FALSE(c.help.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"storms_detected", "storms_restored",
                                             "packets_dropped", "storm"}));
}

}  // namespace
}  // namespace rocelb
