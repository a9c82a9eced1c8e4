// IPv4 header layout (RFC 791), the header checksum, and the RFC 1624
// incremental update the switch uses when it rewrites a field in flight
// (TTL decrement, ECN marking) without summing the whole header again.
#pragma once

#include <cstdint>
#include "common/constants.h"

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/checksum.h"

namespace rocelb {

inline constexpr uint32_t kIpv4MinHeaderLen = 20;
inline constexpr uint32_t kIpv4MaxHeaderLen = 60;

// Byte offsets inside the header.
inline constexpr uint32_t kIpv4VerIhlOffset = 0;  // version (4 bits), IHL in 32-bit words
inline constexpr uint32_t kIpv4TosOffset = 1;     // DSCP (6 bits), ECN (2 bits)
inline constexpr uint32_t kIpv4TotalLenOffset = 2;
inline constexpr uint32_t kIpv4IdOffset = 4;
inline constexpr uint32_t kIpv4FragOffset = 6;  // flags (3 bits), offset in 8-byte units
inline constexpr uint32_t kIpv4TtlOffset = 8;
inline constexpr uint32_t kIpv4ProtoOffset = 9;
inline constexpr uint32_t kIpv4ChecksumOffset = 10;
inline constexpr uint32_t kIpv4SrcOffset = 12;
inline constexpr uint32_t kIpv4DstOffset = 16;

inline constexpr uint16_t kIpv4FlagDf = 0x4000;
inline constexpr uint16_t kIpv4FlagMf = 0x2000;
inline constexpr uint16_t kIpv4FragOffsetMask = 0x1fff;

inline constexpr uint8_t kIpProtoUdp = 17;
inline constexpr uint8_t kIpProtoTcp = 6;
inline constexpr uint8_t kIpProtoIcmp = 1;

// The checksum of the header_len bytes at hdr, taking the checksum field as 0.
inline uint16_t ipv4_header_checksum(const uint8_t* hdr, uint32_t header_len) {
  uint32_t sum = csum_add(0, hdr, kIpv4ChecksumOffset);
  sum = csum_add(sum, hdr + kIpv4ChecksumOffset + 2, header_len - kIpv4ChecksumOffset - 2);
  return csum_fold(sum);
}

// True when the stored checksum matches the header (IHL taken from the header).
inline bool ipv4_checksum_ok(const uint8_t* hdr) {
  uint32_t len = (hdr[0] & 0x0fu) * 4;
  return csum_fold(csum_add(0, hdr, len)) == 0;
}

// RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m'), where m is the 16-bit word (at an
// even offset of the header) that changed from old_word to new_word.
inline void ipv4_update_checksum16(uint8_t* hdr, uint16_t old_word, uint16_t new_word) {
  uint32_t sum = static_cast<uint16_t>(~load_be16(hdr + kIpv4ChecksumOffset));
  sum += static_cast<uint16_t>(~old_word);
  sum += new_word;
  store_be16(hdr + kIpv4ChecksumOffset, csum_fold(sum));
}

// Rewrites the ECN bits and fixes the checksum incrementally.
inline void ipv4_set_ecn(uint8_t* hdr, uint8_t ecn) {
  uint16_t old_word = load_be16(hdr);
  hdr[kIpv4TosOffset] = static_cast<uint8_t>((hdr[kIpv4TosOffset] & 0xfc) | (ecn & 3));
  ipv4_update_checksum16(hdr, old_word, load_be16(hdr));
}

// Decrements TTL (caller checks it is > 0 first) and fixes the checksum.
inline void ipv4_decrement_ttl(uint8_t* hdr) {
  uint16_t old_word = load_be16(hdr + kIpv4TtlOffset);
  hdr[kIpv4TtlOffset] = static_cast<uint8_t>(hdr[kIpv4TtlOffset] - 1);
  ipv4_update_checksum16(hdr, old_word, load_be16(hdr + kIpv4TtlOffset));
}

}  // namespace rocelb
