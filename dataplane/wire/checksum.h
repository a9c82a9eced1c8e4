// The Internet checksum (RFC 1071) used by IPv4 headers and UDP: a 32-bit
// accumulator of 16-bit big-endian words, folded and complemented at the end.
// Partial sums chain, so a pseudo-header and a payload can be summed apart.
#pragma once

#include <cstddef>
#include <cstdint>

namespace rocelb {

// Adds the bytes at p (an odd length is padded with one zero byte) to sum.
inline uint32_t csum_add(uint32_t sum, const uint8_t* p, size_t len) {
  uint64_t s = sum;
  size_t i = 0;
  for (; i + 1 < len; i += 2) s += (uint32_t{p[i]} << 8) | p[i + 1];
  if (i < len) s += uint32_t{p[i]} << 8;
  while (s >> 16) s = (s & 0xffff) + (s >> 16);
  return static_cast<uint32_t>(s);
}

inline uint32_t csum_add16(uint32_t sum, uint16_t word) {
  uint32_t s = sum + word;
  return (s & 0xffff) + (s >> 16);
}

// Folds the accumulator to 16 bits and complements it: the value to store.
inline uint16_t csum_fold(uint32_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum);
}

}  // namespace rocelb
