// The received-pause state of one port: which priorities the peer has paused
// with 802.1Qbb PFC (or 802.3x PAUSE, all priorities at once) and until when,
// so the port's scheduler skips those classes. Pure C++, time passed in.
//
// Timers, per priority p:
//   a PFC frame with p enabled and time q > 0 at `now` pauses p until
//   now + pause_quanta_to_ns(q, speed) (q × 512 bit times, rounded up); time
//   0 is XON: p resumes at `now`. A new frame replaces the running timer
//   (longer or shorter). Priorities not enabled in the frame are untouched.
//   802.3x PAUSE acts the same on all eight priorities. At speed 0 (unknown)
//   every pause time is 0: a frame resumes at once.
//   Paused at t  <=>  t < paused_until(p), and p is not ignored.
//
// Knobs: none from the config; the port speed comes with each frame, and the
//   PFC watchdog's `forward` action makes received PFC ignored per priority
//   (set_ignored): the peer's timers still run, but the class is not held.
//
// Counters per priority (kPfcRxCounters; readers walk that table):
//   pfc_rx_frames      PFC frames received with p enabled (SAI_PORT_STAT_PFC_<p>_RX_PKTS),
//                      ignored or not; the watchdog's "frames still arriving" input
//   pfc_rx_xon_frames  of those, frames with time 0 for p
//   pfc_rx_pause_us    time p was held paused (honoured, not ignored) by PFC or
//                      PAUSE, including a pause still running at `now`
//                      (SAI_PORT_STAT_PFC_<p>_RX_PAUSE_DURATION_US)
// 802.3x PAUSE frames are counted by the dataplane (rx_pause_frames); they
// count here only through pfc_rx_pause_us.
//
// Threads: the writers (on_pfc, on_pause, set_ignored) must be called by one
// thread at a time per port. The readers (paused_mask, next_change_ns,
// counters) may run on any thread: state is kept in relaxed atomics. A
// counter read on another thread while a frame is being applied may be off
// by the running pause until the next read. No allocation, lock or exception.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <string_view>

#include "pfc/pfc_frame.h"
#include "pfc/pfc_params.h"

namespace rocelb {

#define ROCELB_PFC_RX_COUNTERS(X)                                                       \
  X(pfc_rx_frames,                                                                      \
    "PFC frames received with this priority enabled (SAI_PORT_STAT_PFC_<n>_RX_PKTS)")   \
  X(pfc_rx_xon_frames, "PFC frames received with pause time 0 (XON) for this priority") \
  X(pfc_rx_pause_us,                                                                    \
    "microseconds this priority was held paused by received PFC or 802.3x PAUSE "       \
    "(SAI_PORT_STAT_PFC_<n>_RX_PAUSE_DURATION_US)")

// A snapshot of one priority's counters (or a sum of several).
struct PfcRxCounters {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_PFC_RX_COUNTERS(ROCELB_X)
#undef ROCELB_X
  void add(const PfcRxCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_PFC_RX_COUNTERS(ROCELB_X)
#undef ROCELB_X
  }
  bool operator==(const PfcRxCounters&) const = default;
};

struct PfcRxCounterInfo {
  std::string_view name;
  std::string_view help;
  uint64_t PfcRxCounters::*field;
};

inline constexpr PfcRxCounterInfo kPfcRxCounters[] = {
#define ROCELB_X(name, help) {#name, help, &PfcRxCounters::name},
    ROCELB_PFC_RX_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

class PauseReceiver {
 public:
  PauseReceiver() = default;
  PauseReceiver(const PauseReceiver&) = delete;
  PauseReceiver& operator=(const PauseReceiver&) = delete;

  // A decoded PFC frame arrived at now_ns on a port running at speed_bps.
  void on_pfc(uint8_t class_enable, const uint16_t quanta[kPfcPriorities], uint64_t now_ns,
              uint64_t speed_bps);
  void on_pfc(const PfcFrame& f, uint64_t now_ns, uint64_t speed_bps) {
    on_pfc(f.class_enable, f.quanta.data(), now_ns, speed_bps);
  }
  // A decoded 802.3x PAUSE frame: every priority, not counted as PFC.
  void on_pause(uint16_t quanta, uint64_t now_ns, uint64_t speed_bps);

  // Bit p set: priority p must not transmit at now_ns.
  uint8_t paused_mask(uint64_t now_ns) const;
  // The earliest time after now_ns at which a running (honoured) pause ends,
  // or UINT64_MAX when none runs: when the scheduler should look again.
  uint64_t next_change_ns(uint64_t now_ns) const;
  // The end of p's timer as the peer set it, honoured or ignored (0: never paused).
  uint64_t paused_until_ns(int prio) const { return prio_[prio].until.load(kRelaxed); }

  // Received PFC is ignored for the priorities in mask from now_ns on (the
  // watchdog's `forward` action); clearing a bit honours the peer's timer
  // again from now_ns if it is still running.
  void set_ignored(uint8_t mask, uint64_t now_ns);
  uint8_t ignored() const { return ignored_.load(kRelaxed); }

  // Exact paused time of p up to now_ns, in nanoseconds.
  uint64_t pause_ns(int prio, uint64_t now_ns) const;
  uint64_t rx_frames(int prio) const { return prio_[prio].frames.load(kRelaxed); }
  PfcRxCounters counters(int prio, uint64_t now_ns) const;

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;

  // p's honoured pause runs from `start` to min(now, until) unless ignored;
  // closed intervals are in acc_ns.
  struct Prio {
    std::atomic<uint64_t> until{0};
    std::atomic<uint64_t> start{0};
    std::atomic<uint64_t> acc_ns{0};
    std::atomic<uint64_t> frames{0};
    std::atomic<uint64_t> xon_frames{0};
  };

  uint64_t open_ns(const Prio& s, uint64_t now_ns) const;
  void set_timer(int prio, uint16_t quanta, uint64_t now_ns, uint64_t speed_bps);

  std::array<Prio, kPfcPriorities> prio_;
  std::atomic<uint8_t> ignored_{0};
  // The latest `until` of any priority: nothing is paused from then on, so
  // the common question (is anything paused now?) costs one load.
  std::atomic<uint64_t> last_until_{0};
};

}  // namespace rocelb
