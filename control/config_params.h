// What the user wrote, validated: the first of the three config tiers
// (Params → Config → State, see dataplane/README.md). Produced by load_config() in
// config_loader.h; every field here has already passed its rule, so the
// dataplane builds its immutable config from it without further checks.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/constants.h"
#include "control/net_types.h"
#include "lb/lb_knobs.h"
#include "lb/lb_mode.h"
#include "pfc/pfc_params.h"

namespace rocelb {

// Egress scheduler of one port: strict-priority classes are served first
// (highest class number first); the remaining classes share what is left by
// DWRR in proportion to their weights.
struct SchedulerParams {
  std::array<bool, kNumTrafficClasses> strict{};  // qos.scheduler.strict: [6]
  std::array<uint32_t, kNumTrafficClasses> weight{1, 1, 1, 1, 1, 1, 1, 1};  // .weights: {0: 50}
  bool operator==(const SchedulerParams&) const = default;
};

// ports[].xdp_steering, on a net_af_xdp port: which frames rocelb's XDP
// program sends to the switch (dataplane/xdp/README.md). off: DPDK's own
// program, every frame; roce: RoCE, MAC control, neighbor discovery and the
// port's own addresses, the rest to the kernel; all: every frame, counted.
enum class XdpSteeringMode : uint8_t { kOff, kRoce, kAll };
// ports[].link_detect: whether the device's link state (down, up) takes the
// port down and up as admin_status does. auto: yes, except net_tap (whose
// interface, once moved to a host's namespace, reads down) and the devices
// without a link (net_null, net_ring, net_pcap).
enum class LinkDetect : uint8_t { kAuto, kOn, kOff };

struct PortParams {
  uint16_t id = 0;
  std::string name;
  uint64_t speed_bps = 0;  // "100G", "25Gbps", or bits/s
  MacAddr mac;
  std::optional<IpPrefix> ipv4;  // interface address, e.g. 10.0.0.1/24
  std::optional<IpPrefix> ipv6;  // e.g. fd00:0:0::1/64
  std::string device;            // DPDK device for live mode ("net_tap0,iface=x", PCI)
  bool promiscuous = false;
  bool admin_up = true;  // admin_status: up|down; a down port's members are down
  uint32_t mtu = 1500;   // the largest IP packet the port takes in or sends out, bytes
  std::optional<SchedulerParams> scheduler;  // overrides qos.scheduler for this port
  XdpSteeringMode xdp_steering = XdpSteeringMode::kOff;
  LinkDetect link_detect = LinkDetect::kAuto;
  bool operator==(const PortParams&) const = default;
};

// Device kinds the switch treats apart, by the driver name a device string
// starts with ("net_af_xdp0,iface=veth0"): an AF_XDP port gets a pool of its
// own and may steer with XDP; both follow their kernel interface's link.
inline bool is_af_xdp_device(const std::string& device) {
  return device.rfind("net_af_xdp", 0) == 0;
}
inline bool is_af_packet_device(const std::string& device) {
  return device.rfind("net_af_packet", 0) == 0;
}

enum class RouteTarget : uint8_t { kGroup, kPort, kVia };

struct RouteParams {
  IpPrefix prefix;
  RouteTarget target = RouteTarget::kGroup;
  std::string group;  // kGroup: name in groups
  uint16_t port = 0;  // kPort: destination resolved through neighbors on this port
  IpAddr via;         // kVia: one next hop, a configured neighbor
  bool operator==(const RouteParams&) const = default;
};

struct NeighborParams {
  IpAddr ip;
  MacAddr mac;
  uint16_t port = 0;
  bool operator==(const NeighborParams&) const = default;
};

struct GroupMemberParams {
  IpAddr via;           // a configured neighbor: gives the egress port and MAC
  uint32_t weight = 1;  // used by weighted modes
  bool operator==(const GroupMemberParams&) const = default;
};

// groups.<name>.bpf, for mode bpf: the user's policy (lb/bpf/README.md).
struct BpfParams {
  std::string program;  // the ELF object (clang -O2 -target bpf -c policy.c)
  std::string section;  // its policy NAME (section rocelb/NAME); empty: its only one
  bool jit = true;      // false: rte_bpf's interpreter
  // rte_bpf's validator may evaluate at most this many instructions
  // (dataplane/bpf/bpf_validation_cost.h); a policy that needs more is refused.
  uint64_t validation_steps = kDefaultBpfValidationSteps;
  bool operator==(const BpfParams&) const = default;
};

struct GroupParams {
  std::string name;
  std::vector<GroupMemberParams> members;
  LbMode mode = LbMode::kFixed;
  uint32_t hash_fields = kHashFiveTuple;
  // idle_time, sampling_interval, max_flows, buckets, quality {...}, drill {d, m},
  // seed: every knob is accepted whatever the mode; see lb/lb_knobs.h.
  LbKnobs knobs;
  BpfParams bpf;  // mode bpf only
  bool operator==(const GroupParams&) const = default;
};

enum class Trust : uint8_t { kDscp, kPcp };

struct QosParams {
  Trust trust = Trust::kDscp;
  std::array<uint8_t, 64> dscp_to_tc{};  // unlisted DSCP → default_tc
  std::array<uint8_t, 8> pcp_to_tc{};    // unlisted PCP → default_tc
  uint8_t default_tc = 0;
  SchedulerParams scheduler;
  std::array<uint64_t, kNumTrafficClasses> queue_limit_bytes{};  // tail-drop limit
  // PFC (pfc_enable, pfc, buffer), WRED/ECN (wred, ecn_mark) and the PFC
  // watchdog (pfc_watchdog). The config treats PFC priority p and traffic
  // class p as one: pfc_enable: [3] makes class 3 lossless.
  LosslessParams lossless;
  bool operator==(const QosParams&) const = default;
};

struct SwitchParams {
  std::string name = "rocelb";
  uint64_t hash_seed = 0;  // per-switch ECMP seed: two switches in a row don't polarize
  bool operator==(const SwitchParams&) const = default;
};

// The control socket rocelb-dp run serves (control/control-protocol.md).
struct ControlParams {
  std::string socket = "/run/rocelb/rocelb.sock";
  std::string group;  // the socket's group; empty: the group of the user running the switch
  uint32_t max_clients = 16;
  // One uid's connections at most; absent: max_clients - 1 (at least 1), so
  // one user's leaked connections always leave a slot for someone else.
  uint32_t max_clients_per_uid = 15;
  uint64_t client_timeout_ns = 10'000'000'000;  // a request begun or a reply unread: drop it then
  uint64_t idle_timeout_ns = 30'000'000'000;    // a client with nothing pending: close it then
  bool operator==(const ControlParams&) const = default;
};

// What the switch may ask of the machine (control/memory_estimate.h).
struct LimitsParams {
  // The whole config's memory estimate must stay under this: 4 GB unless
  // `limits.max_memory` says otherwise.
  uint64_t max_memory_bytes = 4'000'000'000;
  bool operator==(const LimitsParams&) const = default;
};

struct ConfigParams {
  std::string source;  // file name, for messages
  // Each override (--set, rocelbctl set) applied to the file, in order: the
  // topmost path it created or replaced, and who set what ("--set KEY=VALUE",
  // "rocelbctl set KEY=VALUE").
  std::vector<std::pair<std::string, std::string>> set_by;
  SwitchParams sw;
  ControlParams control;
  LimitsParams limits;
  std::vector<PortParams> ports;  // sorted by id
  std::vector<RouteParams> routes;
  std::vector<NeighborParams> neighbors;
  std::vector<GroupParams> groups;
  QosParams qos;

  // Where `path` (or, failing that, one of `related`) got its value, for a
  // message about it found after validation: "--set KEY=VALUE" (or
  // "rocelbctl set KEY=VALUE") for the last override that wrote it, else the
  // source file.
  std::string origin_of(const std::string& path,
                        const std::vector<std::string>& related = {}) const;
  // The same settings, wherever they came from (source and set_by aside).
  bool same_settings(const ConfigParams& o) const {
    return sw == o.sw && control == o.control && limits == o.limits && ports == o.ports &&
           routes == o.routes && neighbors == o.neighbors && groups == o.groups && qos == o.qos;
  }

  const PortParams* find_port(uint16_t id) const {
    for (const auto& p : ports)
      if (p.id == id) return &p;
    return nullptr;
  }
  const GroupParams* find_group(const std::string& name) const {
    for (const auto& g : groups)
      if (g.name == name) return &g;
    return nullptr;
  }
  const NeighborParams* find_neighbor(const IpAddr& ip) const {
    for (const auto& n : neighbors)
      if (n.ip == ip) return &n;
    return nullptr;
  }
};

}  // namespace rocelb
