// Load-balancing modes of a next-hop group (`groups.<name>.mode`), named as
// SAI ARS names them, and the ECMP hash field set (`groups.<name>.hash_fields`).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace rocelb {

enum class LbMode : uint8_t {
  kFixed,  // ECMP: a flow hash picks the member; a flow never moves
};

inline constexpr std::string_view kLbModeNames[] = {"fixed"};

inline std::string_view to_string(LbMode m) {
  return kLbModeNames[static_cast<int>(m)];
}

inline std::optional<LbMode> lb_mode_from_string(std::string_view s) {
  for (size_t i = 0; i < std::size(kLbModeNames); ++i)
    if (kLbModeNames[i] == s) return static_cast<LbMode>(i);
  return std::nullopt;
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
