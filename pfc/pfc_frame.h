// PFC and PAUSE frames for pfc/: the frame layout is common/mac_control_frame.h
// (included here; encode and decode are dataplane/wire/mac_control.h); this
// adds pause times between quanta and nanoseconds at a link speed. Pure
// C++, no DPDK, no knobs, no counters.
#pragma once

#include <cstdint>

#include "common/mac_control_frame.h"

namespace rocelb {

inline constexpr uint32_t kPauseQuantumBits = 512;

// Pause time of `quanta` at a port speed in bits per second, in nanoseconds:
// quanta * 512 / speed, rounded up so a paused sender never resumes early.
// 65535 quanta at 100 Gb/s = 335539.2 ns -> 335540. Speed 0 gives 0.
uint64_t pause_quanta_to_ns(uint16_t quanta, uint64_t speed_bps);

// The quanta covering ns at that speed, rounded up and capped at 65535.
// Speed 0 gives 0.
uint16_t pause_ns_to_quanta(uint64_t ns, uint64_t speed_bps);

}  // namespace rocelb
