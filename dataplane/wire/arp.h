// ARP (RFC 826) for Ethernet/IPv4, the only kind the switch answers: 28 bytes
// of htype 1, ptype 0x0800, hlen 6, plen 4, operation, then sender and target
// hardware and protocol addresses.
#pragma once

#include <cstdint>

namespace rocelb {

inline constexpr uint32_t kArpLen = 28;
inline constexpr uint16_t kArpHtypeEthernet = 1;
inline constexpr uint16_t kArpPtypeIpv4 = 0x0800;
inline constexpr uint8_t kArpHlenEthernet = 6;
inline constexpr uint8_t kArpPlenIpv4 = 4;
inline constexpr uint16_t kArpOpRequest = 1;
inline constexpr uint16_t kArpOpReply = 2;

inline constexpr uint32_t kArpHtypeOffset = 0;
inline constexpr uint32_t kArpPtypeOffset = 2;
inline constexpr uint32_t kArpHlenOffset = 4;
inline constexpr uint32_t kArpPlenOffset = 5;
inline constexpr uint32_t kArpOpOffset = 6;
inline constexpr uint32_t kArpShaOffset = 8;
inline constexpr uint32_t kArpSpaOffset = 14;
inline constexpr uint32_t kArpThaOffset = 18;
inline constexpr uint32_t kArpTpaOffset = 24;

}  // namespace rocelb
