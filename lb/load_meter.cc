#include "lb/load_meter.h"

namespace rocelb {

bool LoadMeter::fold(uint64_t now_ns) {
  const uint64_t elapsed = now_ns - last_ns_;
  const uint64_t steps = elapsed / interval_ns_;
  const unsigned __int128 bits_ns = static_cast<unsigned __int128>(bytes_) * 8 * 1'000'000'000ull;
  const unsigned __int128 r128 = bits_ns / elapsed;
  const uint64_t rate = r128 > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(r128);
  bytes_ = 0;
  last_ns_ = now_ns;
  if (steps > 64) {
    load_bps_ = rate;
    return true;
  }
  __int128 load = load_bps_;
  for (uint64_t s = 0; s < steps; ++s) {
    const __int128 diff = static_cast<__int128>(rate) - load;
    load += (diff * alpha_q16_) >> 16;  // arithmetic shift: floor
  }
  load_bps_ = static_cast<uint64_t>(load);
  return true;
}

}  // namespace rocelb
