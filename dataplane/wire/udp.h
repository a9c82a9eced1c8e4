// UDP header layout (RFC 768) and its checksum over the IPv4 or IPv6
// pseudo-header. RoCEv2 runs on destination port 4791; RoCE NICs send the
// IPv4 UDP checksum as 0 (none), while over IPv6 a checksum is mandatory.
#pragma once

#include <cstdint>

#include "dataplane/wire/checksum.h"

namespace rocelb {

inline constexpr uint16_t kRoceV2UdpPort = 4791;
inline constexpr uint32_t kUdpHeaderLen = 8;

inline constexpr uint32_t kUdpSrcPortOffset = 0;
inline constexpr uint32_t kUdpDstPortOffset = 2;
inline constexpr uint32_t kUdpLengthOffset = 4;
inline constexpr uint32_t kUdpChecksumOffset = 6;

// Checksum of the UDP datagram at udp (udp_len bytes, its checksum field
// taken as 0) with the pseudo-header of IPv4 addresses src4/dst4 (4 bytes
// each). A result of 0 is sent as 0xffff (RFC 768).
inline uint16_t udp_checksum_ipv4(const uint8_t* src4, const uint8_t* dst4, const uint8_t* udp,
                                  uint32_t udp_len) {
  uint32_t sum = csum_add(0, src4, 4);
  sum = csum_add(sum, dst4, 4);
  sum = csum_add16(sum, 17);
  sum = csum_add16(sum, static_cast<uint16_t>(udp_len));
  sum = csum_add(sum, udp, kUdpChecksumOffset);
  sum = csum_add(sum, udp + kUdpHeaderLen, udp_len - kUdpHeaderLen);
  uint16_t c = csum_fold(sum);
  return c == 0 ? 0xffff : c;
}

// The same with IPv6 addresses (16 bytes each); udp_len is the upper-layer
// packet length of the IPv6 pseudo-header.
inline uint16_t udp_checksum_ipv6(const uint8_t* src16, const uint8_t* dst16, const uint8_t* udp,
                                  uint32_t udp_len) {
  uint32_t sum = csum_add(0, src16, 16);
  sum = csum_add(sum, dst16, 16);
  sum = csum_add16(sum, static_cast<uint16_t>(udp_len >> 16));
  sum = csum_add16(sum, static_cast<uint16_t>(udp_len));
  sum = csum_add16(sum, 17);
  sum = csum_add(sum, udp, kUdpChecksumOffset);
  sum = csum_add(sum, udp + kUdpHeaderLen, udp_len - kUdpHeaderLen);
  uint16_t c = csum_fold(sum);
  return c == 0 ? 0xffff : c;
}

}  // namespace rocelb
