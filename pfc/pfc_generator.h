// PFC generation for one switch: per (ingress port, priority) the bytes that
// port's traffic holds in egress queues, XOFF/XON decisions against static or
// dynamic thresholds, per-PG headroom admission, and the PFC frames each port
// must send to its peer. Pure C++, time passed in. The knobs come with every
// call as the epoch's immutable PfcConfig (pfc_config.h); this class keeps
// only state, so a new config needs no reconfiguration here.
//
// Only priorities in PfcConfig::enable_mask are lossless; the others are
// never paused or refused (admit/poll ignore them), but their held bytes are
// kept too, so that a new config may change pfc_enable under traffic: a
// priority made lossless starts from what is really queued, and one made
// lossy while asserted gets its XON at the port's next poll.
//
// Thresholds on held(port, p), the bytes queued anywhere that came in on
// `port` with priority p (total = Σ held over every port, lossless priorities):
//   static:  XOFF when held > xoff_bytes;  XON when held < xon_bytes
//   dynamic: (SONiC dynamic_th) T = 2^dynamic_th × max(0, shared_buffer − total);
//            XOFF when held > T;  XON when held < max(T − xon_offset, xon_bytes)
//   either way XON also when held is 0 (nothing of that PG is left to stop).
// admit_limit() is what a lossless PG may hold: X + headroom, X the XOFF
// threshold (dynamic: the larger of T now and T when XOFF was sent, so a
// shrinking T does not eat the headroom of a PG already paused); a packet
// that would pass it is dropped by the caller and counted here
// (count_lossless_drops: 0 when the buffer is sized right).
//
// Frames, poll(port): per lossless priority not suppressed
//   crossed XOFF            -> XOFF (time = pause_quanta); refresh due at now + P/2
//   asserted, below XON     -> XON (time 0)
//   asserted, refresh due   -> XOFF again, so the peer's pause never lapses
// qos.pfc.refresh on_arrival (HPCC's and ConWeave's ns-3: switch-node.cc
// CheckAndSendPfc, switch-mmu.cc:458-467), P the pause time:
//   over XOFF, crossing it, or a packet arrived on the PG since the last
//   poll (add() counts them in this mode) -> XOFF; asserted until now + P
//   asserted, below XON -> XON
//   asserted, now + P passed -> no longer asserted, no frame (it lapsed);
//                          XOFF again only once a packet arrives over XOFF
// All of them in one frame (class-enable vector + times). pause_quanta 0
// (rejected by the config) sends nothing. A priority in a PFC storm with the
// watchdog's `drop` action on any port (storm_begin/storm_end, counted per
// priority so that one storm ending does not lift another's suppression)
// sends no PFC on any port: an asserted XOFF is dropped silently at the next
// poll (the peer's pause lapses on its own).
//
// Counters per (port, priority) (kPfcTxCounters):
//   pfc_tx_frames      PFC frames sent with p enabled: XOFF, refresh and XON
//                      (SAI_PORT_STAT_PFC_<p>_TX_PKTS)
//   pfc_tx_xon_frames  of those, XON (time 0 for p)
//   xoff_asserted_us   time XOFF was asserted toward the peer, exact at `now`
//   lossless_dropped   lossless packets refused for headroom (count_lossless_drops)
//
// Threads, one writer for each piece of state:
//   held bytes        atomic read-modify-write: add() by the RX lcore that
//                     hands packets to a queue, before the hand-off; release()
//                     by the TX lcore that takes them out. Because the add
//                     comes first, a release never finds less than it takes.
//   storm counts      atomic read-modify-write by the TX owners' watchdogs.
//   lossless drops    atomic read-modify-write by RX lcores.
//   asserting ports   atomic read-modify-write by each port's TX owner (its bit).
//   everything else   (asserted, latches, refresh times, frame counters) one
//                     writer per port: that port's TX owner, in poll().
//   Readers anywhere (relaxed atomics). No allocation, lock or exception
//   after construction.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "common/port_set.h"
#include "pfc/pfc_config.h"
#include "pfc/pfc_params.h"

namespace rocelb {

#define ROCELB_PFC_TX_COUNTERS(X)                                                            \
  X(pfc_tx_frames,                                                                           \
    "PFC frames sent with this priority enabled: XOFF, refresh and XON "                     \
    "(SAI_PORT_STAT_PFC_<n>_TX_PKTS)")                                                       \
  X(pfc_tx_xon_frames, "PFC frames sent with pause time 0 (XON) for this priority")          \
  X(xoff_asserted_us, "microseconds the switch asserted XOFF for this priority to the peer") \
  X(lossless_dropped,                                                                        \
    "lossless packets dropped because the priority group's headroom was full (0 when the "   \
    "buffer is sized right)")

struct PfcTxCounters {
#define ROCELB_X(name, help) uint64_t name = 0;
  ROCELB_PFC_TX_COUNTERS(ROCELB_X)
#undef ROCELB_X
  void add(const PfcTxCounters& o) {
#define ROCELB_X(name, help) name += o.name;
    ROCELB_PFC_TX_COUNTERS(ROCELB_X)
#undef ROCELB_X
  }
  bool operator==(const PfcTxCounters&) const = default;
};

struct PfcTxCounterInfo {
  std::string_view name;
  std::string_view help;
  uint64_t PfcTxCounters::*field;
};

inline constexpr PfcTxCounterInfo kPfcTxCounters[] = {
#define ROCELB_X(name, help) {#name, help, &PfcTxCounters::name},
    ROCELB_PFC_TX_COUNTERS(ROCELB_X)
#undef ROCELB_X
};

// What poll() asks the port to send: the port encodes it with encode_pfc
// (dataplane/wire/mac_control.h).
struct PfcFrameRequest {
  uint8_t class_enable = 0;
  std::array<uint16_t, kPfcPriorities> quanta{};
};

class PfcGenerator {
 public:
  explicit PfcGenerator(uint16_t num_ports = kMaxPorts);
  PfcGenerator(const PfcGenerator&) = delete;
  PfcGenerator& operator=(const PfcGenerator&) = delete;

  uint16_t num_ports() const { return num_ports_; }

  // Ingress side. The most a lossless PG (port, prio) may hold: a packet of
  // B bytes is admitted while held + B <= admit_limit (the caller keeps a
  // running sum over a burst). UINT64_MAX for a priority that is not lossless.
  uint64_t admit_limit(const PfcConfig& cfg, uint16_t port, uint8_t prio) const {
    return admit_limit(cfg, port, prio, cfg.dynamic ? total_held_bytes(cfg) : 0);
  }
  // The same with total_held_bytes(cfg) already read (only dynamic
  // thresholds use it).
  uint64_t admit_limit(const PfcConfig& cfg, uint16_t port, uint8_t prio, uint64_t total) const;
  void count_lossless_drops(uint16_t port, uint8_t prio, uint64_t packets) {
    if (port < num_ports_ && prio < kPfcPriorities)
      ports_[port].lossless_dropped[prio].fetch_add(packets, kRelaxed);
  }
  // add() before packets of `port`'s priority `prio` are handed to an egress
  // queue; release() when they leave it (sent, flushed or dropped there).
  // With one writer (set_one_writer: a switch of one worker, whose queues
  // are filled and drained by the same thread) the sums are kept with plain
  // stores: readers still see whole values, and no locked add is paid.
  void add(uint16_t port, uint8_t prio, uint64_t bytes) {
    if (port >= num_ports_ || prio >= kPfcPriorities || bytes == 0) return;
    move(ports_[port].held[prio], bytes);
    move(prio_held_[prio], bytes);
    if (count_arrivals_.load(kRelaxed)) move(ports_[port].arrived[prio], 1);  // on_arrival
  }
  void release(uint16_t port, uint8_t prio, uint64_t bytes) {
    if (port >= num_ports_ || prio >= kPfcPriorities || bytes == 0) return;
    move(ports_[port].held[prio], 0 - bytes);
    move(prio_held_[prio], 0 - bytes);
  }
  void set_one_writer(bool one) { one_writer_ = one; }

  // The port's TX owner: true when a PFC frame must go out on `port` now,
  // ahead of its data; `out` then holds the class-enable vector and times.
  // Call it after the port's held bytes may have changed (dynamic: after any
  // port's) and at next_poll_ns().
  bool poll(const PfcConfig& cfg, uint16_t port, uint64_t now_ns, PfcFrameRequest& out);
  // The next poll due on `port` (at or after now_ns), or UINT64_MAX.
  uint64_t next_poll_ns(const PfcConfig& cfg, uint16_t port, uint64_t now_ns) const;
  // Of `ports`, those whose poll() now could send a frame
  // or change anything: every port asserting XOFF on some priority and,
  // with `over_xoff`, every port holding more than the XOFF threshold on a
  // lossless priority. poll() on any other port returns false and changes
  // nothing, so a caller with many ports polls only these (one threshold
  // computed for all, not one call per port).
  PortSet ports_to_poll(const PfcConfig& cfg, const PortSet& ports, bool over_xoff) const;
  // False when ports_to_poll would name no port whatever the set: no port
  // asserts XOFF and (with `over_xoff`) the lossless total is under the
  // threshold. Two loads and a compare, for callers that poll per event.
  bool may_poll(const PfcConfig& cfg, bool over_xoff) const;

  // The PFC watchdog's `drop` action: a storm on some port's queue of `prio`
  // begins or ends. PFC for prio is suppressed on every port while any such
  // storm lasts.
  void storm_begin(uint8_t prio) { storms_[prio >> 2].fetch_add(storm_one(prio), kRelaxed); }
  void storm_end(uint8_t prio) { storms_[prio >> 2].fetch_sub(storm_one(prio), kRelaxed); }
  uint8_t suppressed_mask() const;

  // Readers.
  uint8_t asserted_mask(uint16_t port) const { return ports_[port].asserted.load(kRelaxed); }
  uint64_t held_bytes(uint16_t port, uint8_t prio) const {
    return ports_[port].held[prio].load(kRelaxed);
  }
  // Bytes held by the lossless priorities of every port.
  uint64_t total_held_bytes(const PfcConfig& cfg) const;
  // The thresholds as they stand now (dynamic ones move with the total).
  uint64_t xoff_threshold(const PfcConfig& cfg) const {
    return xoff_for(cfg, total_held_bytes(cfg));
  }
  uint64_t xon_threshold(const PfcConfig& cfg) const { return xon_for(cfg, xoff_threshold(cfg)); }
  uint64_t xoff_asserted_ns(uint16_t port, uint8_t prio, uint64_t now_ns) const;
  PfcTxCounters counters(uint16_t port, uint8_t prio, uint64_t now_ns) const;

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
  using A64 = std::atomic<uint64_t>;

  struct alignas(64) Port {
    // Atomic read-modify-write by RX (add) and TX (release) lcores.
    std::array<A64, kPfcPriorities> held{};
    std::array<A64, kPfcPriorities> lossless_dropped{};
    std::array<A64, kPfcPriorities> arrived{};  // add() calls, while on_arrival is in use
    // One writer: the port's TX owner (poll); atomics so that readers may look.
    alignas(64) std::atomic<uint8_t> asserted{0};
    std::array<A64, kPfcPriorities> xoff_latch{};  // T when XOFF was sent (dynamic)
    std::array<A64, kPfcPriorities> xoff_since{};
    std::array<A64, kPfcPriorities> refresh_at{};    // on_arrival: when the pause lapses
    std::array<A64, kPfcPriorities> arrived_seen{};  // on_arrival: `arrived` at the last poll
    std::atomic<uint8_t> lapsed{0};                  // on_arrival: paused, lapsed, no arrival since
    std::array<A64, kPfcPriorities> xoff_acc_ns{};
    std::array<A64, kPfcPriorities> tx_frames{};
    std::array<A64, kPfcPriorities> tx_xon{};
  };

  // A storm counts one in its priority's 16 bits (four a word).
  static uint64_t storm_one(uint8_t prio) { return uint64_t{1} << (16 * (prio & 3)); }
  static uint64_t xoff_for(const PfcConfig& cfg, uint64_t total);
  static uint64_t xon_for(const PfcConfig& cfg, uint64_t xoff);
  void end_xoff(Port& st, int prio, uint64_t now_ns);

  uint16_t num_ports_;
  std::unique_ptr<Port[]> ports_;
  PortSet all_;  // ports 0..num_ports_-1
  // Bytes held per priority over every port (all priorities, so that a
  // change of pfc_enable finds them right).
  // held += delta (mod 2^64: a release passes the negated bytes).
  void move(A64& held, uint64_t delta) {
    if (one_writer_)
      held.store(held.load(kRelaxed) + delta, kRelaxed);
    else
      held.fetch_add(delta, kRelaxed);
  }

  bool one_writer_ = false;
  // Set by poll() from the config: add() then counts arrivals (on_arrival).
  std::atomic<bool> count_arrivals_{false};
  alignas(64) std::array<A64, kPfcPriorities> prio_held_{};
  // Ports asserting XOFF on some priority: set and cleared by poll() with
  // an atomic read-modify-write when a port's asserted set becomes
  // non-empty or empty, so ports_to_poll need not look at every port.
  alignas(64) AtomicPortSet asserting_ports_;
  std::atomic<uint32_t> asserting_count_{0};  // its size: none, the common case, is one load
  // Per priority (16 bits each, priorities 0-3 in the first word), how many
  // ports have its queue in a drop-action storm (at most kMaxPorts):
  // two loads for the mask.
  alignas(64) std::array<std::atomic<uint64_t>, 2> storms_{};
};

}  // namespace rocelb
