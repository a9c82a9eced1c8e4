// MAC control frames (Ethertype 0x8808): 802.3x PAUSE (opcode 0x0001, one
// pause time) and 802.1Qbb priority flow control (opcode 0x0101, a
// class-enable vector then eight pause times). Pause times are in quanta of
// 512 bit times. Both go to the reserved multicast 01:80:C2:00:00:01 and are
// padded to the 60-byte minimum frame. pfc/pfc_frame.h encodes and checks
// whole frames; this header gives the layout the parser reads.
#pragma once

#include <cstdint>

#include "dataplane/wire/ethernet.h"

namespace rocelb {

inline constexpr MacBytes kMacControlDstMac = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x01};
inline constexpr uint16_t kMacControlOpPause = 0x0001;
inline constexpr uint16_t kMacControlOpPfc = 0x0101;

// Offsets from the first byte after the Ethertype.
inline constexpr uint32_t kMacControlOpcodeOffset = 0;
inline constexpr uint32_t kPauseQuantaOffset = 2;     // PAUSE: one 16-bit time
inline constexpr uint32_t kPfcClassEnableOffset = 2;  // PFC: 16 bits, low 8 used
inline constexpr uint32_t kPfcQuantaOffset = 4;       // PFC: 8 x 16-bit times
inline constexpr uint32_t kPauseBodyLen = 4;          // opcode + time
inline constexpr uint32_t kPfcBodyLen = 20;           // opcode + vector + 8 times
inline constexpr uint32_t kPfcNumClasses = 8;

}  // namespace rocelb
