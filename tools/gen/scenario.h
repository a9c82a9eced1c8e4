// A traffic scenario for rocelb-gen: RoCEv2 flows entering the switch's ports,
// parsed from YAML and validated against a switch config (which port exists,
// which MAC the switch and the hosts have). Every key is a row of
// scenario_schema() (scenario_keys.cc: kind, range, default, help), read by
// the rules of every rocelb file (control/key_reader.h: integers decimal or
// 0x hex, units, UTF-8, no key twice, an unknown key refused with the
// nearest known one). Broken rules throw ScenarioError with one line naming
// the source, the key path, the value and the rule, e.g.
//   scenario.yaml: flows[1].rate: "12X": not a speed (expected e.g. 100G, ...)
//
// Schema (defaults in brackets):
//   base_time  pcap time of t=0, a duration since the epoch [1767225600s]
//   seed       seeds std::mt19937_64 for random choices [1]
//   flows      non-empty list of at most kMaxScenarioFlows:
//     name     label [flow<i>];  in_port  switch port (required)
//     src, dst IPv4 or IPv6 of one family (required)
//     sport    UDP source port or "random" [49152];  dest_qp [0x11];  src_qp
//     dscp [26];  ecn not_ect|ect0|ect1|ce [ect0]
//     pcp      802.1Q priority (tags the frames; VID 0 unless vlan is given)
//     vlan     802.1Q VID 0..4094 (tags the frames; PCP 0 unless pcp is given)
//     op       write|send|read_request|read_response [write]: RDMA WRITE or
//              SEND packets; read_request: one RDMA READ Request per message
//              (RETH DMA length = message, no payload); read_response: the
//              READ Response packets carrying the message
//     message [64KiB];  messages [1]
//     mtu 256|512|1024|2048|4096 [1024];  rate [100G];  start [0];  gap [0]
//     copies [1] (copy k: sport+k, dest_qp+k, src_qp+k);  psn [0]
//   pfc        optional list of PFC (802.1Qbb) frame sources, e.g. a NIC
//              stuck pausing the switch:
//     name     label [pfc<i>];  in_port  switch port the frames enter (required)
//     priorities  list of priorities 0..7 the frames pause [[3]]
//     quanta   pause time of each listed priority, 0..65535 (0 = XON) [65535]
//     start [0];  interval  time between frames, 1ns.. [100us];  count [1]
//     (source MAC: the configured neighbor on in_port, else
//     02:00:00:00:ff:<in_port>)
// A scenario file is one YAML document, read through control/bounded_file.h
// (a regular file of at most 16 MiB) and control/yaml_document.h (at most
// 2 M YAML nodes, no key twice); it makes at most 100 000 000 packets.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "control/config_params.h"
#include "control/key_schema.h"
#include "control/net_types.h"

namespace rocelb {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr uint64_t kDefaultBaseTimeNs = 1'767'225'600ull * 1'000'000'000ull;  // 2026-01-01
inline constexpr uint64_t kDefaultScenarioSeed = 1;
// Flows in one scenario: what a 16 MiB file of preset flows holds (about
// 200 bytes each), and about 600 MB of YAML nodes while it loads.
inline constexpr uint64_t kMaxScenarioFlows = 50'000;
// Frames of one PFC source (pfc[].count).
inline constexpr uint64_t kMaxPfcFrames = 10'000'000;
// A message: IBA allows at most 2^31 bytes.
inline constexpr uint64_t kMaxMessageBytes = 1ull << 31;
inline constexpr uint64_t kMaxMessages = 1'000'000;  // per copy of a flow
inline constexpr uint64_t kMaxCopies = 4096;
// base_time: pcap seconds are 32-bit (year 2096).
inline constexpr uint64_t kMaxBaseTimeNs = 4'000'000'000ull * 1'000'000'000ull;
// Every frame of a scenario is sent within 30 days of t=0.
inline constexpr uint64_t kMaxScenarioNs = 30ull * 86400 * 1'000'000'000ull;

enum class RoceOp : uint8_t { kWrite, kSend, kReadRequest, kReadResponse };

struct FlowParams {
  std::string name;      // "flow<i>" when not given
  uint16_t in_port = 0;  // switch port the frames enter
  IpAddr src;
  IpAddr dst;
  uint16_t sport = 49152;  // resolved: "random" is drawn at load time
  bool random_sport = false;
  uint32_t dest_qp = 0x11;
  uint32_t src_qp = 0;  // informational only
  uint8_t dscp = 26;
  uint8_t ecn = 2;  // 0 not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
  std::optional<uint8_t> pcp;
  std::optional<uint16_t> vlan;  // VID
  RoceOp op = RoceOp::kWrite;
  uint64_t message_bytes = 65536;
  uint32_t messages = 1;
  uint32_t mtu = 1024;
  uint64_t rate_bps = 100'000'000'000ull;
  uint64_t start_ns = 0;
  uint64_t gap_ns = 0;
  uint32_t copies = 1;
  uint32_t psn = 0;

  // Resolved from the switch config.
  MacAddr dst_mac;  // the switch port's MAC
  MacAddr src_mac;  // the neighbor MAC of src on in_port, else 02:00:00:00:ff:<in_port>

  uint64_t packets_per_message() const {
    return op == RoceOp::kReadRequest ? 1 : (message_bytes + mtu - 1) / mtu;
  }
  // Packets of one copy.
  uint64_t packets() const { return packets_per_message() * messages; }
};

// A port that sends PFC frames into the switch: count frames, one every
// interval from start.
struct PfcSourceParams {
  std::string name;  // "pfc<i>" when not given
  uint16_t in_port = 0;
  uint8_t class_enable = 1u << 3;  // bit p: priority p
  uint16_t quanta = 65535;
  uint64_t start_ns = 0;
  uint64_t interval_ns = 100'000;
  uint64_t count = 1;
  MacAddr src_mac;  // resolved: the neighbor on in_port, else 02:00:00:00:ff:<in_port>
};

struct ScenarioParams {
  std::string source;
  uint64_t base_time_ns = kDefaultBaseTimeNs;
  uint64_t seed = kDefaultScenarioSeed;
  std::vector<FlowParams> flows;
  std::vector<PfcSourceParams> pfc;

  // Ports that have at least one flow or PFC source entering them, ascending.
  std::vector<uint16_t> ports() const;
  // Frames the whole scenario produces.
  uint64_t total_packets() const;
};

// The rows of a scenario's keys.
const KeySchema& scenario_schema();

// seed_override (rocelb-gen --seed) replaces the scenario's seed before any
// random choice is drawn.
ScenarioParams load_scenario_text(const std::string& yaml_text, const std::string& source_name,
                                  const ConfigParams& config,
                                  std::optional<uint64_t> seed_override = std::nullopt);
ScenarioParams load_scenario_file(const std::string& path, const ConfigParams& config,
                                  std::optional<uint64_t> seed_override = std::nullopt);

}  // namespace rocelb
