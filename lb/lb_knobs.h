// Knobs of a group's load balancing, as validated from `groups.<name>.*`
// (control/config_loader.cc) and handed to LbEngine. Every knob is accepted
// whatever the mode (a sweep switches modes with one --set); each engine reads
// only its own. Defaults follow Broadcom / SAI DLB where it has the knob.
//
//   idle_time          256us   flowlet gap: a flow idle longer starts a new flowlet
//   sampling_interval  16us    transmit-load EWMA sampling period (LoadMeter)
//   max_flows          4096    flowlet table entries, power of two 64..1M
//   buckets            0       bucket table size, power of two; 0 = the mode's
//                              default (wcmp 4096, resilient 256)
//   quality.load_weight   50   percent of the quality from the load band
//   quality.queue_weight  50   percent from the queue band (the two sum to 100)
//   quality.queue_thresholds   16KB 32KB 64KB 128KB 256KB 512KB 1MB
//   quality.load_thresholds    10 25 40 55 70 80 90 (percent of link speed)
//   quality.depth         port queue depth of the whole port, or of the packet's class
//   quality.load_alpha    0.25 weight of a new sample in the load EWMA
//   drill.d / drill.m     2/1  random samples / remembered best per decision
//   drill.memory       group   what the remembered best is kept for: the
//                              group (DRILL's paper), or each destination
//                              (ConWeave's ns-3: a map by destination IP,
//                              switch-node.cc:122-146) in a table of
//                              max_flows entries; m must be 1
//   control_by_hash    false   RoCE ACK/NAK and CNP frames take the flow hash's
//                              member (ECMP) whatever the mode, as ConWeave's
//                              ns-3 routes control packets (switch-node.cc:
//                              258-262); the balance stage reads it
//   seed                  0    mixed with the switch seed and the lcore into the RNG
//   conweave.*                 mode conweave (lb/conweave_source.h, conweave_dest.h);
//                              defaults are ConWeave's ns-3 module's
//                              (scratch/network-load-balance.cc:72-76):
//     tx_expiry       1ms      a flow idle this long starts a new epoch (and may move)
//     reply_timeout_extra 4us  the RTT reply's deadline past base_rtt
//     base_rtt        4us      the ToR-to-ToR round trip with empty queues
//     path_pause      8us      a path a NOTIFY named is avoided this long
//     voq_flush_extra 32us     added to the predicted tail arrival before a
//                              reorder queue is flushed anyway
//     voq_default_wait 500us   the predicted gap when no phase-0 time is known
//     reply_dscp      48       DSCP of the switch's RTT replies and notifies
//     hold_packets    16384    packets a forwarding core may hold in reorder queues
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "lb/lb_mode.h"

namespace rocelb {

// Where the queue depth of a member comes from; the dataplane honours it when
// it fills MemberPath::queue_bytes.
enum class QueueDepthSource : uint8_t { kPort, kClass };
inline constexpr std::string_view kQueueDepthNames[] = {"port", "class"};

inline constexpr int kQualityBands = 8;  // 0 = best (idle) .. 7 = worst
inline constexpr int kQualityThresholds = kQualityBands - 1;

struct QualityKnobs {
  uint32_t load_weight = 50;   // percent; load_weight + queue_weight == 100
  uint32_t queue_weight = 50;  // percent
  // A metric's band is the number of its thresholds it reaches (v >= t).
  std::array<uint64_t, kQualityThresholds> queue_thresholds{16'000,  32'000,  64'000,   128'000,
                                                            256'000, 512'000, 1'000'000};
  std::array<uint32_t, kQualityThresholds> load_thresholds{10, 25, 40, 55, 70, 80, 90};
  QueueDepthSource depth = QueueDepthSource::kPort;
  uint32_t load_alpha_q16 = 16384;  // EWMA weight of a new sample, in 1/65536 (0.25)
  bool operator==(const QualityKnobs&) const = default;
};

struct DrillKnobs {
  uint32_t d = 2;                // random members sampled per packet
  uint32_t m = 1;                // best members remembered from the previous decision
  bool per_destination = false;  // memory: destination (else group)
  bool operator==(const DrillKnobs&) const = default;
};

struct ConWeaveKnobs {
  uint64_t tx_expiry_ns = 1'000'000;
  uint64_t reply_timeout_extra_ns = 4'000;
  uint64_t base_rtt_ns = 4'000;
  uint64_t path_pause_ns = 8'000;
  uint64_t voq_flush_extra_ns = 32'000;
  uint64_t voq_default_wait_ns = 500'000;
  uint32_t reply_dscp = 48;
  uint32_t hold_packets = 16384;
  bool operator==(const ConWeaveKnobs&) const = default;
};

struct LbKnobs {
  uint64_t idle_time_ns = 256'000;
  uint64_t sampling_interval_ns = 16'000;
  uint32_t max_flows = 4096;
  uint32_t buckets = 0;  // 0: the mode's default
  QualityKnobs quality;
  DrillKnobs drill;
  ConWeaveKnobs conweave;
  bool control_by_hash = false;
  uint64_t seed = 0;
  bool operator==(const LbKnobs&) const = default;
};

// Limits the config loader enforces and LbEngine assumes.
inline constexpr uint32_t kMaxLbMembers = 256;
inline constexpr uint64_t kMinIdleTimeNs = 100;
inline constexpr uint64_t kMaxIdleTimeNs = 1'000'000'000;
inline constexpr uint64_t kMinSamplingIntervalNs = 100;
inline constexpr uint64_t kMaxSamplingIntervalNs = 1'000'000'000;
inline constexpr uint32_t kMinMaxFlows = 64;
inline constexpr uint32_t kMaxMaxFlows = 1u << 20;
inline constexpr uint32_t kMinBuckets = 64;
inline constexpr uint32_t kMaxBuckets = 65536;
inline constexpr uint32_t kMaxResilientBuckets = 4096;
inline constexpr uint32_t kDefaultWcmpBuckets = 4096;
inline constexpr uint32_t kDefaultResilientBuckets = 256;
inline constexpr uint32_t kMaxDrillSamples = 16;
inline constexpr uint32_t kMaxDrillMemory = 16;
// groups.<g>.bpf.validation_steps when not given: how many instruction
// evaluations rte_bpf's validator may spend on a policy (it checks every
// path; dataplane/bpf/bpf_validation_cost.h counts them first): about
// 0.4 s of the control thread here; every example policy needs under 100.
inline constexpr uint64_t kDefaultBpfValidationSteps = 10'000'000;
// At most 10^8: 4 to 11 s of the control thread, all SIGTERM may wait.
inline constexpr uint64_t kMaxBpfValidationSteps = 100'000'000;

// Sizes group_table_bytes counts for mode conweave (checked where the
// structures are declared).
inline constexpr uint64_t kConWeaveSourceEntryBytes = 40;
inline constexpr uint64_t kConWeaveDestEntryBytes = 56;
inline constexpr uint64_t kConWeaveHoldNodeBytes = 16;

// The bucket table size a mode uses (0 for modes without one).
inline uint32_t effective_buckets(LbMode mode, const LbKnobs& k) {
  if (!uses_buckets(mode)) return 0;
  if (k.buckets != 0) return k.buckets;
  return mode == LbMode::kWcmp ? kDefaultWcmpBuckets : kDefaultResilientBuckets;
}

// Bytes of the tables one forwarding worker keeps for a group in `mode`:
// the flowlet table (16 bytes an entry) or the bucket tables (resilient
// keeps a home table beside its live one). Other modes keep a few words.
inline uint64_t group_table_bytes(LbMode mode, const LbKnobs& k) {
  constexpr uint64_t kFlowletEntryBytes = 16;  // FlowletEntry (flowlet_table.h)
  if (uses_flowlets(mode)) return uint64_t{k.max_flows} * kFlowletEntryBytes;
  // ConWeave's source table and destination table (conweave_source.h,
  // conweave_dest.h: 40 and 56 bytes an entry) and its held packets' nodes
  // (16 bytes each).
  if (mode == LbMode::kConWeave)
    return uint64_t{k.max_flows} * (kConWeaveSourceEntryBytes + kConWeaveDestEntryBytes) +
           uint64_t{k.conweave.hold_packets} * kConWeaveHoldNodeBytes;
  const uint64_t buckets = effective_buckets(mode, k);
  return buckets * (mode == LbMode::kResilient ? 4 : 2);
}
// What all groups together may ask of one worker (config_loader.cc refuses
// more, naming the biggest group): 1 GiB. Every worker's copy counts again in
// the whole config's estimate, held to limits.max_memory
// (control/memory_estimate.h).
inline constexpr uint64_t kMaxGroupTableBytes = uint64_t{1} << 30;

inline constexpr bool is_power_of_two(uint64_t v) {
  return v != 0 && (v & (v - 1)) == 0;
}

}  // namespace rocelb
