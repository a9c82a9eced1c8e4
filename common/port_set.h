// A set of a switch's port ids (0..kMaxPorts-1) as bits, one 64-bit word
// per 64 ports: which ports an event touched, which are down, which assert
// XOFF. Walking a set visits its ports in increasing order. AtomicPortSet
// is the same set for one writer at a time per port and readers on other
// lcores (relaxed: a reader sees each word as some writer left it).
// Header only, pure C++, no knobs, no counters.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include "common/constants.h"

namespace rocelb {

class PortSet {
 public:
  static constexpr int kWords = (kMaxPorts + 63) / 64;

  // Ports 0..n-1.
  static PortSet first(int n) {
    PortSet s;
    for (int w = 0; w < kWords && n > 0; ++w, n -= 64)
      s.w_[w] = n >= 64 ? ~uint64_t{0} : (uint64_t{1} << n) - 1;
    return s;
  }
  static PortSet of(uint16_t port) {
    PortSet s;
    s.add(port);
    return s;
  }

  // A port id past kMaxPorts (an mbuf's RTE_MBUF_PORT_INVALID) is in no set.
  void add(uint16_t port) {
    if (port < kMaxPorts) w_[port >> 6] |= uint64_t{1} << (port & 63);
  }
  void remove(uint16_t port) {
    if (port < kMaxPorts) w_[port >> 6] &= ~(uint64_t{1} << (port & 63));
  }
  bool has(uint16_t port) const { return port < kMaxPorts && ((w_[port >> 6] >> (port & 63)) & 1); }
  bool empty() const {
    uint64_t any = 0;
    for (uint64_t x : w_) any |= x;
    return any == 0;
  }
  int count() const {
    int n = 0;
    for (uint64_t x : w_) n += __builtin_popcountll(x);
    return n;
  }
  // Word i: ports 64 * i .. 64 * i + 63 (AtomicPortSet::load).
  void set_word(int i, uint64_t bits) { w_[i] = bits; }

  PortSet& operator|=(const PortSet& o) {
    for (int i = 0; i < kWords; ++i) w_[i] |= o.w_[i];
    return *this;
  }
  PortSet& operator&=(const PortSet& o) {
    for (int i = 0; i < kWords; ++i) w_[i] &= o.w_[i];
    return *this;
  }
  friend PortSet operator|(PortSet a, const PortSet& b) { return a |= b; }
  friend PortSet operator&(PortSet a, const PortSet& b) { return a &= b; }
  // The ports of this set that are not in `o`.
  PortSet without(const PortSet& o) const {
    PortSet s;
    for (int i = 0; i < kWords; ++i) s.w_[i] = w_[i] & ~o.w_[i];
    return s;
  }
  bool operator==(const PortSet&) const = default;

  // f(port) for each port of the set, in increasing order. Most switches
  // have at most 64 ports: the words past the first are looked at one by
  // one only when one of them has a port.
  template <class F>
  void for_each(F&& f) const {
    uint64_t rest = 0;
    for (int i = 1; i < kWords; ++i) rest |= w_[i];
    each_bit(w_[0], 0, f);
    if (rest == 0) return;
    for (int i = 1; i < kWords; ++i) each_bit(w_[i], i * 64, f);
  }

  // As for_each, over the first W words only: for a caller that knows the
  // set holds no port from 64 * W on (a switch of at most 64 ports walks one
  // word, as port masks did before they were sets).
  template <int W, class F>
  void for_each_below(F&& f) const {
    static_assert(W >= 1 && W <= kWords);
    for (int i = 0; i < W; ++i) each_bit(w_[i], i * 64, f);
  }

  // Empties the set and returns what it held.
  PortSet take() {
    const PortSet s = *this;
    *this = PortSet{};
    return s;
  }

 private:
  template <class F>
  static void each_bit(uint64_t bits, int base, F& f) {
    for (; bits != 0; bits &= bits - 1) f(static_cast<uint16_t>(base + __builtin_ctzll(bits)));
  }

  std::array<uint64_t, kWords> w_{};
};

class AtomicPortSet {
 public:
  // Adds or removes `port`; true when it was in the set before.
  bool set(uint16_t port, bool in) {
    if (port >= kMaxPorts) return false;
    const uint64_t bit = uint64_t{1} << (port & 63);
    std::atomic<uint64_t>& w = w_[port >> 6];
    const uint64_t before = in ? w.fetch_or(bit, kRelaxed) : w.fetch_and(~bit, kRelaxed);
    return before & bit;
  }
  bool has(uint16_t port) const {
    return port < kMaxPorts && ((w_[port >> 6].load(kRelaxed) >> (port & 63)) & 1);
  }
  bool empty() const {
    uint64_t any = 0;
    for (const auto& w : w_) any |= w.load(kRelaxed);
    return any == 0;
  }
  PortSet load() const {
    PortSet s;
    for (int i = 0; i < PortSet::kWords; ++i) s.set_word(i, w_[i].load(kRelaxed));
    return s;
  }

 private:
  static constexpr std::memory_order kRelaxed = std::memory_order_relaxed;
  std::array<std::atomic<uint64_t>, PortSet::kWords> w_{};
};

}  // namespace rocelb
