// The immutable, precomputed config the dataplane runs on (tier two of
// Params → Config → State): per-port speed, MAC, addresses, scheduler and
// queue limits; the route tables; neighbors; next hops; groups with their
// members' static path state; the QoS maps; and QosConfig, everything the
// hot path needs of PFC, WRED/ECN and the watchdog. Built from validated
// ConfigParams by SwitchConfig::build(); never changed afterwards, so any
// number of lcores read it without locks. The hot path reads only these
// precomputed fields, never `params` (kept for views and for the next build).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "control/config_params.h"
#include "dataplane/forward/neighbor_table.h"
#include "dataplane/forward/route_table.h"
#include "lb/flow_hash.h"
#include "lb/lb_engine.h"
#include "pfc/pfc_config.h"

namespace rocelb {

// Bytes of DWRR credit per unit of weight and round: small, so shares are
// fine-grained (the scheduler skips rounds in which no class can send).
inline constexpr uint32_t kDwrrQuantumPerWeight = 64;
// Traffic class for frames the switch itself originates (ARP replies).
inline constexpr uint8_t kControlTc = 7;

struct PortConfig {
  bool present = false;
  uint16_t id = 0;
  std::string name;
  uint64_t speed_bps = 0;
  uint8_t mac[6] = {};
  bool promiscuous = false;
  bool admin_up = true;  // ports[].admin_status: a down port's group members are down
  uint32_t mtu = 1500;   // ports[].mtu: largest IP packet in or out (its frame: + L2 header)
  bool has_v4 = false;
  uint8_t v4[4] = {};
  bool has_v6 = false;
  uint8_t v6[16] = {};
  uint8_t strict_mask = 0;                             // bit c: class c is strict priority
  std::array<uint32_t, kNumTrafficClasses> quantum{};  // DWRR bytes per round
  std::array<uint64_t, kNumTrafficClasses> queue_limit{};
  std::string device;
  // Transmit-load EWMA of the port (quality modes): the shortest
  // sampling_interval and its alpha among the groups the port is a member of.
  uint64_t load_interval_ns = 16'000;
  uint32_t load_alpha_q16 = 16384;
};

enum class NextHopKind : uint8_t { kNone, kLocal, kConnected, kNeighbor, kGroup };

struct NextHop {
  NextHopKind kind = NextHopKind::kNone;
  uint16_t port = 0;    // kConnected, kNeighbor
  uint8_t mac[6] = {};  // kNeighbor
  uint32_t group = 0;   // kGroup: index into groups
};

struct GroupMember {
  uint16_t port = 0;
  uint8_t mac[6] = {};
  IpAddr via;
  uint32_t weight = 1;
};

struct BpfPolicyFile;  // dataplane/bpf/bpf_policy_loader.h

struct GroupConfig {
  std::string name;
  LbGroupSpec spec;  // mode, hash, weights, knobs, seed: what each lcore's LbEngine is built from
  std::vector<GroupMember> members;
  // Per member, what does not change with traffic: speed and up (admin
  // status). A worker copies it into its scratch and adds depth and load.
  std::vector<MemberPath> paths;
  bool needs_depth = false;       // the mode reads queue depth and load (quality modes, drill)
  bool depth_whole_port = false;  // quality.depth: port (else the packet's class queue)
  // bpf.program as read when it was named, in any mode (null: none named):
  // what spec.bpf is loaded from, now or when the group turns to mode bpf.
  std::shared_ptr<const BpfPolicyFile> policy_file;
};

// What the hot path needs of lossless QoS, precomputed from qos.*.
struct QosConfig {
  PfcConfig pfc;  // lossless mask, thresholds, pause time, headroom per port
  std::array<WredProfile, kNumTrafficClasses> wred{};  // qos.wred.<class>
  bool mark_at_enqueue = true;                         // qos.ecn_mark (else at dequeue)
  WatchdogParams watchdog;                             // qos.pfc_watchdog
  uint64_t seed = 0;  // switch.hash_seed: the WRED markers' seeds derive from it
};

class SwitchConfig {
 public:
  // Throws std::runtime_error if DPDK cannot allocate the route tables.
  // With `previous` whose routes, neighbors, interface addresses and group
  // names are the same, its route tables are shared instead of rebuilt (a
  // config swap that only changes, say, a group's mode costs no LPM rebuild).
  // Mode bpf: a policy is read from its file once, when its group names it
  // (in any mode, so it is read with the rights of the writer that named it),
  // and kept: a later build keeps the bytes `previous` read for a group of
  // the same name and the same bpf.program, and the program it loaded from
  // them while the other bpf.* keys are unchanged (so an unrelated write, a
  // knob of the policy or the group turning to mode bpf neither re-reads the
  // file nor depends on it), unless the group is in `reload` (a write that
  // set its bpf.program: the file is read again). Throws ConfigError naming
  // groups.<g>.bpf.program and where its value came from (params.origin_of)
  // when a policy is refused.
  static std::unique_ptr<SwitchConfig> build(const ConfigParams& params,
                                             const SwitchConfig* previous = nullptr,
                                             const std::vector<std::string>& reload = {});

  const PortConfig* port(uint16_t id) const {
    return id < kMaxPorts && ports[id].present ? &ports[id] : nullptr;
  }

  ConfigParams params;
  std::array<PortConfig, kMaxPorts> ports{};
  std::vector<uint16_t> port_ids;  // present ports, ascending
  std::shared_ptr<const RouteTable> routes;
  NeighborTable neighbors;
  std::vector<NextHop> nexthops;  // index kNoRoute (0) = no route
  std::vector<GroupConfig> groups;
  Trust trust = Trust::kDscp;
  std::array<uint8_t, 64> dscp_to_tc{};
  std::array<uint8_t, 8> pcp_to_tc{};
  uint8_t default_tc = 0;
  QosConfig qos;
  // Mode conweave in any group: the switch also takes ConWeave's header off
  // what it delivers to a connected host, reorders, replies and notifies
  // (stage_conweave.cc), with the knobs every conweave group shares
  // (the config loader checks they agree).
  bool conweave = false;
  ConWeaveKnobs conweave_knobs;
  uint32_t conweave_flows = 0;  // max_flows of the conweave groups
};

}  // namespace rocelb
