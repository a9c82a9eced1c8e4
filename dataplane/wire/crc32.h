// CRC-32 as used by Ethernet and zlib (reflected polynomial 0xEDB88320),
// table-driven eight bytes at a time ("slicing-by-8"). The tables are built
// at compile time. crc32_update() works on the raw register so a message can
// be fed in pieces: start from kCrc32Init, finish with ~crc.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "dataplane/wire/byte_order.h"

namespace rocelb {

inline constexpr uint32_t kCrc32Init = 0xffffffffu;

namespace crc32_detail {

using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables make_tables() {
  Tables t{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0xedb88320u : c >> 1;
    t[0][i] = c;
  }
  for (size_t s = 1; s < 8; ++s)
    for (uint32_t i = 0; i < 256; ++i) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
  return t;
}

inline constexpr Tables kTables = make_tables();

}  // namespace crc32_detail

inline uint32_t crc32_update(uint32_t crc, const uint8_t* p, size_t n) {
  const auto& t = crc32_detail::kTables;
  while (n >= 8) {
    uint32_t a = crc ^ load_le32(p);
    uint32_t b = load_le32(p + 4);
    crc = t[7][a & 0xff] ^ t[6][(a >> 8) & 0xff] ^ t[5][(a >> 16) & 0xff] ^ t[4][a >> 24] ^
          t[3][b & 0xff] ^ t[2][(b >> 8) & 0xff] ^ t[1][(b >> 16) & 0xff] ^ t[0][b >> 24];
    p += 8;
    n -= 8;
  }
  while (n--) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
  return crc;
}

// Feeds n bytes of value 0xff.
inline uint32_t crc32_update_ones(uint32_t crc, size_t n) {
  const auto& t = crc32_detail::kTables;
  while (n--) crc = (crc >> 8) ^ t[0][(crc ^ 0xffu) & 0xff];
  return crc;
}

// The CRC-32 of a whole message (same value as zlib's crc32()).
inline uint32_t crc32(const uint8_t* p, size_t n) {
  return ~crc32_update(kCrc32Init, p, n);
}

}  // namespace rocelb
