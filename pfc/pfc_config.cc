#include "pfc/pfc_config.h"

#include <algorithm>

#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint64_t kBitsPerNsDen = 8'000'000'000ull;  // bytes = bits/s × ns / 8e9

uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

uint64_t PfcConfig::headroom_for(uint64_t speed_bps, uint32_t cable_length_m,
                                 uint64_t response_delay_ns, uint32_t max_frame_bytes) {
  const unsigned __int128 ns =
      static_cast<unsigned __int128>(2 * kCableNsPerMeter) * cable_length_m + response_delay_ns;
  const unsigned __int128 in_flight = (ns * speed_bps + kBitsPerNsDen - 1) / kBitsPerNsDen;
  const uint64_t frames =
      2 * (uint64_t{max_frame_bytes} + kWireOverheadBytes) + kPfcFrameWireBytes + max_frame_bytes;
  return add_sat(static_cast<uint64_t>(std::min<unsigned __int128>(in_flight, UINT64_MAX)), frames);
}

PfcConfig PfcConfig::build(const PfcParams& params, std::span<const uint64_t> port_speed_bps,
                           uint32_t max_frame_bytes) {
  PfcConfig c;
  c.enable_mask = params.enable_mask;
  c.dynamic = params.dynamic;
  c.xoff_bytes = params.xoff_bytes;
  c.xon_bytes = params.xon_bytes;
  c.dynamic_th = params.dynamic_th;
  c.xon_offset_bytes = params.xon_offset_bytes;
  c.shared_buffer_bytes = params.shared_buffer_bytes;
  c.pause_quanta = params.pause_quanta;
  c.refresh_on_arrival = params.refresh_on_arrival;
  c.admit_by_pool = params.admit_by_pool;
  uint64_t headroom_total = 0;
  for (size_t i = 0; i < port_speed_bps.size() && i < c.headroom_bytes.size(); ++i) {
    const uint64_t speed = port_speed_bps[i];
    c.headroom_bytes[i] =
        params.headroom_bytes != 0
            ? params.headroom_bytes
            : headroom_for(speed, params.cable_length_m, params.response_delay_ns, max_frame_bytes);
    if (speed) headroom_total += c.headroom_bytes[i];
    c.pause_ns[i] = pause_quanta_to_ns(params.pause_quanta, speed);
    c.refresh_ns[i] = c.pause_ns[i] / 2;
  }
  c.pool_limit_bytes =
      params.shared_buffer_bytes > headroom_total ? params.shared_buffer_bytes - headroom_total : 0;
  return c;
}

}  // namespace rocelb
