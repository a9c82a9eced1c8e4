// Ethernet II framing: Ethertypes the switch knows, header and tag sizes, and
// the 802.1Q / 802.1ad tag layout. Frames are handled without their FCS (as in
// pcap captures and DPDK mbufs), so the minimum frame is 60 bytes.
#pragma once

#include <array>
#include <cstdint>

namespace rocelb {

using MacBytes = std::array<uint8_t, 6>;

inline constexpr uint16_t kEthertypeIpv4 = 0x0800;
inline constexpr uint16_t kEthertypeArp = 0x0806;
inline constexpr uint16_t kEthertypeVlan = 0x8100;     // 802.1Q C-tag
inline constexpr uint16_t kEthertypeQinQ = 0x88A8;     // 802.1ad S-tag
inline constexpr uint16_t kEthertypeQinQOld = 0x9100;  // pre-standard S-tag
inline constexpr uint16_t kEthertypeIpv6 = 0x86DD;
inline constexpr uint16_t kEthertypeRoceV1 = 0x8915;
inline constexpr uint16_t kEthertypeMacControl = 0x8808;

inline constexpr uint32_t kMacLen = 6;
inline constexpr uint32_t kEthDstOffset = 0;
inline constexpr uint32_t kEthSrcOffset = 6;
inline constexpr uint32_t kEthTypeOffset = 12;
inline constexpr uint32_t kEthHeaderLen = 14;
inline constexpr uint32_t kVlanTagLen = 4;       // TPID + TCI
inline constexpr uint32_t kEthMinFrameLen = 60;  // without FCS
inline constexpr uint32_t kEthFcsLen = 4;

// A tag is TPID (2 bytes) then TCI: PCP (3 bits), DEI (1 bit), VID (12 bits).
inline constexpr bool is_vlan_tpid(uint16_t ethertype) {
  return ethertype == kEthertypeVlan || ethertype == kEthertypeQinQ ||
         ethertype == kEthertypeQinQOld;
}
inline constexpr uint8_t vlan_tci_pcp(uint16_t tci) {
  return static_cast<uint8_t>(tci >> 13);
}
inline constexpr bool vlan_tci_dei(uint16_t tci) {
  return (tci >> 12) & 1;
}
inline constexpr uint16_t vlan_tci_vid(uint16_t tci) {
  return tci & 0x0fff;
}
inline constexpr uint16_t vlan_tci(uint8_t pcp, bool dei, uint16_t vid) {
  return static_cast<uint16_t>(((pcp & 7u) << 13) | (dei ? 1u << 12 : 0u) | (vid & 0x0fffu));
}

}  // namespace rocelb
