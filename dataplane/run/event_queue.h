// The fabric run's event queue: events in time order, and events of equal
// time in the order they were pushed (first in, first out), exactly as a
// std::priority_queue keyed on (time, push sequence) would pop them.
//
// A 4-ary min-heap of 16-byte keys: the time, and one word holding the push
// sequence (high bits) and the payload's slot (low kSlotBits). Payloads sit
// in a pool of slots that are reused, so after the first few thousand events
// a push or a pop allocates nothing; a sift moves 16-byte keys, never the
// payload, and a 4-ary heap touches half the levels of a binary one (four
// children share a cache line).
//
// When the sequence would overflow its bits (2^kSeqBits pushes), the keys
// are renumbered in their order: the order of what is queued never changes.
// Knobs: none. Counters: none (size() for the caller's own).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace rocelb {

template <class Payload>
class EventQueue {
 public:
  static constexpr int kSlotBits = 28;  // 268 M events queued at once
  static constexpr int kSeqBits = 64 - kSlotBits;
  static constexpr uint64_t kSlotMask = (uint64_t{1} << kSlotBits) - 1;

  bool empty() const { return heap_.empty(); }
  size_t size() const { return heap_.size(); }

  void push(uint64_t t, const Payload& p) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      slots_[slot] = p;
    } else {
      if (slots_.size() > kSlotMask) throw std::length_error("event queue: too many events queued");
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(p);
    }
    if (seq_ >> kSeqBits) renumber();
    heap_.push_back(Key{t, seq_++ << kSlotBits | slot});
    sift_up(heap_.size() - 1);
  }

  // The earliest event (the queue must not be empty).
  uint64_t top_time() const { return heap_.front().t; }
  const Payload& top() const { return slots_[heap_.front().word & kSlotMask]; }

  // Removes the earliest event and returns its payload.
  Payload pop() {
    const uint32_t slot = static_cast<uint32_t>(heap_.front().word & kSlotMask);
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
    free_.push_back(slot);
    return slots_[slot];
  }

  // Every queued payload, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    for (const Key& k : heap_) f(slots_[k.word & kSlotMask]);
  }

  void clear() {
    heap_.clear();
    slots_.clear();
    free_.clear();
    seq_ = 0;
  }

  // The sequence numbers of what is queued made 0..size-1, in its order
  // (push does it by itself before the sequence overflows).
  void renumber() {
    std::sort(heap_.begin(), heap_.end(), before);  // a sorted array is a heap
    uint64_t s = 0;
    for (Key& k : heap_) k.word = s++ << kSlotBits | (k.word & kSlotMask);
    seq_ = s;
  }

 private:
  struct Key {
    uint64_t t;
    uint64_t word;  // push sequence << kSlotBits | slot
  };
  static bool before(const Key& x, const Key& y) {
    return x.t != y.t ? x.t < y.t : x.word < y.word;
  }

  void sift_up(size_t i) {
    const Key k = heap_[i];
    while (i > 0) {
      const size_t parent = (i - 1) / 4;
      if (!before(k, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = k;
  }

  // Puts `k` where the root was, moving the smallest child up each level.
  void sift_down(const Key k) {
    const size_t n = heap_.size();
    size_t i = 0;
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best = first;
      const size_t end = std::min(first + 4, n);
      for (size_t c = first + 1; c < end; ++c)
        if (before(heap_[c], heap_[best])) best = c;
      if (!before(heap_[best], k)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = k;
  }

  std::vector<Key> heap_;
  std::vector<Payload> slots_;
  std::vector<uint32_t> free_;
  uint64_t seq_ = 0;
};

}  // namespace rocelb
