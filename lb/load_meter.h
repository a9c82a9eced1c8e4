// Transmit load of one egress port as an EWMA, as DLB hardware samples it:
// on_tx() adds departing bytes; sample(now) closes the interval once
// `sampling_interval` has passed since the previous sample. The rate over the
// time since the previous sample, r = bytes * 8e9 / elapsed_ns (floored), is
// folded in once per whole interval that passed (so a late sample decays as
// if sampled on time at that average rate; after 64 steps load = r):
//   load += floor((r - load) * alpha_q16 / 65536)
// All integer arithmetic: the same inputs give the same bits everywhere.
// Knobs: sampling_interval, quality.load_alpha (lb_knobs.h), changeable
// live (reconfigure). No counters.
// Written by the port's transmitting lcore; others read load_bps().
#pragma once

#include <cstdint>

namespace rocelb {

class LoadMeter {
 public:
  LoadMeter(uint64_t interval_ns, uint32_t alpha_q16, uint64_t start_ns = 0)
      : interval_ns_(interval_ns ? interval_ns : 1), alpha_q16_(alpha_q16), last_ns_(start_ns) {}

  void on_tx(uint64_t bytes) { bytes_ += bytes; }

  // New knobs for the intervals to come (a config change); the load so far
  // and the interval under way are kept.
  void reconfigure(uint64_t interval_ns, uint32_t alpha_q16) {
    interval_ns_ = interval_ns ? interval_ns : 1;
    alpha_q16_ = alpha_q16;
  }

  // Updates load_bps() if an interval has passed since the last update.
  bool sample(uint64_t now_ns) {
    if (now_ns < last_ns_ || now_ns - last_ns_ < interval_ns_) return false;
    return fold(now_ns);
  }

  uint64_t load_bps() const { return load_bps_; }
  uint64_t last_sample_ns() const { return last_ns_; }
  uint64_t pending_bytes() const { return bytes_; }
  uint64_t interval_ns() const { return interval_ns_; }

 private:
  bool fold(uint64_t now_ns);  // an interval has passed: fold the rate in

  uint64_t interval_ns_;
  uint32_t alpha_q16_;
  uint64_t last_ns_;
  uint64_t bytes_ = 0;
  uint64_t load_bps_ = 0;
};

}  // namespace rocelb
