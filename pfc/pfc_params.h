// What the user wrote for lossless RoCE, validated (control/config_loader.cc
// fills it from `qos.*`): PFC generation and honouring, the shared buffer and
// per-PG headroom, WRED/ECN profiles per traffic class, where ECN marks, and
// the PFC watchdog. Names follow SONiC (PORT_QOS_MAP pfc_enable,
// BUFFER_PROFILE xon/xoff/dynamic_th, WRED_PROFILE, PFC_WD). Pure data.
#pragma once

#include <array>
#include <cstdint>

#include "common/constants.h"

namespace rocelb {

struct PfcParams {
  uint8_t enable_mask = 1u << 3;   // qos.pfc_enable: lossless priorities (default [3])
  uint16_t pause_quanta = 0xffff;  // qos.pfc.pause_time: quanta of 512 bit times in XOFF frames
  // qos.pfc.refresh: timer (an XOFF re-sent at half its pause time until
  // XON) or on_arrival (re-sent when a packet arrives over XOFF, else left
  // to lapse: HPCC's and ConWeave's ns-3).
  bool refresh_on_arrival = false;
  // qos.pfc.admission: headroom (a lossless PG past its XOFF threshold and
  // its headroom is refused: a switch ASIC's ingress admission) or
  // shared_pool (refused only when the shared buffer left after every
  // port's headroom is used up as well: HPCC's and ConWeave's ns-3,
  // switch-mmu.cc:134-162, where the threshold only sends PFC).
  bool admit_by_pool = false;
  // Thresholds on the bytes one (ingress port, priority) holds in egress
  // queues. Static (xoff/xon in bytes) or dynamic (SONiC dynamic_th: XOFF
  // when held > 2^dynamic_th × free shared buffer; XON xon_offset below it).
  bool dynamic = false;
  uint64_t xoff_bytes = 0;           // qos.pfc.xoff
  uint64_t xon_bytes = 0;            // qos.pfc.xon (static)
  int8_t dynamic_th = 0;             // qos.pfc.dynamic_th, -7..3
  uint64_t xon_offset_bytes = 0;     // qos.pfc.xon_offset (dynamic)
  uint64_t shared_buffer_bytes = 0;  // qos.buffer.shared_size
  // Headroom per PG: absorbs what arrives while the pause travels. Computed
  // from the cable and the peer's response delay at the port's speed when
  // headroom_bytes is 0 (qos.pfc.headroom: auto).
  uint64_t headroom_bytes = 0;        // qos.pfc.headroom
  uint32_t cable_length_m = 100;      // qos.pfc.cable_length
  uint64_t response_delay_ns = 1000;  // qos.pfc.response_delay: the peer's reaction time
  bool operator==(const PfcParams&) const = default;
};

enum class EcnMode : uint8_t { kEcnAll, kEcnNone };  // SONiC WRED_PROFILE ecn: ecn_all | ecn_none
enum class EcnMarkPoint : uint8_t { kEnqueue, kDequeue };

struct WredProfile {
  bool enabled = false;
  uint64_t min_bytes = 0;        // green_min_threshold
  uint64_t max_bytes = 0;        // green_max_threshold
  uint32_t probability_pct = 0;  // green_drop_probability: the probability at max (0..100)
  EcnMode ecn = EcnMode::kEcnAll;
  bool operator==(const WredProfile&) const = default;
};

enum class WatchdogAction : uint8_t { kDrop, kForward, kAlert };

struct WatchdogParams {
  bool enabled = true;
  uint64_t detection_ns = 200'000'000;    // detection_time
  uint64_t restoration_ns = 200'000'000;  // restoration_time
  WatchdogAction action = WatchdogAction::kDrop;
  uint64_t poll_interval_ns = 1'000'000;  // how often queues are checked
  bool operator==(const WatchdogParams&) const = default;
};

struct LosslessParams {
  PfcParams pfc;
  std::array<WredProfile, kPfcPriorities> wred{};  // per traffic class: qos.wred.<tc>
  EcnMarkPoint ecn_mark = EcnMarkPoint::kEnqueue;  // qos.ecn_mark
  WatchdogParams watchdog;                         // qos.pfc_watchdog
  bool operator==(const LosslessParams&) const = default;
};

}  // namespace rocelb
