// The random source of the load-balancing engines: splitmix64, seeded from the
// config (switch seed, group seed, lcore index) so that a run is reproducible.
// No std::random_device, no clock. below(n) maps a draw onto [0, n) by
// multiply-shift (bias < n / 2^32, negligible for n <= 256).
#pragma once

#include <cstdint>

namespace rocelb {

class LbRng {
 public:
  explicit LbRng(uint64_t seed = 0) : state_(seed) {}

  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }

  // The whole state: a bpf policy draws from it too (lb/bpf/rocelb_policy.h).
  uint64_t state() const { return state_; }
  void set_state(uint64_t s) { state_ = s; }

  uint32_t below(uint32_t n) {
    return static_cast<uint32_t>(((next() >> 32) * static_cast<uint64_t>(n)) >> 32);
  }

 private:
  uint64_t state_;
};

// A 64-bit mix of several seeds into one (order matters).
inline uint64_t mix_seed(uint64_t a, uint64_t b) {
  LbRng r(a ^ (b * 0xd6e8feb86659fd93ull));
  return r.next();
}

// Full-avalanche 32-bit remix of a hash (murmur3 fmix32), for re-probing.
inline uint32_t remix32(uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

}  // namespace rocelb
