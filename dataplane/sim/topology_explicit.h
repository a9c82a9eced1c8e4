// The explicit topology form, for custom and asymmetric fabrics: every
// switch with its own config file, every link and host listed.
//
//   switches:                 name -> config file (relative to this file),
//     leaf0: leaf0.yaml         or {config: FILE}; a switch with hosts is a
//     spine0: {config: s.yaml}  leaf, the others spines (for inter_leaf
//                               workloads and groups.* overrides: a switch
//                               whose config has no groups skips them)
//   links:
//     - {a: leaf0:4, b: spine0:0, delay: 1us}           both ports in their
//     - {a: leaf0:5, b: spine1:0, delay: 5us, state: down}  configs, at one
//                               configured speed; speed optional and, if
//                               given, equal to it; state up|down (down:
//                               both ends' links are down all run)
//   hosts:
//     - {name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}   the port has an
//                               IPv4 subnet (the host's gateway: its MAC and
//                               address), ip lies in it, is no switch port's
//                               own address, and is a neighbor of the
//                               switch on that port; mac optional (default:
//                               that neighbor's; another is refused);
//                               speed: the switch port's
//   nic: {...}                the hosts' NICs (nic_params.h)
//
// A port takes one link or one host, and every port a route leaves by (a
// `via` neighbor's, a group member's, a `port` route's) needs one: a failed
// link is listed with state: down, not left out. Names: switches and hosts
// are [A-Za-z0-9_.-], 1..64 characters, none twice. Files: the topology and
// each switch config are regular files of at most 16 MiB, no key twice
// (control/bounded_file.h, control/yaml_document.h); each switch's YAML is
// loaded, validated and dropped in turn. Errors name the file, the key path
// (links[2].b, switches.leaf0: routes[0]) and the rule. Knobs and
// counters: none.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "dataplane/sim/topology.h"

namespace rocelb {

Topology load_explicit_topology(const YAML::Node& root, const std::string& source,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides);

// Any topology (a generated one, say) in the explicit form, to edit: the
// files `fabric.yaml` and `<switch>.yaml` (each switch's config with its
// overrides applied; comments are not kept), as (name, text) pairs.
// Loading fabric.yaml again gives the same switches, links and hosts. A
// fabric of more than one plane (a host with a port per plane) has no
// explicit form: a TopologyError.
std::vector<std::pair<std::string, std::string>> export_explicit_topology(const Topology& t);

}  // namespace rocelb
