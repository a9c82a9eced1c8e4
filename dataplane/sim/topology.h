// A leaf-spine fabric for closed-loop experiments: its switches (each a full,
// validated rocelb config), its hosts and the links between them. Loaded from
// the explicit form (a file with `switches`, `links` and `hosts`:
// topology_explicit.h) or the generated form (configs/fabrics/*.yaml), whose
// top-level keys are
//   leaves: 2             1..99
//   spines: 2             1..99, and hosts_per_leaf + spines <= 64 (ports per switch)
//   hosts_per_leaf: 4     1..64
//   host_speed: 100G      every host link (1M..1.6T, as ports[].speed)
//   uplink_speed: 100G    every leaf-spine link
//   link_delay: 1us       propagation delay of every link (0..1s)
//   switch_config: FILE   optional: the config every switch starts from (its
//                         QoS, PFC/ECN and groups.uplinks settings; relative
//                         to the topology file); default: the embedded default
//   nic: {...}            optional: the hosts' RoCE NIC knobs (nic_params.h);
//                         every port's mtu fits the NIC's (max(1500, mtu + 64)
//                         bytes of IP packet)
//   planes: 1             1..8: that many copies of the leaf-spine (leaves and
//                         spines per plane as given), meeting only in the
//                         hosts: every host has one NIC port per plane, port p
//                         cabled to plane p's leaf (Alibaba HPN's dual-plane)
// Names: switches leaf0.., spine0..; hosts h0.. leaf by leaf (h0..h7 on leaf0
// when hosts_per_leaf is 8). With planes > 1 every switch name says its
// plane: p0-leaf0.., p1-leaf0.., then p0-spine0.., p1-spine0.. (leaves of
// every plane first, then spines); hosts keep h0.., and a host's port on
// plane p is named h3.p where one port is meant (h3 is plane 0's: links.csv,
// --capture). Generated addressing (IPv4), for plane p (0 with one plane):
//   host i of leaf l         (10+p).l.i.2/24, MAC 02:0p:0a:LL:II:02; leaf l's
//                            port i is (10+p).l.i.1/24, its gateway
//   leaf l port (H + s)      (10+p).(100+s).l.1/24 <-> spine s port l:
//                            (10+p).(100+s).l.2/24
//   switch MACs              leaf 02:0p:01:LL:00:PP, spine 02:0p:02:SS:00:PP
//   leaf routes              0.0.0.0/0 to group `uplinks` (its spine neighbours)
//   spine routes             (10+p).l.0.0/16 via leaf l
// so each plane has its own /8 (10/8 for plane 0, 11/8 for plane 1, ..): no
// address, MAC or route of one plane names another. A flow (one QP) runs on
// one plane end to end, from its sender's port p to its receiver's port p
// (flow_plane.h says which p).
// Overrides ("--set"): "KEY.PATH=VALUE" goes to every switch (spines, which
// have no group, skip groups.*), "NAME:KEY.PATH=VALUE" to switch NAME only,
// "nic.KEY.PATH=VALUE" to every host's NIC.
// Files are regular files of at most 16 MiB, one YAML document of at most
// 2 M nodes (3 M for a switch_config), no key twice (control/bounded_file.h,
// control/yaml_document.h). Each key is a row of topology_schema() or
// explicit_topology_schema() and is read by the rules of every rocelb file
// (control/key_reader.h: integers decimal or 0x hex, UTF-8, an unknown key
// refused with the nearest known one). Errors (TopologyError) name the
// file, the key path and the rule; a nic.* value a --set made names the
// --set ("--set nic.mtu=1000: nic.mtu: ..."); a switch config the loader
// refuses names the switch ("fabric.yaml: leaf0: ...").
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "control/config_params.h"
#include "control/key_schema.h"
#include "control/net_types.h"
#include "dataplane/sim/nic_params.h"

namespace rocelb {

class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

enum class SwitchRole : uint8_t { kLeaf, kSpine };

struct FabricSwitch {
  std::string name;
  SwitchRole role = SwitchRole::kLeaf;
  std::string config_yaml;             // its generated config, before overrides
  std::vector<std::string> overrides;  // the --set lines that apply to it
  ConfigParams params;                 // config_yaml + overrides, validated
};

// A host's NIC port: the host's only one, or (planes > 1) its port on one
// plane.
struct FabricHost {
  std::string name;  // the host's: h0, h1, ... (the same on every plane)
  uint32_t plane = 0;
  uint32_t sw = 0;  // the leaf it hangs off (index in Topology::switches)
  uint16_t port = 0;
  IpAddr ip;
  MacAddr mac;
  IpAddr gateway;  // the leaf port's address
  MacAddr gateway_mac;
  uint64_t speed_bps = 0;
  uint64_t delay_ns = 0;
};

// A switch-to-switch link; both ends have the same speed and delay.
struct FabricLink {
  uint32_t a_sw = 0, b_sw = 0;
  uint16_t a_port = 0, b_port = 0;
  uint64_t speed_bps = 0;
  uint64_t delay_ns = 0;
  bool up = true;  // explicit form's `state: down`: both ends down all run
};

struct Topology {
  std::string source;
  // leaves: switches with hosts; with planes > 1 leaves and spines count
  // one plane's (every plane has as many).
  uint32_t leaves = 0, spines = 0, hosts_per_leaf = 0;
  uint32_t planes = 1;
  // Of the switches with hosts, the largest (host link bandwidth / switch
  // link bandwidth); 0 where not computed (the explicit form: the workload
  // takes hosts_per_leaf × host speed / (spines × first link's speed)).
  double oversubscription = 0;
  std::vector<FabricSwitch> switches;  // leaves first, then spines
  // One per host, what workloads name: its (plane 0) NIC port.
  std::vector<FabricHost> hosts;
  // planes > 1: the hosts' ports on planes 1.., plane by plane (host i's
  // port on plane p at (p - 1) * hosts.size() + i); else empty.
  std::vector<FabricHost> plane_ports;
  std::vector<FabricLink> links;
  NicParams nic;         // every host's NIC
  std::string nic_yaml;  // the `nic` map those came from, overrides applied

  std::optional<uint32_t> switch_index(std::string_view name) const;
  std::optional<uint32_t> host_index(std::string_view name) const;

  // Every NIC port, numbered plane by plane: host i's port on plane p is
  // p * hosts.size() + i (so ports 0.. are `hosts`).
  size_t port_count() const { return hosts.size() + plane_ports.size(); }
  const FabricHost& port(size_t k) const {
    return k < hosts.size() ? hosts[k] : plane_ports.at(k - hosts.size());
  }
  uint32_t port_of(uint32_t host, uint32_t plane) const {
    return plane * static_cast<uint32_t>(hosts.size()) + host;
  }
  // A port's name: the host's on plane 0 ("h3"), "h3.1" on plane 1.
  std::string port_name(size_t k) const;
  // The port a name names: a host ("h3": its plane-0 port) or HOST.PLANE
  // with a plane of this topology ("h3.1").
  std::optional<uint32_t> port_index(std::string_view name) const;
  // A host's bandwidth: the speeds of its ports summed.
  uint64_t host_bps(uint32_t host) const;
};

// The rows of the generated form's keys and of the explicit form's
// (topology_keys.cc); the `nic` map's are nic_schema().
const KeySchema& topology_schema();
const KeySchema& explicit_topology_schema();
const KeySchema& fat_tree_topology_schema();

// `base_dir`: where switch_config paths are relative to.
Topology load_topology_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir,
                            const std::vector<std::string>& overrides = {});
Topology load_topology_file(const std::string& path,
                            const std::vector<std::string>& overrides = {});

}  // namespace rocelb
