// A statistics counter with exactly one writer (the lcore that owns the
// block it lives in) and any number of readers on other threads (the
// control thread summing counters for `show`, metrics, telemetry).
//
// The writer adds with a relaxed atomic load and store: no lock prefix, no
// read-modify-write, the same instructions as a plain increment on x86. A
// reader takes a relaxed atomic load, so it may see a value a few updates
// old but never a torn one, and the program has no data race for the
// compiler or ThreadSanitizer to exploit or report. Copying a Counter reads
// it the same way, so a block of counters can be copied as a snapshot.
//
// Only the owning thread may call the modifiers; two writers would lose
// updates (use std::atomic RMW for shared counts). No knobs.
#pragma once

#include <atomic>
#include <cstdint>

namespace rocelb {

class Counter {
 public:
  constexpr Counter() = default;
  explicit Counter(uint64_t v) : v_(v) {}
  Counter(const Counter& o) : v_(o.load()) {}
  Counter& operator=(const Counter& o) {
    store(o.load());
    return *this;
  }
  Counter& operator=(uint64_t v) {
    store(v);
    return *this;
  }

  friend bool operator==(const Counter& a, const Counter& b) { return a.load() == b.load(); }

  uint64_t load() const {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(v_)).load(kRelaxed);
  }
  operator uint64_t() const { return load(); }  // NOLINT

  // Writer only.
  Counter& operator+=(uint64_t n) {
    store(own() + n);
    return *this;
  }
  Counter& operator++() { return *this += 1; }
  void operator++(int) { *this += 1; }

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
  // The writer's own value: nobody else stores, so a plain read is exact.
  uint64_t own() const { return v_; }
  void store(uint64_t v) { std::atomic_ref<uint64_t>(v_).store(v, kRelaxed); }

  alignas(8) uint64_t v_ = 0;
};

}  // namespace rocelb
