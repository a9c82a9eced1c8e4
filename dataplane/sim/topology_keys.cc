#include "dataplane/sim/topology_keys.h"

#include <algorithm>

#include "control/bounded_file.h"
#include "control/config_loader.h"
#include "control/yaml_document.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

// A topology is read once, when a fabric run (or an export) starts.
constexpr KeySpec at_start(KeySpec k) {
  k.applies = Applies::kAtStart;
  return k;
}

// The help texts below say 256.
static_assert(kMaxPorts == 256, "a switch's ports, as the help texts say");

constexpr uint64_t kMinSpeedBps = 1'000'000;
constexpr uint64_t kMaxSpeedBps = 1'600'000'000'000;

constexpr KeySpec kNicRow = at_start(
    {.path = "nic",
     .kind = KeyKind::kMap,
     .help = "every host's RoCE NIC: the keys of the topology's nic map (their own table)"});

// A generated fabric's changes to its base switch config (topology_graph.h).
constexpr KeySpec kSwitchSetRow =
    at_start({.path = "switch_set",
              .kind = KeyKind::kList,
              .help = "changes to the switch config every switch starts from, as --set takes them "
                      "(KEY=VALUE, e.g. 'qos.pfc_enable=[]'); --set still comes after"});
constexpr KeySpec kSwitchSetItemRow = at_start({.path = "switch_set[]",
                                                .kind = KeyKind::kString,
                                                .help = "one change: KEY.PATH=VALUE",
                                                .unit = "KEY=VALUE"});

constexpr KeySpec kGeneratedKeys[] = {
    at_start({.path = "leaves",
              .kind = KeyKind::kUint,
              .help = "leaf switches leaf0..; at most 99: leaf L's hosts are 10.L.0.0/16 and "
                      "spine S's links 10.(100+S).L.0/24",
              .lo = 1,
              .hi = 99,
              .required = true}),
    at_start({.path = "spines",
              .kind = KeyKind::kUint,
              .help = "spine switches spine0..; hosts_per_leaf + spines is at most 256 (the "
                      "ports of a leaf); at most 155 (spine S's links are 10.(100+S).0.0/16)",
              .lo = 1,
              .hi = 155,
              .required = true}),
    at_start({.path = "hosts_per_leaf",
              .kind = KeyKind::kUint,
              .help = "hosts on each leaf, h0.. leaf by leaf",
              .lo = 1,
              .hi = kMaxPorts - 1,
              .required = true}),
    at_start({.path = "host_speed",
              .kind = KeyKind::kSpeed,
              .help = "every host link (as ports[].speed)",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps,
              .required = true}),
    at_start({.path = "uplink_speed",
              .kind = KeyKind::kSpeed,
              .help = "every leaf-spine link",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps,
              .required = true}),
    at_start({.path = "link_delay",
              .kind = KeyKind::kDuration,
              .help = "propagation delay of every link",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs,
              .required = true}),
    at_start({.path = "planes",
              .kind = KeyKind::kUint,
              .help = "copies of the leaf-spine that meet only in the hosts (Alibaba HPN's "
                      "dual-plane): every host has a NIC port per plane, a flow runs on one; "
                      "above 1, switches are named p0-leaf0.., plane p addressed in (10+p)/8",
              .lo = 1,
              .hi = topology_detail::kMaxPlanes,
              .def = "1"}),
    at_start({.path = "switch_config",
              .kind = KeyKind::kString,
              .help = "the config every switch starts from (its QoS, PFC/ECN and "
                      "groups.uplinks settings), relative to the topology file; default: the "
                      "embedded default config",
              .unit = "a file path"}),
    kSwitchSetRow,
    kSwitchSetItemRow,
    kNicRow,
};

constexpr KeySpec kExplicitKeys[] = {
    at_start({.path = "switches",
              .kind = KeyKind::kMapOf,
              .help = "switch name to its config file, relative to the topology file; a switch "
                      "with hosts is a leaf, the others spines",
              .unit = "switch name",
              .required = true}),
    at_start({.path = "switches.*",
              .kind = KeyKind::kOther,
              .help = "one switch: its config file",
              .unit = "a config file path, or {config: FILE}"}),
    at_start({.path = "switches.*.config",
              .kind = KeyKind::kString,
              .help = "the switch's config file",
              .unit = "a file path",
              .required = true}),
    at_start({.path = "links",
              .kind = KeyKind::kList,
              .help = "every switch-to-switch link, a failed one too (state: down)",
              .required = true}),
    at_start({.path = "links[]", .kind = KeyKind::kMap, .help = "one link"}),
    at_start({.path = "links[].a",
              .kind = KeyKind::kOther,
              .help = "one end: a port of a switch's config, not taken by another link or host",
              .unit = "SWITCH:PORT",
              .required = true}),
    at_start({.path = "links[].b",
              .kind = KeyKind::kOther,
              .help = "the other end, on another switch",
              .unit = "SWITCH:PORT",
              .required = true}),
    at_start({.path = "links[].delay",
              .kind = KeyKind::kDuration,
              .help = "propagation delay",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs,
              .required = true}),
    at_start({.path = "links[].speed",
              .kind = KeyKind::kSpeed,
              .help = "optional: if given, the speed both ends' configs already have (a port "
                      "sends at its configured speed)",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps}),
    at_start({.path = "links[].state",
              .kind = KeyKind::kChoice,
              .help = "down: both ends' links are down the whole run",
              .def = "up",
              .choices = "up|down"}),
    at_start({.path = "hosts",
              .kind = KeyKind::kList,
              .help = "every host, at least one",
              .required = true}),
    at_start({.path = "hosts[]", .kind = KeyKind::kMap, .help = "one host"}),
    at_start({.path = "hosts[].name",
              .kind = KeyKind::kName,
              .help = "the host's name, no switch's or other host's",
              .required = true}),
    at_start({.path = "hosts[].at",
              .kind = KeyKind::kOther,
              .help = "the switch port it hangs off: one with an IPv4 subnet (its gateway)",
              .unit = "SWITCH:PORT",
              .required = true}),
    at_start({.path = "hosts[].ip",
              .kind = KeyKind::kOther,
              .help = "in the port's subnet, no switch's own address, a neighbor of the switch "
                      "on that port",
              .unit = "an IPv4 address",
              .required = true}),
    at_start({.path = "hosts[].mac",
              .kind = KeyKind::kOther,
              .help = "the NIC's MAC; default and only value: that neighbor's",
              .unit = "a unicast MAC address"}),
    at_start({.path = "hosts[].delay",
              .kind = KeyKind::kDuration,
              .help = "propagation delay of the host's link (its speed is the switch port's)",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs,
              .required = true}),
    kNicRow,
};

constexpr KeySpec kFatTreeKeys[] = {
    at_start({.path = "k",
              .kind = KeyKind::kUint,
              .help = "a k-ary fat tree (the file's mark): k pods of k/2 edge and k/2 "
                      "aggregation switches, (k/2)^2 cores; even, an aggregation or core switch "
                      "has k ports",
              .lo = 2,
              .hi = kMaxPorts,
              .required = true}),
    at_start({.path = "hosts_per_edge",
              .kind = KeyKind::kUint,
              .help = "hosts on each edge switch, h0.. edge by edge; default k/2 (no "
                      "oversubscription); k gives 2:1, as ConWeave's fat_k*_OS2; plus k/2 is "
                      "at most 256",
              .lo = 1,
              .hi = kMaxPorts - 1}),
    at_start({.path = "host_speed",
              .kind = KeyKind::kSpeed,
              .help = "every host link",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps,
              .required = true}),
    at_start({.path = "edge_uplink_speed",
              .kind = KeyKind::kSpeed,
              .help = "every edge-aggregation link; default host_speed",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps}),
    at_start({.path = "agg_uplink_speed",
              .kind = KeyKind::kSpeed,
              .help = "every aggregation-core link; default edge_uplink_speed",
              .lo = kMinSpeedBps,
              .hi = kMaxSpeedBps}),
    at_start({.path = "link_delay",
              .kind = KeyKind::kDuration,
              .help = "propagation delay of every link a tier key below does not set",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs,
              .required = true}),
    at_start({.path = "host_link_delay",
              .kind = KeyKind::kDuration,
              .help = "host links' delay; default link_delay",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs}),
    at_start({.path = "edge_uplink_delay",
              .kind = KeyKind::kDuration,
              .help = "edge-aggregation links' delay; default link_delay",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs}),
    at_start({.path = "agg_uplink_delay",
              .kind = KeyKind::kDuration,
              .help = "aggregation-core links' delay; default link_delay",
              .lo = 0,
              .hi = topology_detail::kMaxLinkDelayNs}),
    at_start({.path = "switch_config",
              .kind = KeyKind::kString,
              .help = "the config every switch starts from (its QoS, PFC/ECN and "
                      "groups.uplinks settings, every ECMP group's), relative to the topology "
                      "file; default: the embedded default config",
              .unit = "a file path"}),
    kSwitchSetRow,
    kSwitchSetItemRow,
    kNicRow,
};

constexpr KeySchema kGeneratedSchema{"topology", kGeneratedKeys};
constexpr KeySchema kFatTreeSchema{"topology", kFatTreeKeys};
constexpr KeySchema kExplicitSchema{"topology", kExplicitKeys};

}  // namespace

const KeySchema& topology_schema() {
  return kGeneratedSchema;
}

const KeySchema& explicit_topology_schema() {
  return kExplicitSchema;
}

const KeySchema& fat_tree_topology_schema() {
  return kFatTreeSchema;
}

}  // namespace rocelb

namespace rocelb::topology_detail {

KeyReader topology_reader(const KeySchema& schema, const std::string& source) {
  return KeyReader(schema, KeyOrigin{source, {}},
                   [](const std::string& message) { throw TopologyError(message); });
}

std::string read_file(const std::string& path, const char* what) {
  try {
    return read_bounded_file(path, kMaxYamlFileBytes, what);
  } catch (const BoundedFileError& e) {
    throw TopologyError(e.what());
  }
}

YAML::Node parse_document(const std::string& text, const std::string& source, size_t max_nodes) {
  try {
    return load_yaml_document(text, source, max_nodes);
  } catch (const YamlDocumentError& e) {
    throw TopologyError(e.what());
  }
}

bool is_nic_override(const std::string& o) {
  return o.compare(0, 3, "nic") == 0 && (o.size() == 3 || o[3] == '.' || o[3] == '=');
}

bool is_group_override(const std::string& o) {
  return o.compare(0, 6, "groups") == 0 &&
         (o.size() == 6 || o[6] == '.' || o[6] == '=' || o[6] == '[');
}

std::vector<std::vector<std::string>> split_overrides(const std::vector<std::string>& overrides,
                                                      const std::vector<FabricSwitch>& switches,
                                                      const std::vector<bool>& has_groups,
                                                      const std::string& source) {
  std::vector<std::vector<std::string>> out(switches.size());
  for (const std::string& o : overrides) {
    // "NAME:KEY=VALUE"; a colon after the '=' belongs to the value (a MAC).
    const size_t eq = o.find('=');
    const size_t colon = o.find(':');
    if (colon != std::string::npos && (eq == std::string::npos || colon < eq)) {
      const std::string name = o.substr(0, colon);
      auto it = std::find_if(switches.begin(), switches.end(),
                             [&](const FabricSwitch& s) { return s.name == name; });
      if (it == switches.end())
        throw TopologyError(source + ": --set " + o + ": no such switch " + quote(name) +
                            " (switches: " + switches.front().name + ".." + switches.back().name +
                            ")");
      out[size_t(it - switches.begin())].push_back(o.substr(colon + 1));
      continue;
    }
    if (is_nic_override(o)) continue;  // the NICs': nic_params()
    const bool group_key = is_group_override(o);
    for (size_t i = 0; i < switches.size(); ++i)
      if (!(group_key && !has_groups[i])) out[i].push_back(o);
  }
  return out;
}

NicParams nic_params(const YAML::Node& root, const std::vector<std::string>& overrides,
                     const std::string& source, std::string* yaml_out) {
  YAML::Node doc(YAML::NodeType::Map);
  doc["nic"] = root["nic"] ? YAML::Clone(root["nic"]) : YAML::Node(YAML::NodeType::Map);
  KeyOrigin origin{source, {}};
  for (const std::string& o : overrides) {
    if (!is_nic_override(o)) continue;
    try {
      origin.overrides.push_back(apply_override(doc, o));
    } catch (const ConfigError& e) {
      throw TopologyError(source + ": " + e.what());
    }
  }
  if (yaml_out) *yaml_out = YAML::Dump(doc["nic"]);
  try {
    return load_nic_params(doc["nic"], origin);
  } catch (const NicParamsError& e) {
    throw TopologyError(e.what());
  }
}

void load_switch(FabricSwitch& sw, const YAML::Node& doc, const std::string& source) {
  sw.config_yaml = YAML::Dump(doc) + "\n";
  try {
    sw.params = load_config_node(doc, source + ": " + sw.name, sw.overrides);
  } catch (const ConfigError& e) {
    // The loader names its source in file errors, not in --set ones.
    const std::string where = source + ": " + sw.name;
    const std::string why = e.what();
    throw TopologyError(why.rfind(where, 0) == 0 ? why : where + ": " + why);
  }
}

}  // namespace rocelb::topology_detail
