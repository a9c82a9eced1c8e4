// Deterministic random numbers for workload generation: the same seed and
// stream give the same numbers with any compiler, standard library or CPU.
// std::mt19937_64 (its output is fixed by the standard) seeded with
// SplitMix64(SplitMix64(seed) + stream); uniform reals are the top 53 bits
// scaled by 2^-53; integers below n by rejection (no modulo bias);
// exponentials by inverse transform with a logarithm computed here from +,
// -, *, / only (a C library's log may differ in the last bit between
// implementations or CPU-specific variants). The std:: distributions are not
// used: their output is implementation-defined.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>

namespace rocelb {

// ln(x) for finite x > 0, within a few ulp, from IEEE basic operations only.
inline double deterministic_log(double x) {
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1): exact
  if (m < 0.70710678118654752440) {
    m *= 2;  // m in [sqrt(1/2), sqrt(2)): exact
    --e;
  }
  // ln(m) = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172: the series' terms
  // fall by s^2 < 0.03 each, so 12 terms reach below 2^-60.
  const double s = (m - 1) / (m + 1);
  const double s2 = s * s;
  double term = s, sum = 0;
  for (int k = 0; k < 12; ++k) {
    sum += term / (2 * k + 1);
    term *= s2;
  }
  constexpr double kLn2 = 0.693147180559945309417232121458176568;
  return double(e) * kLn2 + 2 * sum;
}

class WorkloadRandom {
 public:
  // Distinct streams of one seed are independent sequences (e.g. one per
  // source host, so a host's flows do not depend on the other hosts').
  WorkloadRandom(uint64_t seed, uint64_t stream) : gen_(splitmix64(splitmix64(seed) + stream)) {}

  uint64_t next() { return gen_(); }

  // Uniform in [0, 1), a multiple of 2^-53.
  double uniform() { return double(gen_() >> 11) * 0x1.0p-53; }

  // Uniform integer in [0, n), n >= 1.
  uint64_t below(uint64_t n) {
    // 2^64 mod n values at the bottom would make small results likelier.
    const uint64_t reject_below = (0 - n) % n;
    while (true) {
      const uint64_t r = gen_();
      if (r >= reject_below) return r % n;
    }
  }

  // Exponential with the given mean: -mean * ln(1 - u), u uniform in [0, 1)
  // (1 - u is exact and > 0).
  double exponential(double mean) { return -mean * deterministic_log(1.0 - uniform()); }

  static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

 private:
  std::mt19937_64 gen_;
};

}  // namespace rocelb
