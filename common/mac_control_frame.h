// The layout of 802.1Qbb priority flow control (PFC) and 802.3x PAUSE
// frames, as data: constants, the two frames' fields and the decoder's
// verdicts. Both floors use it: pfc/ (whose receivers take a PfcFrame) and
// dataplane/wire/ (mac_control.h encodes and decodes the bytes), so neither
// includes the other. Pure C++, no knobs, no counters.
//
// This is the one definition of MAC control frames in rocelb: the parser,
// the packet builder, pfc/ (pfc/pfc_frame.h adds pause-time conversions) and
// the dataplane use these constants.
//
// Frame layout (no FCS; padded with zeros to 60 bytes):
//   0  destination 01:80:C2:00:00:01 (6)
//   6  source MAC (6)
//  12  Ethertype 0x8808, MAC control (2)
//  14  opcode (2): 0x0101 PFC, 0x0001 PAUSE
//  PFC:   16 class-enable vector (2; bit n of the low byte enables priority n)
//         18 eight pause times, priority 0 first (8 x 2)  -> 34 bytes used
//  PAUSE: 16 pause time (2)                               -> 18 bytes used
// A pause time is in quanta of 512 bit times; 0 resumes at once (XON).
// Decoding checks, in order: length for the opcode, Ethertype, opcode,
// destination; it needs the used bytes, not the padding. Pause times of
// classes not enabled are returned as found (receivers ignore them).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "common/constants.h"

namespace rocelb {

inline constexpr std::array<uint8_t, 6> kPfcDstMac = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
inline constexpr uint16_t kPfcEthertype = 0x8808;
inline constexpr uint16_t kPfcOpcode = 0x0101;
inline constexpr uint16_t kPauseOpcode = 0x0001;
inline constexpr size_t kPfcFrameLen = 60;  // encoded size of both kinds
inline constexpr size_t kPfcUsedLen = 34;
inline constexpr size_t kPauseUsedLen = 18;

// The body, from the first byte after the Ethertype (the parser reads frames
// with VLAN tags in front, so it counts from there).
inline constexpr uint32_t kMacControlOpcodeOffset = 0;
inline constexpr uint32_t kPauseQuantaOffset = 2;     // PAUSE: one 16-bit time
inline constexpr uint32_t kPfcClassEnableOffset = 2;  // PFC: 16 bits, low 8 used
inline constexpr uint32_t kPfcQuantaOffset = 4;       // PFC: 8 x 16-bit times
inline constexpr uint32_t kPauseBodyLen = 4;          // opcode + time
inline constexpr uint32_t kPfcBodyLen = 20;           // opcode + vector + 8 times
inline constexpr uint16_t kMaxPauseQuanta = 65535;

struct PfcFrame {
  std::array<uint8_t, 6> src_mac{};
  uint8_t class_enable = 0;
  std::array<uint16_t, kPfcPriorities> quanta{};
};

struct PauseFrame {
  std::array<uint8_t, 6> src_mac{};
  uint16_t quanta = 0;
};

enum class PfcDecodeResult : uint8_t {
  kOk,
  kTooShort,          // fewer bytes than the opcode needs
  kWrongEthertype,    // not 0x8808
  kWrongOpcode,       // not the opcode asked for
  kWrongDestination,  // not 01:80:C2:00:00:01
};
}  // namespace rocelb
