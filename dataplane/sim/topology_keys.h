// What the two topology forms share (topology.cc: generated leaf-spine;
// topology_explicit.cc: switches, links and hosts listed): their key tables
// (topology_schema(), explicit_topology_schema(), declared in topology.h;
// nic_params.h has the `nic` map's), a reader of a topology file by those
// rows (control/key_reader.h: "FILE: KEY: rule", thrown as TopologyError),
// reading a file (bounded: control/bounded_file.h, control/yaml_document.h),
// routing --set lines to switches and NICs, loading one switch's config.
// Internal to rocelb_sim. Knobs: none. Counters: none.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "control/key_reader.h"
#include "control/yaml_document.h"
#include "dataplane/sim/topology.h"

namespace rocelb::topology_detail {

inline constexpr uint64_t kMaxLinkDelayNs = 1'000'000'000;
// The most planes of a generated leaf-spine (topology.h `planes`).
inline constexpr uint32_t kMaxPlanes = 8;

// A reader of the topology file `source` by `schema`'s rows; its errors are
// TopologyErrors.
KeyReader topology_reader(const KeySchema& schema, const std::string& source);

// A file a topology names (the topology itself, a switch config) as text:
// a regular file of at most kMaxYamlFileBytes, else a TopologyError
// "cannot read WHAT "PATH": why".
std::string read_file(const std::string& path, const char* what);

// The one YAML document of `text` (control/yaml_document.h: at most
// `max_nodes`), else a TopologyError naming `source`.
YAML::Node parse_document(const std::string& text, const std::string& source,
                          size_t max_nodes = kMaxYamlNodes);

// "nic.KEY=VALUE" (or "nic=..."): an override of the hosts' NICs.
bool is_nic_override(const std::string& o);
// "groups...=VALUE": an override that switches without groups skip.
bool is_group_override(const std::string& o);

// The --set lines for each switch, by index: "NAME:KEY=VALUE" for one
// switch; otherwise every switch, except that groups.* skips switches
// without groups (`has_groups`).
std::vector<std::vector<std::string>> split_overrides(const std::vector<std::string>& overrides,
                                                      const std::vector<FabricSwitch>& switches,
                                                      const std::vector<bool>& has_groups,
                                                      const std::string& source);

// The hosts' NIC knobs: the file's `nic` map with the nic.* overrides.
// `yaml_out`, when given, gets the merged `nic:` map as YAML text.
NicParams nic_params(const YAML::Node& root, const std::vector<std::string>& overrides,
                     const std::string& source, std::string* yaml_out = nullptr);

// Fills sw.config_yaml, sw.overrides (given) and sw.params from `doc`;
// a config the loader refuses is a TopologyError naming the switch.
void load_switch(FabricSwitch& sw, const YAML::Node& doc, const std::string& source);

}  // namespace rocelb::topology_detail
