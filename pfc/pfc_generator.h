// PFC generation for one switch: per (ingress port, priority) the bytes that
// port's traffic holds in egress queues, XOFF/XON decisions against static or
// dynamic thresholds, per-PG headroom admission, and the PFC frames each port
// must send to its peer. Pure C++, time passed in.
//
// Only priorities in PfcParams::enable_mask are lossless; the others are
// never paused or refused (admit/poll ignore them), but their held bytes are
// kept too, so that reconfigure() may change pfc_enable under traffic.
//
// Thresholds on held(port, p), the bytes queued anywhere that came in on
// `port` with priority p (total = Σ held over every port and priority):
//   static:  XOFF when held > xoff_bytes;  XON when held < xon_bytes
//   dynamic: (SONiC dynamic_th) T = 2^dynamic_th × max(0, shared_buffer − total);
//            XOFF when held > T;  XON when held < max(T − xon_offset, xon_bytes)
//   either way XON also when held is 0 (nothing of that PG is left to stop).
// Headroom per PG (per port), PfcParams::headroom_bytes, or when that is 0
// headroom_for(port speed, cable_length_m, response_delay_ns, max frame):
//   ceil(speed × (2 × 5 ns/m × cable + response_delay) / 8e9)   cable both ways + reaction
//   + 2 × (max_frame + 20)   one max frame in flight each way: the one the switch is
//                            sending ahead of its PFC frame, the one the peer finishes
//   + 84                     the PFC frame itself on the wire (64 + preamble, IFG)
//   + max_frame              the arrival that crossed XOFF
// admit() accepts a lossless packet while held + bytes <= X + headroom, X the
// XOFF threshold (dynamic: the larger of T now and T when XOFF was sent, so a
// shrinking T does not eat the headroom of a PG already paused); otherwise
// the caller drops it and it counts in lossless_dropped (0 when sized right).
//
// Frames, poll(port): per lossless priority not suppressed
//   crossed XOFF            -> XOFF (time = pause_quanta); refresh due at now + P/2
//   asserted, below XON     -> XON (time 0)
//   asserted, refresh due   -> XOFF again (P = pause_quanta_to_ns(pause_quanta, speed)),
//                              so the peer's pause never lapses while above XON
// All of them in one frame (class-enable vector + times). pause_quanta 0
// (rejected by the config) sends nothing. set_suppressed
// (the watchdog's `drop` action) stops PFC for a priority: an asserted XOFF is
// dropped silently at the next poll (the peer's pause lapses on its own).
//
// Knobs (PfcParams): enable_mask, pause_quanta, dynamic, xoff_bytes, xon_bytes,
//   dynamic_th, xon_offset_bytes, shared_buffer_bytes, headroom_bytes,
//   cable_length_m, response_delay_ns; and max_frame_bytes (constructor).
// Counters per (port, priority) (kPfcTxCounters):
//   pfc_tx_frames      PFC frames sent with p enabled: XOFF, refresh and XON
//                      (SAI_PORT_STAT_PFC_<p>_TX_PKTS)
//   pfc_tx_xon_frames  of those, XON (time 0 for p)
//   xoff_asserted_us   time XOFF was asserted toward the peer, exact at `now`
//   lossless_dropped   lossless packets refused by admit() (headroom exhausted)
//
// Threads: add/admit by any RX lcore and release by any TX lcore (relaxed
// atomics); poll, next_poll_ns for a port by one thread at a time (the port's
// TX owner); set_suppressed and every reader from any thread. No allocation,
// lock or exception after construction.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

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

// What poll() asks the port to send: encode with encode_pfc (pfc_frame.h).
struct PfcFrameRequest {
  uint8_t class_enable = 0;
  std::array<uint16_t, kPfcPriorities> quanta{};
};

enum class Admit : uint8_t {
  kAdmitted,     // lossless and within XOFF + headroom
  kNotLossless,  // not a lossless priority: PFC has no say
  kDropped,      // lossless and the headroom is full: drop it (counted in lossless_dropped)
};

class PfcGenerator {
 public:
  static constexpr uint32_t kDefaultMaxFrameBytes = 9216;
  static constexpr uint64_t kCableNsPerMeter = 5;
  static constexpr uint64_t kPfcFrameWireBytes = 84;  // 64-byte frame + preamble/SFD + IFG

  // port_speed_bps[i] is port i's speed (indexes are port ids 0..n-1).
  PfcGenerator(const PfcParams& params, std::span<const uint64_t> port_speed_bps,
               uint32_t max_frame_bytes = kDefaultMaxFrameBytes);
  PfcGenerator(const PfcGenerator&) = delete;
  PfcGenerator& operator=(const PfcGenerator&) = delete;

  // The headroom formula above, in bytes.
  static uint64_t headroom_for(uint64_t speed_bps, uint32_t cable_length_m,
                               uint64_t response_delay_ns, uint32_t max_frame_bytes);

  // The knobs as last set (the thread that constructs or reconfigures).
  const PfcParams& params() const { return params_; }
  uint16_t num_ports() const { return num_ports_; }
  uint8_t lossless_mask() const { return lossless_.load(kRelaxed); }
  bool lossless(uint8_t prio) const {
    return prio < kPfcPriorities && (lossless_.load(kRelaxed) >> prio) & 1;
  }
  uint64_t headroom_bytes(uint16_t port) const { return ports_[port].headroom.load(kRelaxed); }

  // Ingress side, per packet. admit() before enqueueing a packet that came
  // in on `port` with priority `prio`; add() once it is queued; release() when
  // it leaves its egress queue (sent, flushed or dropped there).
  Admit admit(uint16_t port, uint8_t prio, uint32_t bytes);
  void add(uint16_t port, uint8_t prio, uint32_t bytes) {
    if (port >= num_ports_ || prio >= kPfcPriorities) return;
    ports_[port].held[prio].fetch_add(bytes, kRelaxed);
    prio_held_[prio].fetch_add(bytes, kRelaxed);
  }
  void release(uint16_t port, uint8_t prio, uint32_t bytes) {
    if (port >= num_ports_ || prio >= kPfcPriorities) return;
    ports_[port].held[prio].fetch_sub(bytes, kRelaxed);
    prio_held_[prio].fetch_sub(bytes, kRelaxed);
  }

  // New knobs while traffic flows (one control thread; the constructor's
  // max frame size stays). Held bytes are kept for every priority, so a
  // priority made lossless starts from what is really queued; one made lossy
  // while asserted gets its XON at the port's next poll.
  void reconfigure(const PfcParams& params, std::span<const uint64_t> port_speed_bps);

  // The port's TX owner: true when a PFC frame must go out on `port` now,
  // ahead of its data; `out` then holds the class-enable vector and times.
  // Call it after the port's held bytes may have changed (dynamic: after any
  // port's) and at next_poll_ns().
  bool poll(uint16_t port, uint64_t now_ns, uint64_t speed_bps, PfcFrameRequest& out);
  // The next refresh due on `port` (at or after now_ns), or UINT64_MAX.
  uint64_t next_poll_ns(uint16_t port, uint64_t now_ns) const;

  // Stop sending PFC on `port` for the priorities in mask (watchdog `drop`).
  void set_suppressed(uint16_t port, uint8_t mask) {
    ports_[port].suppressed.store(mask, kRelaxed);
  }
  uint8_t suppressed(uint16_t port) const { return ports_[port].suppressed.load(kRelaxed); }

  // Readers.
  uint8_t asserted_mask(uint16_t port) const { return ports_[port].asserted.load(kRelaxed); }
  uint64_t held_bytes(uint16_t port, uint8_t prio) const {
    return ports_[port].held[prio].load(kRelaxed);
  }
  // Bytes held by the lossless priorities of every port.
  uint64_t total_held_bytes() const;
  // The thresholds as they stand now (dynamic ones move with the total).
  uint64_t xoff_threshold() const { return xoff_for(total_held_bytes()); }
  uint64_t xon_threshold() const { return xon_for(xoff_threshold()); }
  uint64_t xoff_asserted_ns(uint16_t port, uint8_t prio, uint64_t now_ns) const;
  PfcTxCounters counters(uint16_t port, uint8_t prio, uint64_t now_ns) const;

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
  using A64 = std::atomic<uint64_t>;

  struct alignas(64) Port {
    // Written by RX and TX lcores.
    std::array<A64, kPfcPriorities> held{};
    // Owned by the TX owner (poll); atomics so that admit and readers may look.
    alignas(64) std::atomic<uint8_t> asserted{0};
    std::atomic<uint8_t> suppressed{0};
    std::array<A64, kPfcPriorities> xoff_latch{};  // T when XOFF was sent (dynamic)
    std::array<A64, kPfcPriorities> xoff_since{};
    std::array<A64, kPfcPriorities> refresh_at{};
    std::array<A64, kPfcPriorities> xoff_acc_ns{};
    std::array<A64, kPfcPriorities> tx_frames{};
    std::array<A64, kPfcPriorities> tx_xon{};
    std::array<A64, kPfcPriorities> lossless_dropped{};
    A64 headroom{0};
  };

  // What the hot path reads of the knobs, each one atomic so that
  // reconfigure() may change them under traffic (a decision taken across a
  // change may mix old and new values once; the next one is consistent).
  struct Live {
    std::atomic<bool> dynamic{false};
    A64 xoff{0}, xon{0}, xon_offset{0}, shared{0};
    std::atomic<int8_t> dynamic_th{0};
    std::atomic<uint16_t> pause_quanta{0};
  };

  uint64_t xoff_for(uint64_t total) const;
  uint64_t xon_for(uint64_t xoff) const;
  void end_xoff(Port& st, int prio, uint64_t now_ns);

  PfcParams params_;
  uint32_t max_frame_bytes_;
  std::atomic<uint8_t> lossless_{0};
  Live live_;
  uint16_t num_ports_;
  std::unique_ptr<Port[]> ports_;
  // Bytes held per priority over every port (all priorities, so that a
  // change of pfc_enable finds them right).
  alignas(64) std::array<A64, kPfcPriorities> prio_held_{};
};

}  // namespace rocelb
