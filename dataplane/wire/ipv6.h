// IPv6 header layout (RFC 8200) and the extension headers the parser walks.
// Lengths: hop-by-hop (0), routing (43) and destination options (60) give
// their size as (hdr_ext_len + 1) * 8; fragment (44) is always 8 bytes; AH
// (51, RFC 4302) gives (payload_len + 2) * 4. ESP (50) and no-next-header
// (59) end the walk: nothing after them can be read.
#pragma once

#include <cstdint>

namespace rocelb {

inline constexpr uint32_t kIpv6HeaderLen = 40;

// Byte offsets inside the fixed header.
inline constexpr uint32_t kIpv6VtcFlowOffset = 0;  // version 4, traffic class 8, flow label 20
inline constexpr uint32_t kIpv6PayloadLenOffset = 4;
inline constexpr uint32_t kIpv6NextHeaderOffset = 6;
inline constexpr uint32_t kIpv6HopLimitOffset = 7;
inline constexpr uint32_t kIpv6SrcOffset = 8;
inline constexpr uint32_t kIpv6DstOffset = 24;

inline constexpr uint8_t kIpv6ExtHopByHop = 0;
inline constexpr uint8_t kIpv6ExtRouting = 43;
inline constexpr uint8_t kIpv6ExtFragment = 44;
inline constexpr uint8_t kIpv6ExtEsp = 50;
inline constexpr uint8_t kIpv6ExtAh = 51;
inline constexpr uint8_t kIpv6NoNextHeader = 59;
inline constexpr uint8_t kIpv6ExtDestOptions = 60;

inline constexpr uint32_t kIpv6FragmentHeaderLen = 8;
// Fragment header: next header, reserved, offset (13 bits, 8-byte units) +
// 2 reserved bits + M flag, identification (32 bits).
inline constexpr uint16_t kIpv6FragOffsetMask = 0xfff8;
inline constexpr uint16_t kIpv6FragMore = 0x0001;

// True for the extension headers the parser steps over.
inline constexpr bool ipv6_is_skippable_ext(uint8_t nh) {
  return nh == kIpv6ExtHopByHop || nh == kIpv6ExtRouting || nh == kIpv6ExtFragment ||
         nh == kIpv6ExtDestOptions || nh == kIpv6ExtAh;
}

// Size in bytes of extension header nh given its second byte (length field).
inline constexpr uint32_t ipv6_ext_len(uint8_t nh, uint8_t len_field) {
  if (nh == kIpv6ExtFragment) return kIpv6FragmentHeaderLen;
  if (nh == kIpv6ExtAh) return (uint32_t{len_field} + 2) * 4;
  return (uint32_t{len_field} + 1) * 8;
}

}  // namespace rocelb
