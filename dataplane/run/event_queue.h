// The fabric run's event queue: events in the order of their (time, order)
// keys. The order is the caller's: a number below 2^kOrderBits that ranks
// events of equal time (fabric_event.h makes it from what the event is and
// where, never from when it was pushed, so that a fabric split over
// threads pops every node's events in the same order as one thread does).
// Events of equal (time, order) pop in an order fixed by the pushes and
// pops before them: the same calls give the same pops.
//
// A 4-ary min-heap of 16-byte keys: the time, and one word holding the
// order (high bits) and a reference (low kRefBits): a payload's slot in a
// pool of reused slots, or a lane. A lane is a FIFO of events that come in
// (time, order) order (a link delivers frames in the order it sent them):
// only its earliest event has a key in the heap, so the heap holds about
// one key per busy link instead of one per frame on a wire, and taking a
// lane's head puts the next one in its place with one sift instead of a
// pop and a push. An event pushed to a lane before the lane's last goes to
// the heap itself, so the order never depends on the caller keeping its
// promise. An event pushed ahead of everything queued (a port's look or a
// NIC's wake-up at the current instant, the common case) waits in a front
// slot outside the heap: its push and pop cost a comparison, not two sifts.
// After the first few thousand events a push or a pop allocates nothing.
// Knobs: the number of lanes (set_lanes). Counters: none (size()).
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

namespace rocelb {

template <class Payload>
class EventQueue {
 public:
  static constexpr int kRefBits = 28;
  static constexpr int kOrderBits = 64 - kRefBits;
  static constexpr uint64_t kMaxOrder = (uint64_t{1} << kOrderBits) - 1;
  static constexpr uint64_t kRefMask = (uint64_t{1} << kRefBits) - 1;
  static constexpr uint64_t kLaneBit = uint64_t{1} << (kRefBits - 1);  // else a slot
  static constexpr uint64_t kIndexMask = kLaneBit - 1;                 // 134 M slots, 134 M lanes

  // `n` lanes, 0..n-1, all empty (the queue must be empty).
  void set_lanes(size_t n) {
    if (n > kIndexMask) throw std::length_error("event queue: too many lanes");
    lanes_.assign(n, Lane{});
  }

  bool empty() const { return !front_.full && heap_.empty(); }
  size_t size() const { return size_; }

  // `order` <= kMaxOrder.
  void push(uint64_t t, uint64_t order, const Payload& p) {
    if (!front_.full) {
      if (heap_.empty() || ahead(t, order, heap_.front())) {
        front_ = Front{true, t, order, p};
        ++size_;
        return;
      }
    } else if (t < front_.t || (t == front_.t && order < front_.order)) {
      heap_push(front_.t, front_.order, front_.p);  // the new one goes first
      front_ = Front{true, t, order, p};
      ++size_;
      return;
    }
    heap_push(t, order, p);
    ++size_;
  }

  // An event of lane `lane`: queued behind the lane's earlier ones.
  void push_lane(uint32_t lane, uint64_t t, uint64_t order, const Payload& p) {
    Lane& l = lanes_[lane];
    if (l.n > 0) {
      const Entry& last = l.at(l.n - 1);
      if (t < last.t || (t == last.t && order < last.order))
        return push(t, order, p);  // out of order: by itself
    }
    l.push_back(Entry{t, order, p});
    ++size_;
    if (l.n == 1) {
      const Key k{t, order << kRefBits | kLaneBit | lane};
      if (front_.full && !ahead(front_.t, front_.order, k)) {  // the front is first no more
        front_.full = false;
        heap_push(front_.t, front_.order, front_.p);
      }
      heap_.push_back(k);
      sift_up(heap_.size() - 1);
    }
  }

  // The earliest event (the queue must not be empty).
  uint64_t top_time() const { return front_.full ? front_.t : heap_.front().t; }
  const Payload& top() const {
    if (front_.full) return front_.p;
    const uint64_t ref = heap_.front().word & kRefMask;
    return ref & kLaneBit ? lanes_[ref & kIndexMask].at(0).p : slots_[ref];
  }

  // Removes the earliest event and returns its payload.
  Payload pop() {
    if (front_.full) {
      front_.full = false;
      --size_;
      return front_.p;
    }
    const uint64_t ref = heap_.front().word & kRefMask;
    --size_;
    if (ref & kLaneBit) {
      Lane& l = lanes_[ref & kIndexMask];
      const Payload p = l.at(0).p;
      l.pop_front();
      if (l.n > 0) {  // the lane's next event takes its key's place
        const Entry& next = l.at(0);
        sift_down(Key{next.t, next.order << kRefBits | ref});
      } else {
        remove_top();
      }
      return p;
    }
    remove_top();
    free_.push_back(static_cast<uint32_t>(ref));
    return slots_[ref];
  }

  // Every queued payload, in no particular order.
  template <class F>
  void for_each(F&& f) const {
    if (front_.full) f(front_.p);
    for (const Key& k : heap_)
      if (!(k.word & kLaneBit)) f(slots_[k.word & kRefMask]);
    for (const Lane& l : lanes_)
      for (size_t i = 0; i < l.n; ++i) f(l.at(i).p);
  }

  void clear() {
    front_.full = false;
    heap_.clear();
    slots_.clear();
    free_.clear();
    for (Lane& l : lanes_) l = Lane{};
    size_ = 0;
  }

 private:
  struct Key {
    uint64_t t;
    uint64_t word;  // order << kRefBits | reference
  };
  struct Entry {
    uint64_t t;
    uint64_t order;
    Payload p;
  };
  // A ring of entries; its capacity doubles when full (power of two).
  struct Lane {
    std::vector<Entry> buf;
    size_t head = 0;
    size_t n = 0;
    Entry& at(size_t i) { return buf[(head + i) & (buf.size() - 1)]; }
    const Entry& at(size_t i) const { return buf[(head + i) & (buf.size() - 1)]; }
    void push_back(const Entry& e) {
      if (n == buf.size()) grow();
      buf[(head + n) & (buf.size() - 1)] = e;
      ++n;
    }
    void pop_front() {
      head = (head + 1) & (buf.size() - 1);
      --n;
    }
    void grow() {
      std::vector<Entry> bigger(buf.empty() ? 8 : 2 * buf.size());
      for (size_t i = 0; i < n; ++i) bigger[i] = at(i);
      buf.swap(bigger);
      head = 0;
    }
  };

  struct Front {
    bool full = false;
    uint64_t t = 0;
    uint64_t order = 0;
    Payload p{};
  };

  // (t, order) strictly before heap key k.
  static bool ahead(uint64_t t, uint64_t order, const Key& k) {
    return t != k.t ? t < k.t : order < (k.word >> kRefBits);
  }

  // A slot event into the heap (size_ not counted).
  void heap_push(uint64_t t, uint64_t order, const Payload& p) {
    uint32_t slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
      slots_[slot] = p;
    } else {
      if (slots_.size() >= kIndexMask) throw std::length_error("event queue: too many events");
      slot = static_cast<uint32_t>(slots_.size());
      slots_.push_back(p);
    }
    heap_.push_back(Key{t, order << kRefBits | slot});
    sift_up(heap_.size() - 1);
  }

  static bool before(const Key& x, const Key& y) {
    return x.t != y.t ? x.t < y.t : x.word < y.word;
  }

  void remove_top() {
    const Key last = heap_.back();
    heap_.pop_back();
    if (!heap_.empty()) sift_down(last);
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

  // A key as one number: (time, word) in the order of before().
  static unsigned __int128 wide(const Key& k) {
    return static_cast<unsigned __int128>(k.t) << 64 | k.word;
  }

  // Puts `k` where the root was, moving the smallest child up each level.
  // Four children: the least of two pairs, then of the two, without
  // branches (which way a comparison goes is a coin toss here).
  void sift_down(const Key k) {
    const size_t n = heap_.size();
    const unsigned __int128 kw = wide(k);
    size_t i = 0;
    for (;;) {
      const size_t first = 4 * i + 1;
      if (first >= n) break;
      size_t best;
      unsigned __int128 bw;
      if (first + 4 <= n) {
        const Key* c = &heap_[first];
        const unsigned __int128 a = wide(c[0]), b = wide(c[1]), d = wide(c[2]), e = wide(c[3]);
        const bool ab = b < a, de = e < d;
        const size_t i01 = first + ab, i23 = first + 2 + de;
        const unsigned __int128 m01 = ab ? b : a, m23 = de ? e : d;
        const bool right = m23 < m01;
        best = right ? i23 : i01;
        bw = right ? m23 : m01;
      } else {
        best = first;
        bw = wide(heap_[first]);
        for (size_t c = first + 1; c < n; ++c) {
          const unsigned __int128 cw = wide(heap_[c]);
          if (cw < bw) {
            best = c;
            bw = cw;
          }
        }
      }
      if (!(bw < kw)) break;
      heap_[i] = heap_[best];
      i = best;
    }
    heap_[i] = k;
  }

  Front front_;  // before every key of the heap when full
  std::vector<Key> heap_;
  std::vector<Payload> slots_;
  std::vector<uint32_t> free_;
  std::vector<Lane> lanes_;
  size_t size_ = 0;
};

}  // namespace rocelb
