// RoCE transport headers (InfiniBand Architecture Specification vol. 1,
// annex A16 RoCE and A17 RoCEv2): the 12-byte base transport header (BTH),
// opcodes, the extension headers an opcode brings, the 40-byte GRH of RoCEv1
// (Ethertype 0x8915), and the invariant CRC (ICRC) closing every packet.
//
// BTH: opcode (8) | SE (1) M (1) PadCnt (2) TVer (4) | P_Key (16) |
//      resv8a (8, FECN/BECN in IBA 1.3) | DestQP (24) | A (1) resv7 | PSN (24).
// ICRC: CRC-32 (Ethernet) over 8 bytes of 0xff standing for the LRH, then the
// IP header (RoCEv2) or GRH (RoCEv1) and everything up to the ICRC, with the
// fields routers may change replaced by 1s: IPv4 TOS, TTL, header checksum;
// IPv6/GRH traffic class, flow label, hop limit; UDP checksum; BTH resv8a.
// The 32-bit result is stored little-endian in the last 4 bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include "dataplane/wire/crc32.h"

namespace rocelb {

inline constexpr uint32_t kBthLen = 12;
inline constexpr uint32_t kGrhLen = 40;
inline constexpr uint32_t kIcrcLen = 4;
inline constexpr uint8_t kGrhNextHeaderIba = 0x1b;  // GRH next header: IBA transport

// BTH byte offsets and bit fields.
inline constexpr uint32_t kBthOpcodeOffset = 0;
inline constexpr uint32_t kBthFlagsOffset = 1;  // SE 0x80, M 0x40, PadCnt 0x30, TVer 0x0f
inline constexpr uint32_t kBthPkeyOffset = 2;
inline constexpr uint32_t kBthResv8aOffset = 4;  // FECN 0x80, BECN 0x40 (InfiniBand)
inline constexpr uint32_t kBthDestQpOffset = 5;
inline constexpr uint32_t kBthAckReqOffset = 8;  // A 0x80
inline constexpr uint32_t kBthPsnOffset = 9;
inline constexpr uint8_t kBthSe = 0x80;
inline constexpr uint8_t kBthMigReq = 0x40;
inline constexpr uint8_t kBthAckReq = 0x80;
// InfiniBand's congestion bits in the BTH's Resv8a byte (RoCEv2 signals
// with ECN and CNPs instead; the ICRC masks the byte, so setting them
// leaves the ICRC as it is).
inline constexpr uint8_t kBthFecn = 0x80;
inline constexpr uint8_t kBthBecn = 0x40;
inline constexpr uint16_t kDefaultPkey = 0xffff;

// Opcodes: the top three bits name the transport (RC 0x00, UC 0x20, RD 0x40,
// UD 0x60), the low five the operation.
inline constexpr uint8_t kRoceOpRcSendFirst = 0x00;
inline constexpr uint8_t kRoceOpRcSendMiddle = 0x01;
inline constexpr uint8_t kRoceOpRcSendLast = 0x02;
inline constexpr uint8_t kRoceOpRcSendLastImm = 0x03;
inline constexpr uint8_t kRoceOpRcSendOnly = 0x04;
inline constexpr uint8_t kRoceOpRcSendOnlyImm = 0x05;
inline constexpr uint8_t kRoceOpRcWriteFirst = 0x06;
inline constexpr uint8_t kRoceOpRcWriteMiddle = 0x07;
inline constexpr uint8_t kRoceOpRcWriteLast = 0x08;
inline constexpr uint8_t kRoceOpRcWriteLastImm = 0x09;
inline constexpr uint8_t kRoceOpRcWriteOnly = 0x0a;
inline constexpr uint8_t kRoceOpRcWriteOnlyImm = 0x0b;
inline constexpr uint8_t kRoceOpRcReadRequest = 0x0c;
inline constexpr uint8_t kRoceOpRcReadResponseFirst = 0x0d;
inline constexpr uint8_t kRoceOpRcReadResponseMiddle = 0x0e;
inline constexpr uint8_t kRoceOpRcReadResponseLast = 0x0f;
inline constexpr uint8_t kRoceOpRcReadResponseOnly = 0x10;
inline constexpr uint8_t kRoceOpRcAck = 0x11;
inline constexpr uint8_t kRoceOpRcAtomicAck = 0x12;
inline constexpr uint8_t kRoceOpRcCompareSwap = 0x13;
inline constexpr uint8_t kRoceOpRcFetchAdd = 0x14;
inline constexpr uint8_t kRoceOpRcSendLastInv = 0x16;
inline constexpr uint8_t kRoceOpRcSendOnlyInv = 0x17;
inline constexpr uint8_t kRoceOpUcSendOnly = 0x24;
inline constexpr uint8_t kRoceOpUcWriteOnly = 0x2a;
inline constexpr uint8_t kRoceOpUdSendOnly = 0x64;
inline constexpr uint8_t kRoceOpUdSendOnlyImm = 0x65;
inline constexpr uint8_t kRoceOpCnp = 0x81;     // congestion notification packet
inline constexpr uint32_t kCnpPayloadLen = 16;  // reserved bytes after the BTH

// Extension headers, in the order they follow the BTH, with their sizes.
enum RoceExt : uint8_t {
  kRoceExtRdeth = 1 << 0,         // 4 bytes: EE context (RD)
  kRoceExtDeth = 1 << 1,          // 8 bytes: Q_Key, source QP (RD, UD)
  kRoceExtReth = 1 << 2,          // 16 bytes: virtual address, R_Key, DMA length
  kRoceExtAtomicEth = 1 << 3,     // 28 bytes: VA, R_Key, swap/add, compare
  kRoceExtAeth = 1 << 4,          // 4 bytes: syndrome, MSN
  kRoceExtAtomicAckEth = 1 << 5,  // 8 bytes: original remote data
  kRoceExtImm = 1 << 6,           // 4 bytes: immediate data
  kRoceExtIeth = 1 << 7,          // 4 bytes: R_Key to invalidate
};
inline constexpr uint32_t kRethLen = 16;
inline constexpr uint32_t kAethLen = 4;
inline constexpr uint32_t kDethLen = 8;
inline constexpr uint32_t kRdethLen = 4;
inline constexpr uint32_t kAtomicEthLen = 28;
inline constexpr uint32_t kAtomicAckEthLen = 8;
inline constexpr uint32_t kImmLen = 4;
inline constexpr uint32_t kIethLen = 4;

// Which extension headers (RoceExt bits) packets with this opcode carry.
inline constexpr uint8_t roce_ext_headers(uint8_t opcode) {
  if (opcode >= 0x80) return 0;  // CNP and vendor opcodes
  uint8_t ext = 0;
  switch (opcode & 0xe0) {
    case 0x40:
      ext = kRoceExtRdeth | kRoceExtDeth;
      break;
    case 0x60:
      ext = kRoceExtDeth;
      break;
    default:
      break;
  }
  switch (opcode & 0x1f) {
    case 0x03:
    case 0x05:
    case 0x09:
      ext |= kRoceExtImm;
      break;
    case 0x06:
    case 0x0a:
    case 0x0c:
      ext |= kRoceExtReth;
      break;
    case 0x0b:
      ext |= kRoceExtReth | kRoceExtImm;
      break;
    case 0x0d:
    case 0x0f:
    case 0x10:
    case 0x11:
      ext |= kRoceExtAeth;
      break;
    case 0x12:
      ext |= kRoceExtAeth | kRoceExtAtomicAckEth;
      break;
    case 0x13:
    case 0x14:
      ext |= kRoceExtAtomicEth;
      break;
    case 0x16:
    case 0x17:
      ext |= kRoceExtIeth;
      break;
    default:
      break;
  }
  return ext;
}

// Total bytes of the extension headers between the BTH and the payload.
inline constexpr uint32_t roce_ext_headers_len(uint8_t opcode) {
  uint8_t e = roce_ext_headers(opcode);
  return ((e & kRoceExtRdeth) ? kRdethLen : 0) + ((e & kRoceExtDeth) ? kDethLen : 0) +
         ((e & kRoceExtReth) ? kRethLen : 0) + ((e & kRoceExtAtomicEth) ? kAtomicEthLen : 0) +
         ((e & kRoceExtAeth) ? kAethLen : 0) + ((e & kRoceExtAtomicAckEth) ? kAtomicAckEthLen : 0) +
         ((e & kRoceExtImm) ? kImmLen : 0) + ((e & kRoceExtIeth) ? kIethLen : 0);
}

// What sits in front of the BTH, for the ICRC masks.
enum class IcrcL3 : uint8_t {
  kIpv4,  // RoCEv2: IPv4 header, UDP, BTH
  kIpv6,  // RoCEv2: IPv6 header (+ extension headers, not masked), UDP, BTH
  kGrh,   // RoCEv1: GRH, BTH
};

// The ICRC of a RoCE packet. l3 points at the IPv4/IPv6 header or GRH;
// bth_offset is the BTH's offset from l3 (the UDP header, for RoCEv2, is the
// 8 bytes just before it); len counts the bytes from l3 up to, not including,
// the ICRC, and must be at least bth_offset + 12. Store the result with
// store_le32() after those len bytes.
inline uint32_t roce_icrc(const uint8_t* l3, uint32_t bth_offset, uint32_t len, IcrcL3 kind) {
  uint32_t crc = crc32_update_ones(kCrc32Init, 8);  // the LRH
  uint32_t at;                                      // next byte of l3 to feed
  if (kind == IcrcL3::kIpv4) {
    crc = crc32_update(crc, l3, 1);      // version, IHL
    crc = crc32_update_ones(crc, 1);     // TOS
    crc = crc32_update(crc, l3 + 2, 6);  // total length, id, flags/offset
    crc = crc32_update_ones(crc, 1);     // TTL
    crc = crc32_update(crc, l3 + 9, 1);  // protocol
    crc = crc32_update_ones(crc, 2);     // header checksum
    at = 12;
  } else {
    uint8_t b0 = static_cast<uint8_t>(l3[0] | 0x0f);  // version, traffic class high nibble
    crc = crc32_update(crc, &b0, 1);
    crc = crc32_update_ones(crc, 3);     // traffic class low nibble, flow label
    crc = crc32_update(crc, l3 + 4, 3);  // payload length, next header
    crc = crc32_update_ones(crc, 1);     // hop limit
    at = 8;
  }
  if (kind != IcrcL3::kGrh) {
    crc = crc32_update(crc, l3 + at, bth_offset - 2 - at);  // rest of IP header, UDP to checksum
    crc = crc32_update_ones(crc, 2);                        // UDP checksum
  } else {
    crc = crc32_update(crc, l3 + at, bth_offset - at);
  }
  crc = crc32_update(crc, l3 + bth_offset, kBthResv8aOffset);
  crc = crc32_update_ones(crc, 1);  // resv8a
  at = bth_offset + kBthResv8aOffset + 1;
  crc = crc32_update(crc, l3 + at, len - at);
  return ~crc;
}

}  // namespace rocelb
