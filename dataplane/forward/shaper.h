// Holds a port to its configured speed. A frame of B bytes, counted as
// captured, occupies the wire for (B + 20) × 8 / speed seconds: 8 bytes of
// preamble and start delimiter plus the 12-byte inter-frame gap. Time is in
// picoseconds so common speeds (1/10/25/40/50/100/200/400/800 Gb/s) give
// exact integers.
//
// It is a token bucket written as a virtual clock (GCRA): `wire_free` is when
// the wire is next free; a frame may start when wire_free ≤ now + burst, and
// wire time left unused counts back for up to `burst` (a frame starts no
// earlier than now − burst). With burst 0 (replay) departures are exactly
// back to back at line rate. Live mode allows a small burst so the NIC gets
// bursts of frames, and the carried credit keeps a port at its speed when
// one pass of the worker loop takes longer than the burst (else the wire
// time between passes would be lost: 75 % of 5G at 13 us passes). After
// idle a port may thus send up to two bursts at once.
//
// Knobs: speed_bps, burst_ps, framing (WireFraming). Counters: none (the
// port counts tx).
#pragma once

#include <algorithm>
#include <cstdint>

#include "common/constants.h"

namespace rocelb {

class Shaper {
 public:
  // How frames count on this wire (WireFraming: Ethernet unless a fabric
  // run says ns-3's).
  void set_framing(WireFraming f) { framing_ = f; }
  uint32_t wire_bytes(uint32_t bytes) const { return framing_.bytes(bytes); }
  void configure(uint64_t speed_bps, uint64_t burst_ps) {
    speed_bps_ = speed_bps ? speed_bps : 1;
    burst_ps_ = burst_ps;
    ps_per_byte_ = exact_ps_per_byte(speed_bps_);
  }
  uint64_t speed_bps() const { return speed_bps_; }

  // Picoseconds a frame of `bytes` holds the wire.
  uint64_t wire_ps(uint32_t bytes) const {
    const uint64_t wire = framing_.bytes(bytes);
    if (ps_per_byte_) return wire * ps_per_byte_;
    return static_cast<uint64_t>((static_cast<unsigned __int128>(wire) * kPsBits) / speed_bps_);
  }
  bool can_send(uint64_t now_ps) const { return wire_free_ps_ <= now_ps + burst_ps_; }
  // Earliest time a frame may start.
  uint64_t next_start(uint64_t now_ps) const {
    return wire_free_ps_ > now_ps + burst_ps_ ? wire_free_ps_ - burst_ps_ : now_ps;
  }
  // Charges one frame; returns the time its first bit leaves.
  uint64_t send(uint64_t now_ps, uint32_t bytes) {
    const uint64_t earliest = now_ps > burst_ps_ ? now_ps - burst_ps_ : 0;
    const uint64_t start = std::max(wire_free_ps_, earliest);
    wire_free_ps_ = start + wire_ps(bytes);
    return start;
  }
  uint64_t wire_free_ps() const { return wire_free_ps_; }

 private:
  uint64_t speed_bps_ = 1;
  uint64_t ps_per_byte_ = 0;  // 8e12 / speed when exact, else 0
  uint64_t burst_ps_ = 0;
  uint64_t wire_free_ps_ = 0;
  WireFraming framing_;
};

}  // namespace rocelb
