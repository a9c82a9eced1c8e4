#include "pfc/pfc_watchdog.h"

namespace rocelb {
namespace {

uint64_t elapsed(uint64_t now_ns, uint64_t since_ns) {
  return now_ns > since_ns ? now_ns - since_ns : 0;
}

}  // namespace

const char* watchdog_state_name(WatchdogState s) {
  switch (s) {
    case WatchdogState::kNormal:
      return "normal";
    case WatchdogState::kStorm:
      return "storm";
  }
  return "unknown";
}

const char* watchdog_action_name(WatchdogAction a) {
  switch (a) {
    case WatchdogAction::kDrop:
      return "drop";
    case WatchdogAction::kForward:
      return "forward";
    case WatchdogAction::kAlert:
      return "alert";
  }
  return "unknown";
}

WatchdogEvent PfcWatchdog::poll(uint64_t now_ns, bool paused, bool has_packets,
                                uint64_t pfc_frames_rx_total) {
  if (!params_.enabled) return WatchdogEvent::kNone;
  if (!polled_ || pfc_frames_rx_total != last_frames_) {
    polled_ = true;
    last_frames_ = pfc_frames_rx_total;
    last_frame_seen_ = now_ns;
  }
  if (!storm_.load(kRelaxed)) {
    if (!(paused && has_packets)) {
      stalled_ = false;
      return WatchdogEvent::kNone;
    }
    if (!stalled_) {
      stalled_ = true;
      stalled_since_ = now_ns;
    }
    if (elapsed(now_ns, stalled_since_) < params_.detection_ns) return WatchdogEvent::kNone;
    storm_.store(true, kRelaxed);
    detected_.fetch_add(1, kRelaxed);
    // Restoration counts from the detection at the earliest.
    last_frame_seen_ = now_ns;
    return WatchdogEvent::kStormDetected;
  }
  if (elapsed(now_ns, last_frame_seen_) < params_.restoration_ns) return WatchdogEvent::kNone;
  storm_.store(false, kRelaxed);
  restored_.fetch_add(1, kRelaxed);
  stalled_ = false;
  return WatchdogEvent::kStormRestored;
}

PfcWatchdogCounters PfcWatchdog::counters() const {
  PfcWatchdogCounters c;
  c.storms_detected = detected_.load(kRelaxed);
  c.storms_restored = restored_.load(kRelaxed);
  c.packets_dropped = dropped_.load(kRelaxed);
  c.storm = storm_.load(kRelaxed) ? 1 : 0;
  return c;
}

}  // namespace rocelb
