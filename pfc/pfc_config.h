// The PFC knobs as the hot path reads them: built once from PfcParams and
// the port speeds when a config is published (tier two of Params → Config →
// State), immutable afterwards, and passed to every PfcGenerator call. A new
// config is a new PfcConfig in a new epoch; nothing here changes under a
// running worker.
//
// Precomputed per port: the PG headroom (PfcParams::headroom_bytes, or when
// that is 0 headroom_for(port speed, cable, response delay, max frame)) and
// the XOFF refresh interval, half the pause the peer honours at the port's
// speed (0: nothing to refresh, speed unknown).
//
// Knobs: those of PfcParams (pfc_params.h) and max_frame_bytes. No counters.
#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "common/constants.h"
#include "pfc/pfc_params.h"

namespace rocelb {

struct PfcConfig {
  static constexpr uint32_t kDefaultMaxFrameBytes = 9216;
  static constexpr uint64_t kCableNsPerMeter = 5;
  static constexpr uint64_t kPfcFrameWireBytes = 84;  // 64-byte frame + preamble/SFD + IFG

  uint8_t enable_mask = 0;  // lossless priorities (pfc_enable)
  bool dynamic = false;
  uint64_t xoff_bytes = 0;
  uint64_t xon_bytes = 0;
  int8_t dynamic_th = 0;
  uint64_t xon_offset_bytes = 0;
  uint64_t shared_buffer_bytes = 0;
  uint16_t pause_quanta = 0;
  bool refresh_on_arrival = false;  // qos.pfc.refresh: on_arrival (PfcGenerator::poll)
  bool admit_by_pool = false;       // qos.pfc.admission: shared_pool
  // shared_pool: the shared buffer less every port's headroom (ns-3's
  // m_buffer_cell_limit_sp); lossless packets past their PG's limit are
  // refused only once the lossless bytes held reach it.
  uint64_t pool_limit_bytes = 0;
  std::array<uint64_t, kMaxPorts> headroom_bytes{};  // per ingress port (one PG per priority)
  std::array<uint64_t, kMaxPorts> refresh_ns{};      // per port: half the honoured pause
  std::array<uint64_t, kMaxPorts> pause_ns{};        // per port: the honoured pause

  // port_speed_bps[i] is port i's speed (0 for ports that do not exist).
  static PfcConfig build(const PfcParams& params, std::span<const uint64_t> port_speed_bps,
                         uint32_t max_frame_bytes = kDefaultMaxFrameBytes);

  // The headroom of one PG, in bytes:
  //   ceil(speed × (2 × 5 ns/m × cable + response_delay) / 8e9)   cable both ways + reaction
  //   + 2 × (max_frame + 20)   one max frame in flight each way
  //   + 84                     the PFC frame itself on the wire
  //   + max_frame              the arrival that crossed XOFF
  static uint64_t headroom_for(uint64_t speed_bps, uint32_t cable_length_m,
                               uint64_t response_delay_ns, uint32_t max_frame_bytes);

  bool lossless(uint8_t prio) const { return prio < kPfcPriorities && (enable_mask >> prio) & 1; }
};

}  // namespace rocelb
