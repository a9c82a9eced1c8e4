// The generated 3-tier fat tree form of a topology file, marked by its `k`
// key (configs/fabrics/fat_k*.yaml):
//   k: 4                    even, 2..64: k pods, each k/2 edge and k/2
//                           aggregation switches; (k/2)^2 core switches
//   hosts_per_edge: 4       default k/2 (1:1); k gives 2:1 (ConWeave's and
//                           HPCC's fat_k*_100G_OS2); + k/2 at most 64
//   host_speed: 100G        host links
//   edge_uplink_speed: 100G edge-aggregation links (default host_speed)
//   agg_uplink_speed: 100G  aggregation-core links (default edge_uplink_speed)
//   link_delay: 1us         every link, unless a tier's own key says:
//   host_link_delay, edge_uplink_delay, agg_uplink_delay
//   switch_config: FILE     optional, as the leaf-spine form's
//   nic: {...}              optional, the hosts' NICs (nic_params.h)
// The wiring is ConWeave's config/fat_topology_gen.py's: edge e of pod p
// (edge p*k/2+e) links to every aggregation switch of its pod; aggregation
// a of each pod links to cores a*k/2 .. a*k/2 + k/2 - 1. Names: hosts h0..
// edge by edge, switches edge0.., agg0.., core0..; links are listed hosts
// first, then edge-aggregation, then aggregation-core, so each switch's
// ports are in that order (an edge's host ports 0..H-1, then its uplinks;
// an aggregation's edges, then its cores; a core's pods in order), and the
// same fabric read from the ns-3 file fat_k4_100G_OS2.txt has the same
// ports. Addressing and shortest-path ECMP routes: topology_graph.h (an
// edge spreads other pods' and its pod's other edges' traffic over its
// aggregation switches, an aggregation other pods' over its cores).
// A fat tree is one plane: `planes` (the leaf-spine form's) is refused.
// Errors name the file, the key and the rule. Knobs: the keys above.
// Counters: none.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "dataplane/sim/topology.h"

namespace rocelb {

// `root` is the parsed file (a map with `k`); `base_dir`: where
// switch_config is relative to.
Topology load_fat_tree_topology(const YAML::Node& root, const std::string& source,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides);

}  // namespace rocelb
