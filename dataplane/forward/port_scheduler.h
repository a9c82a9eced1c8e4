// Chooses which traffic class a port transmits next: strict-priority classes
// first (highest class number wins), then deficit-weighted round robin among
// the others, byte-accurate (a class's long-run share of the bytes left by
// strict classes equals its weight over the sum of backlogged weights).
// Classes in `blocked` (paused by received PFC) are skipped.
//
// Knobs: strict mask and DWRR quantum per class (SwitchConfig PortConfig).
// No counters of its own; the queues count.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>

#include "control/config_params.h"
#include "dataplane/forward/egress_queue.h"

namespace rocelb {

static_assert((kNumTrafficClasses & (kNumTrafficClasses - 1)) == 0, "classes: a power of two");

class PortScheduler {
 public:
  static constexpr uint32_t kAllClasses = (1u << kNumTrafficClasses) - 1;

  void configure(uint8_t strict_mask, const std::array<uint32_t, kNumTrafficClasses>& quantum) {
    strict_mask_ = strict_mask;
    quantum_ = quantum;
  }

  // Returns the class to send from next and its head packet, or -1 if no
  // unblocked class has a packet. The caller then pops that queue. `ready`
  // has a bit for each queue that may hold packets (the caller read their
  // counts once): the others are known empty and are not looked at.
  int pick(EgressQueue* const* queues, uint8_t blocked, uint8_t ready, rte_mbuf** head) {
    auto peek = [&](int c) -> rte_mbuf* { return (ready >> c) & 1 ? queues[c]->peek() : nullptr; };
    // Strict classes that may send, highest first.
    for (uint32_t s = strict_mask_ & ready & ~uint32_t{blocked}; s != 0;) {
      const int c = 31 - __builtin_clz(s);
      s &= ~(1u << c);
      if (rte_mbuf* m = queues[c]->peek()) {
        *head = m;
        return c;
      }
    }
    // The DWRR classes that may hold a sendable packet: a visit to any
    // other finds nothing.
    const uint32_t cand = ready & ~uint32_t{strict_mask_} & ~uint32_t{blocked};
    // DWRR over the rest: visit classes in turn from where the last pick
    // stopped; a class gets its quantum once per visit and sends while its
    // head fits in its deficit. When a whole round sends nothing (small
    // quanta, big frames), the rounds in which nobody could send are skipped
    // in one step, so a pick costs O(classes) whatever the quantum.
    for (int pass = 0; pass < 3; ++pass) {
      for (int v = 0; v < kNumTrafficClasses; ++v) {
        const int c = cur_;
        if (!((cand >> c) & 1)) {
          // Visits that find nothing, up to the next candidate (or the end
          // of this round), in one step: each leaves an idle class that is
          // not blocked without credit, as visiting it would.
          const uint32_t rot = (cand >> c | cand << (kNumTrafficClasses - c)) & kAllClasses;
          const int steps =
              std::min(rot ? __builtin_ctz(rot) : kNumTrafficClasses, kNumTrafficClasses - v);
          const uint32_t span = (1u << steps) - 1;
          const uint32_t visited = (span << c | span >> (kNumTrafficClasses - c)) & kAllClasses;
          for (uint32_t z = visited & ~uint32_t{blocked}; z != 0; z &= z - 1)
            deficit_[__builtin_ctz(z)] = 0;
          cur_ = (c + steps) & (kNumTrafficClasses - 1);
          credited_ = false;
          v += steps - 1;
          continue;
        }
        rte_mbuf* m = queues[c]->peek();
        if (!m) {
          deficit_[c] = 0;  // an idle class keeps no credit
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
      uint64_t skip = UINT64_MAX;
      for (int c = 0; c < kNumTrafficClasses; ++c) {
        if (((strict_mask_ | blocked) >> c) & 1) continue;
        rte_mbuf* m = peek(c);
        if (!m || quantum_[c] == 0) continue;
        const uint64_t need = m->pkt_len - deficit_[c];  // > 0: nobody could send
        skip = std::min<uint64_t>(skip, (need + quantum_[c] - 1) / quantum_[c]);
      }
      if (skip == UINT64_MAX) return -1;  // nothing eligible is backlogged
      for (int c = 0; c < kNumTrafficClasses; ++c) {
        if (((strict_mask_ | blocked) >> c) & 1) continue;
        if (peek(c)) deficit_[c] += (skip - 1) * quantum_[c];
      }
    }
    return -1;
  }

  // After pick() returned c and its head was sent: may c send its next
  // packet of `bytes` too, as a new pick() would decide (its deficit charged
  // if so)? Lets the TX path drain a class in one go. Strict classes always
  // may; a higher class that filled meanwhile waits for the next pick().
  // `ready`, `blocked` as given to pick(). When c is the only DWRR class
  // that can send, the rounds pick() would go through (the others visited
  // empty, c credited until its head fits) are done here in one step, with
  // the same outcome.
  bool again(int c, uint32_t bytes, uint8_t ready, uint8_t blocked) {
    if ((strict_mask_ >> c) & 1) return true;
    if (c != cur_) return false;
    if (bytes <= deficit_[c]) {
      deficit_[c] -= bytes;
      return true;
    }
    const uint8_t others = static_cast<uint8_t>(ready & ~blocked & ~(1u << c));
    if (others != 0 || quantum_[c] == 0) return false;
    for (int k = 0; k < kNumTrafficClasses; ++k)  // visited empty: no credit kept
      if (k != c && !((strict_mask_ >> k) & 1) && !((blocked >> k) & 1)) deficit_[k] = 0;
    const uint64_t rounds = (bytes - deficit_[c] + quantum_[c] - 1) / quantum_[c];
    deficit_[c] += rounds * quantum_[c] - bytes;
    credited_ = true;
    return true;
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
    cur_ = (cur_ + 1) & (kNumTrafficClasses - 1);
    credited_ = false;
  }
  uint8_t strict_mask_ = 0;
  std::array<uint32_t, kNumTrafficClasses> quantum_{};
  std::array<uint64_t, kNumTrafficClasses> deficit_{};
  int cur_ = 0;
  bool credited_ = false;
};

}  // namespace rocelb
