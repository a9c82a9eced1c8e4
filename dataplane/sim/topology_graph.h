// Any fabric given as a graph — hosts, switches and the links between them —
// turned into a Topology: one generated, validated rocelb config per switch
// with addressing and shortest-path ECMP routes, as ns-3's global routing
// computes them in HPCC's and ConWeave's simulators (every neighbour on a
// shortest hop-count path to the destination is a next hop). Used by the
// fat-tree form (fat_tree.cc) and the ns-3 topology reader (ns3_topology.h).
//
// Ports: a switch's links take ports 0, 1, .. in link order (as ns-3 numbers
// a node's devices), at most kMaxPorts. A host has exactly one link, to a
// switch (one NIC port); a switch has at least one link.
// Addressing (IPv4), with l the switch's place among the switches that have
// hosts, s its place among all switches, k the link's among switch links:
//   switch l's hosts        10.(l/256).(l%256).0/24, the host on port p in
//                           10.(l/256).(l%256).(4p)/30: gateway .4p+1, host
//                           .4p+2, MAC 02:0a:HH:HH:HH:02 (HH: the host's index)
//   switch link k           172.16.0.0/12 + 4k, a /30: end a .1, end b .2
//   switch MACs             02:01:SS:SS:00:PP (SS: s, PP: the port)
// Routes: at every switch, the /24 of each other switch with hosts, `via`
// the one neighbour on its shortest paths or to a group of all of them
// (members in port order). A switch's groups are named by first use:
// `uplinks`, then `uplinks1`, `uplinks2`, ..; each takes the base config's
// groups.uplinks settings (mode, hash fields, ..) with its own members.
// Knobs: none (the base config, the NIC). Counters: none.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "control/key_reader.h"
#include "dataplane/sim/topology.h"

namespace rocelb {

struct GraphNode {
  std::string name;
  bool is_switch = false;
  std::string where;  // for errors: "FILE:LINE" or "FILE: key"
};

struct GraphLink {
  uint32_t a = 0, b = 0;  // node indices
  uint64_t speed_bps = 0;
  uint64_t delay_ns = 0;
  std::string where;  // for errors: "FILE:LINE" or "FILE: key"
};

struct FabricGraph {
  std::vector<GraphNode> nodes;
  std::vector<GraphLink> links;
};

// The Topology of `g`: switches in node order (role kLeaf when it has
// hosts, else kSpine), hosts in node order. `base` is the config every
// switch starts from (its switch, control, limits, qos sections and
// groups.uplinks settings); `overrides` are the --set lines (nic.* ones are
// already in `nic`). Errors (TopologyError) name the node's or link's
// `where` and the rule.
Topology build_graph_topology(const FabricGraph& g, const YAML::Node& base, const NicParams& nic,
                              const std::string& nic_yaml,
                              const std::vector<std::string>& overrides, const std::string& source);

// The switch config every generated fabric starts from: `switch_config`
// (relative to `base_dir`) if not empty, else the embedded default.
// `fail(why)` reports a file that cannot be read or is not a config map.
YAML::Node load_base_switch_config(const std::string& switch_config, const std::string& base_dir,
                                   const std::function<void(const std::string&)>& fail);

// The topology file's `switch_set` list: KEY=VALUE changes (the syntax of
// --set) to that base config, so every switch starts from it changed (a
// preset that differs from a switch config in a few keys need not copy
// it); --set on the command line still comes after. A malformed entry
// fails with "SOURCE: switch_set[i] KEY=VALUE: why"; a value the config's
// rules refuse fails when the switches load, naming the key path.
void apply_switch_set(YAML::Node& base, const KeyReader::Map& top, const std::string& source);

}  // namespace rocelb
