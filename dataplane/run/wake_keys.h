// When one node of a fabric run (a host's NIC, a switch port) wants to be
// woken, and which of its keys in the shard's event queue are still there.
//
// The queue has no way to take a key out, so a node whose wake-up moves
// earlier pushes a new key and leaves the old one to pop as stale. Pushing
// a new key each time the wake-up moves *later* too (a NIC re-arming a
// timer hundreds of microseconds ahead after every frame it sends) left
// tens of thousands of stale keys in the heap of a 32-host run, each pop
// sifting through twice the levels it needed. Here a node pushes a key only
// when no key of its own is queued at or before the time it wants: a key
// that pops before that time (stale) pushes the one it stands for then, if
// no other queued key comes first. Every node is still woken exactly at
// the times it asks for, in the same order; the queue holds a few keys a
// node.
//
//   want(t)  the node wants to be woken at t (earlier than now wanted: the
//            time moves; later: kept for when the earlier wake-up happens,
//            as before). True: push a key at t.
//   pop(t)   a key of the node at t came off the queue. kDue: wake the node
//            (it wants nothing more until it says so); kStale: nothing;
//            kPushAgain: nothing now, push a key at time() (the wake-up
//            this stale key stood for).
//
// Knobs: none. Counters: none (keys()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace rocelb {

class WakeKeys {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;
  enum class Popped { kDue, kStale, kPushAgain };

  uint64_t time() const { return want_; }
  size_t keys() const { return keys_.size(); }

  bool want(uint64_t t) {
    if (t >= want_) return false;
    want_ = t;
    if (!keys_.empty() && keys_.back() <= t) return false;  // that one pops first
    keys_.push_back(t);
    return true;
  }

  // `t` must be the earliest of the node's queued keys (the queue pops in
  // time order).
  Popped pop(uint64_t t) {
    keys_.pop_back();
    if (want_ == t) {
      want_ = kNever;
      return Popped::kDue;
    }
    if (want_ == kNever || (!keys_.empty() && keys_.back() <= want_)) return Popped::kStale;
    keys_.push_back(want_);
    return Popped::kPushAgain;
  }

  // Nothing wanted, no key queued (the queue was emptied).
  void clear() {
    want_ = kNever;
    keys_.clear();
  }

 private:
  uint64_t want_ = kNever;
  std::vector<uint64_t> keys_;  // the node's queued keys, latest first: strictly decreasing
};

}  // namespace rocelb
