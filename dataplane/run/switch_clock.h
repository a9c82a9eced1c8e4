// One switch in virtual time: when each of its ports next wants the wire,
// and what an arrival, a departure or a link change does to those times.
// The replay run (one switch fed by pcaps) and the fabric run (many
// switches and NICs) drive the same Dataplane the same way through it:
//
//   begin_event(now)     before any event of this switch: load meters
//                        sampled (only once one's interval can have passed),
//                        PFC refreshes due now polled (only a port asserting
//                        XOFF can owe one; with dynamic thresholds also one
//                        over the threshold: PfcGenerator::ports_to_poll)
//   arrive(port, m, now) the pipeline on one frame; every port the frame
//                        was queued on (or whose pause it carried) is
//                        re-polled and rescheduled, and the ingress port
//                        too while a PFC generator may act (an XOFF
//                        crossing)
//   depart(port, now)    ConWeave's reorder queues due now for the port
//                        flushed into it, then at most one frame off the
//                        port (a due PFC frame first), counted as
//                        transmitted; the port is
//                        rescheduled, and while a PFC generator may act
//                        the ingress ports whose held bytes it released
//                        (an XON may be owed)
//   link(port, up, now)  a link fault; a downed port flushes at its next look
//   set_unlinked(port)   a port with nothing connected (a fabric port no
//                        link of the topology names): what it sends is
//                        counted as dropped `no_link`, not transmitted
//
// After an event only the ports it touched, and (dynamic thresholds, a
// storm's start or end) those whose PFC generator may act, are polled and
// rescheduled; no other port's time can move. A port's next time only moves
// earlier when another port's event touches it; at that time depart()
// finds nothing to send and reschedules it. take_changed() walks the ports
// whose time changed since it last ran, so a caller with many switches
// keeps one event heap.
//
// Knobs: none (the Dataplane's config). Counters: none of its own; the
// Dataplane counts everything (PortTx::count_tx on each departure).
#pragma once

#include <rte_mbuf.h>

#include <algorithm>
#include <array>
#include <cstdint>

#include "dataplane/forward/dataplane.h"

namespace rocelb {

class SwitchClock {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  explicit SwitchClock(Dataplane& dp);

  // Every link up, every port idle.
  void reset();

  void begin_event(uint64_t now_ps);
  // `m` null: the frame found no buffer (counted as received and dropped
  // `no_buffer` on `port`).
  void arrive(uint16_t port, rte_mbuf* m, uint32_t len, uint64_t now_ps);
  // The frame that starts on `port`'s wire at *start_ps, or nullptr. The
  // caller owns it (writes, forwards or frees it). On an unlinked port the
  // frame is freed and counted dropped `no_link` (the observer told), and
  // nullptr returned.
  rte_mbuf* depart(uint16_t port, uint64_t now_ps, uint64_t* start_ps);
  void link(uint16_t port, bool up, uint64_t now_ps);
  // Nothing is connected to `port` (for good: reset() keeps it).
  void set_unlinked(uint16_t port) { unlinked_.add(port); }

  // When `port` should be looked at next (kNever: nothing to do).
  uint64_t next_ps(uint16_t port) const { return next_[port]; }
  // The earliest port's time and that port (-1 when every port is idle);
  // ties go to the lower port.
  int earliest(uint64_t* at_ps) const;
  // f(port) for each port whose next_ps changed since the last call, in
  // increasing order; forgets them.
  template <class F>
  void take_changed(F&& f) {
    each_port(changed_, f);
    changed_ = PortSet{};
  }

  Dataplane& dataplane() { return dp_; }

 private:
  // Polls the touched ports, and those whose held bytes moved while a PFC
  // generator may act, and moves their times earlier where they have new
  // work; `skip` is left alone.
  void reschedule(const PortSet& touched, const PortSet& held, uint64_t now_ps, int skip);
  void set_next(uint16_t port, uint64_t at_ps);
  // When `port` wants looking at after now_ps: its next frame (next_tx_ps)
  // or a ConWeave reorder queue's flush time for it.
  uint64_t port_next(uint16_t port, uint64_t now_ps) const {
    const uint64_t tx = dp_.next_tx_ps(port, now_ps);
    if (!conweave_) [[likely]]
      return tx;
    const uint64_t flush_ns = dp_.conweave_next_ns(0, port);
    if (flush_ns == UINT64_MAX) return tx;
    return std::min(tx, std::max(flush_ns * 1000, now_ps));
  }
  // f(port) for each port of `s`, a set of this switch's ports: one word
  // walked when they are all below 64.
  template <class F>
  void each_port(const PortSet& s, F&& f) const {
    if (narrow_)
      s.for_each_below<1>(f);
    else
      s.for_each(f);
  }
  void sample_loads(uint64_t now_ns);

  Dataplane& dp_;
  WorkerState& ws_;  // worker 0's, the one that runs the switch
  std::array<uint64_t, kMaxPorts> next_{};
  PortSet changed_;
  PortSet unlinked_;     // ports with nothing connected
  PortSet ports_;        // the config's ports
  bool narrow_ = false;  // every port id below 64
  // No port's load meter closes an interval before this (begin_event
  // samples them only then).
  uint64_t next_sample_ns_ = 0;
  const Epoch* epoch_ = nullptr;  // the one the meters' intervals are from
  uint8_t suppressed_ = 0;        // PFC storm suppression as of begin_event()
  bool conweave_ = false;         // the config has a conweave group (reorder queues)
};

}  // namespace rocelb
