// The PFC watchdog of one lossless egress queue (port, priority), with
// SONiC's PFC_WD semantics. Pure C++, time passed in; it decides, the
// dataplane acts.
//
// poll() runs every poll_interval_ns with what the queue looks like:
//   normal: the queue is paused by received PFC and holds packets at every
//           poll for detection_ns (from the first poll that saw it so)
//           -> storm (kStormDetected). Seen within detection + one interval.
//   storm:  the action applies until no PFC frame has arrived for that
//           priority (pfc_frames_rx_total unchanged across polls) for
//           restoration_ns -> normal (kStormRestored). A frame is seen at
//           the first poll after it, so restoration comes restoration_ns to
//           restoration_ns + 2 intervals after the last frame.
// Actions while in a storm (the dataplane performs them):
//   drop     flush the queue, drop new arrivals for it (count_dropped), and
//            stop sending PFC for that priority (PfcGenerator::set_suppressed)
//   forward  ignore received PFC for it (PauseReceiver::set_ignored)
//   alert    count and log only
// A disabled watchdog (enabled: false) never leaves normal.
//
// Knobs (WatchdogParams): enabled, detection_ns (detection_time),
//   restoration_ns (restoration_time), action, poll_interval_ns.
// Counters (kPfcWatchdogCounters), per queue:
//   storms_detected  storms detected (SONiC PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED)
//   storms_restored  storms ended (PFC_WD_QUEUE_STATS_DEADLOCK_RESTORED)
//   packets_dropped  packets the watchdog dropped: flushed or refused while in a storm
//                    (PFC_WD_QUEUE_STATS_TX_DROPPED_PACKETS)
//   storm            1 while the queue is in a storm, else 0 (a gauge: PFC_WD_STATUS)
//
// Threads: poll by one thread at a time (the port's TX owner, say);
// count_dropped and the readers from any thread (relaxed atomics). No
// allocation, lock or exception.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "pfc/pfc_params.h"

namespace rocelb {

#define ROCELB_PFC_WATCHDOG_COUNTERS(X)                                                    \
  X(storms_detected,                                                                       \
    "PFC storms detected on this queue (paused with packets for "                          \
    "detection_time)")                                                                     \
  X(storms_restored, "PFC storms ended on this queue (no PFC frame for restoration_time)") \
  X(packets_dropped,                                                                       \
    "packets the PFC watchdog dropped on this queue (flushed or refused "                  \
    "during a storm, action drop)")                                                        \
  X(storm, "1 while the queue is in a PFC storm, else 0 (gauge)")

struct PfcWatchdogCounters {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_PFC_WATCHDOG_COUNTERS(ROCELB_X)
#undef ROCELB_X
  void add(const PfcWatchdogCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_PFC_WATCHDOG_COUNTERS(ROCELB_X)
#undef ROCELB_X
  }
  bool operator==(const PfcWatchdogCounters&) const = default;
};

struct PfcWatchdogCounterInfo {
  std::string_view name;
  std::string_view help;
  uint64_t PfcWatchdogCounters::*field;
};

inline constexpr PfcWatchdogCounterInfo kPfcWatchdogCounters[] = {
#define ROCELB_X(name, help) {#name, help, &PfcWatchdogCounters::name},
    ROCELB_PFC_WATCHDOG_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

enum class WatchdogState : uint8_t { kNormal, kStorm };
enum class WatchdogEvent : uint8_t {
  kNone,           // no change
  kStormDetected,  // normal -> storm: start the action
  kStormRestored,  // storm -> normal: undo the action
};

const char* watchdog_state_name(WatchdogState s);    // "normal", "storm"
const char* watchdog_action_name(WatchdogAction a);  // "drop", "forward", "alert"

class PfcWatchdog {
 public:
  explicit PfcWatchdog(const WatchdogParams& params = {}) : params_(params) {}
  PfcWatchdog(const PfcWatchdog&) = delete;
  PfcWatchdog& operator=(const PfcWatchdog&) = delete;

  // A new config: new times and action from the next poll on; the state
  // (normal or storm) and the counters carry on.
  void set_params(const WatchdogParams& params) { params_ = params; }

  // paused: the queue's priority is paused by received PFC at now_ns (the
  // peer's request: PauseReceiver::paused_until_ns(p) > now, ignored or
  // not); has_packets: the queue is not empty; pfc_frames_rx_total: PFC
  // frames received so far for the priority (PauseReceiver::rx_frames(p)).
  WatchdogEvent poll(uint64_t now_ns, bool paused, bool has_packets, uint64_t pfc_frames_rx_total);

  WatchdogState state() const {
    return storm_.load(kRelaxed) ? WatchdogState::kStorm : WatchdogState::kNormal;
  }
  bool in_storm() const { return storm_.load(kRelaxed); }
  WatchdogAction action() const { return params_.action; }
  const WatchdogParams& params() const { return params_; }
  uint64_t poll_interval_ns() const { return params_.poll_interval_ns; }

  // The dataplane dropped `packets` of this queue because of the storm.
  void count_dropped(uint64_t packets) { dropped_.fetch_add(packets, kRelaxed); }

  PfcWatchdogCounters counters() const;

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;

  WatchdogParams params_;
  // Owned by poll.
  bool polled_ = false;
  bool stalled_ = false;  // paused with packets at the last poll
  uint64_t stalled_since_ = 0;
  uint64_t last_frames_ = 0;
  uint64_t last_frame_seen_ = 0;  // poll time the frame count last changed
  // Read anywhere.
  std::atomic<bool> storm_{false};
  std::atomic<uint64_t> detected_{0};
  std::atomic<uint64_t> restored_{0};
  std::atomic<uint64_t> dropped_{0};
};

}  // namespace rocelb
