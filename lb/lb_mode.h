// Load-balancing modes of a next-hop group (`groups.<name>.mode`), named as
// SAI ARS names them where it has a name, and the ECMP hash field set
// (`groups.<name>.hash_fields`). What each mode does is described next to its
// enum value; the engines live in lb/*_engine.h and are driven by LbEngine.
#pragma once

#include <cstdint>
#include <iterator>
#include <optional>
#include <string_view>

namespace rocelb {

enum class LbMode : uint8_t {
  kFixed,             // ECMP: a flow hash picks the member; a flow never moves
  kWcmp,              // weighted ECMP: the hash picks a bucket of a weighted bucket table
  kResilient,         // resilient hashing: a member going down moves only its own buckets
  kFlowletRandom,     // LetFlow: a new flowlet (gap > idle_time) goes to a random member
  kFlowletQuality,    // DLB: a new flowlet goes to a member of the best quality band
  kPerPacketQuality,  // adaptive routing: every packet to a member of the best band
  kPerPacketRandom,   // spraying: every packet to a uniformly random member
  kDrill,             // DRILL: shortest queue among d random members + m remembered
  kBpf,               // the user's policy, compiled to eBPF (lb/bpf/rocelb_policy.h)
  kConWeave,          // ConWeave: RTT-probed rerouting of a flow, reordered at the far ToR
};

inline constexpr std::string_view kLbModeNames[] = {"fixed",
                                                    "wcmp",
                                                    "resilient",
                                                    "flowlet_random",
                                                    "flowlet_quality",
                                                    "per_packet_quality",
                                                    "per_packet_random",
                                                    "drill",
                                                    "bpf",
                                                    "conweave"};

inline std::string_view to_string(LbMode m) {
  return kLbModeNames[static_cast<int>(m)];
}

inline std::optional<LbMode> lb_mode_from_string(std::string_view s) {
  for (size_t i = 0; i < std::size(kLbModeNames); ++i)
    if (kLbModeNames[i] == s) return static_cast<LbMode>(i);
  return std::nullopt;
}

// Modes that keep per-flow state in a flowlet table (`max_flows`, `idle_time`).
inline constexpr bool uses_flowlets(LbMode m) {
  return m == LbMode::kFlowletRandom || m == LbMode::kFlowletQuality;
}
// Modes that hash into a bucket table (`buckets`).
inline constexpr bool uses_buckets(LbMode m) {
  return m == LbMode::kWcmp || m == LbMode::kResilient;
}
// Modes that read the quality of the paths (load and queue depth).
inline constexpr bool uses_quality(LbMode m) {
  return m == LbMode::kFlowletQuality || m == LbMode::kPerPacketQuality;
}

// Fields of the flow key the ECMP hash covers (bit mask).
enum HashField : uint32_t {
  kHashSrcIp = 1u << 0,
  kHashDstIp = 1u << 1,
  kHashProto = 1u << 2,
  kHashSrcPort = 1u << 3,
  kHashDstPort = 1u << 4,
  kHashDestQp = 1u << 5,
};
inline constexpr uint32_t kHashFiveTuple =
    kHashSrcIp | kHashDstIp | kHashProto | kHashSrcPort | kHashDstPort;

struct HashFieldName {
  std::string_view name;
  HashField field;
};
inline constexpr HashFieldName kHashFieldNames[] = {
    {"src_ip", kHashSrcIp},     {"dst_ip", kHashDstIp},     {"proto", kHashProto},
    {"src_port", kHashSrcPort}, {"dst_port", kHashDstPort}, {"dest_qp", kHashDestQp},
};

}  // namespace rocelb
