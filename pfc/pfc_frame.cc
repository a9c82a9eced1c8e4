#include "pfc/pfc_frame.h"

#include <algorithm>

namespace rocelb {
namespace {

constexpr uint64_t kNsPerSec = 1000000000u;

}  // namespace

uint64_t pause_quanta_to_ns(uint16_t quanta, uint64_t speed_bps) {
  if (speed_bps == 0) return 0;
  // Bit times * 1e9 < 2^16 * 2^9 * 2^30: no overflow in 128 bits.
  unsigned __int128 num = static_cast<unsigned __int128>(quanta) * kPauseQuantumBits * kNsPerSec;
  return static_cast<uint64_t>((num + speed_bps - 1) / speed_bps);
}

uint16_t pause_ns_to_quanta(uint64_t ns, uint64_t speed_bps) {
  if (speed_bps == 0) return 0;
  unsigned __int128 num = static_cast<unsigned __int128>(ns) * speed_bps;
  unsigned __int128 den = static_cast<unsigned __int128>(kPauseQuantumBits) * kNsPerSec;
  unsigned __int128 q = (num + den - 1) / den;
  return static_cast<uint16_t>(std::min<unsigned __int128>(q, kMaxPauseQuanta));
}

}  // namespace rocelb
