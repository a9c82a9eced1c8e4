// Chooses which traffic class a port transmits next: strict-priority classes
// first (highest class number wins), then deficit-weighted round robin among
// the others, byte-accurate (a class's long-run share of the bytes left by
// strict classes equals its weight over the sum of backlogged weights).
// Classes in `blocked` (paused by received PFC) are skipped.
//
// Knobs: strict mask and DWRR quantum per class (SwitchConfig PortConfig).
// No counters of its own; the queues count.
#pragma once

#include <array>
#include <cstdint>

#include "control/config_params.h"
#include "dataplane/egress_queue.h"

namespace rocelb {

class PortScheduler {
 public:
  void configure(uint8_t strict_mask, const std::array<uint32_t, kNumTrafficClasses>& quantum) {
    strict_mask_ = strict_mask;
    quantum_ = quantum;
  }

  // Returns the class to send from next and its head packet, or -1 if no
  // unblocked class has a packet. The caller then pops that queue.
  int pick(EgressQueue* const* queues, uint8_t blocked, rte_mbuf** head) {
    for (int c = kNumTrafficClasses - 1; c >= 0; --c) {
      if (!((strict_mask_ >> c) & 1) || ((blocked >> c) & 1)) continue;
      if (rte_mbuf* m = queues[c]->peek()) {
        *head = m;
        return c;
      }
    }
    // DWRR over the rest. Bounded: each full round adds a quantum to every
    // backlogged class, so a class with a packet wins within
    // ceil(max_packet / quantum) rounds.
    for (int visits = 0; visits < kNumTrafficClasses * 64; ++visits) {
      const int c = cur_;
      const bool eligible = !((strict_mask_ >> c) & 1) && !((blocked >> c) & 1);
      rte_mbuf* m = eligible ? queues[c]->peek() : nullptr;
      if (!m) {
        if (eligible || ((strict_mask_ >> c) & 1)) deficit_[c] = 0;  // idle classes keep no credit
        advance();
        continue;
      }
      if (!credited_) {
        deficit_[c] += quantum_[c];
        credited_ = true;
      }
      if (m->pkt_len <= deficit_[c]) {
        deficit_[c] -= m->pkt_len;
        *head = m;
        return c;
      }
      advance();
    }
    return -1;
  }

  // Tells the scheduler its last pick was sent and the queue may now be empty.
  void sent(int c, bool queue_now_empty) {
    if (queue_now_empty && !((strict_mask_ >> c) & 1)) {
      deficit_[c] = 0;
      if (c == cur_) advance();
    }
  }

 private:
  void advance() {
    cur_ = (cur_ + 1) % kNumTrafficClasses;
    credited_ = false;
  }
  uint8_t strict_mask_ = 0;
  std::array<uint32_t, kNumTrafficClasses> quantum_{};
  std::array<uint64_t, kNumTrafficClasses> deficit_{};
  int cur_ = 0;
  bool credited_ = false;
};

}  // namespace rocelb
