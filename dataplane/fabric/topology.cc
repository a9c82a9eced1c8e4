#include "dataplane/fabric/topology.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <yaml-cpp/yaml.h>

#include "common/constants.h"
#include "control/config_loader.h"
#include "control/default_config.h"
#include "control/units.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

constexpr uint64_t kMaxLinkDelayNs = 1'000'000'000;
constexpr uint32_t kMaxLeaves = 99;  // host subnets are 10.l.0.0/16
constexpr uint32_t kMaxSpines = 99;  // link subnets are 10.(100+s).0.0/16

struct Shape {
  uint32_t leaves = 0, spines = 0, hosts_per_leaf = 0;
  uint64_t host_speed = 0, uplink_speed = 0, delay_ns = 0;
  std::string switch_config;  // a path, or empty
};

std::string v4(uint32_t a, uint32_t b, uint32_t c, uint32_t d) {
  return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c) + "." +
         std::to_string(d);
}

// "leaf" + 3 → "leaf3" (appended: GCC 12 warns falsely on `"h" + to_string`).
std::string numbered(const char* prefix, uint32_t n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

std::string hex2(uint32_t v) {
  const char* digits = "0123456789abcdef";
  return {digits[(v >> 4) & 15], digits[v & 15]};
}

std::string leaf_mac(uint32_t l, uint32_t port) {
  return "02:00:01:" + hex2(l) + ":00:" + hex2(port);
}
std::string spine_mac(uint32_t s, uint32_t port) {
  return "02:00:02:" + hex2(s) + ":00:" + hex2(port);
}
std::string host_mac(uint32_t l, uint32_t i) {
  return "02:00:0a:" + hex2(l) + ":" + hex2(i) + ":02";
}

// Reads the generated form's keys with one clear error per rule.
class ShapeReader {
 public:
  ShapeReader(std::string source) : source_(std::move(source)) {}

  Shape read(const YAML::Node& root) const {
    if (!root.IsMap())
      fail("",
           "a topology is a map of leaves, spines, hosts_per_leaf, host_speed, uplink_speed, "
           "link_delay and switch_config (found " +
               yaml_kind(root) + ")");
    static const std::vector<std::string> known = {
        "leaves",       "spines",     "hosts_per_leaf", "host_speed",
        "uplink_speed", "link_delay", "switch_config",  "nic"};
    for (auto it = root.begin(); it != root.end(); ++it) {
      const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
      if (std::find(known.begin(), known.end(), key) == known.end()) {
        std::string list;
        for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
        fail(key.empty() ? "" : key, "unknown key (known: " + list + ")");
      }
    }
    for (const char* k :
         {"leaves", "spines", "hosts_per_leaf", "host_speed", "uplink_speed", "link_delay"})
      if (!root[k]) fail("", std::string("missing required key \"") + k + "\"");
    Shape s;
    s.leaves = count(root["leaves"], "leaves", kMaxLeaves);
    s.spines = count(root["spines"], "spines", kMaxSpines);
    s.hosts_per_leaf = count(root["hosts_per_leaf"], "hosts_per_leaf", kMaxPorts);
    if (s.hosts_per_leaf + s.spines > uint32_t(kMaxPorts))
      fail("hosts_per_leaf", "hosts_per_leaf + spines is " +
                                 std::to_string(s.hosts_per_leaf + s.spines) +
                                 ": a leaf has at most " + std::to_string(kMaxPorts) + " ports");
    if (s.leaves > uint32_t(kMaxPorts))
      fail("leaves", "a spine has at most " + std::to_string(kMaxPorts) + " ports");
    s.host_speed = speed(root["host_speed"], "host_speed");
    s.uplink_speed = speed(root["uplink_speed"], "uplink_speed");
    s.delay_ns = duration(root["link_delay"], "link_delay");
    if (const YAML::Node c = root["switch_config"]) {
      if (!c.IsScalar() || c.Scalar().empty()) fail("switch_config", "must be a file path");
      s.switch_config = c.Scalar();
    }
    return s;
  }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw TopologyError(source_ + ": " + (key.empty() ? "" : key + ": ") + why);
  }

 private:
  std::string scalar(const YAML::Node& n, const std::string& key, const char* what) const {
    if (!n.IsScalar()) fail(key, std::string("must be ") + what + " (found " + yaml_kind(n) + ")");
    return n.Scalar();
  }
  uint32_t count(const YAML::Node& n, const std::string& key, uint32_t max) const {
    const std::string t = scalar(n, key, "an integer");
    const bool digits = !t.empty() && t.size() <= 9 && std::all_of(t.begin(), t.end(), [](char c) {
      return c >= '0' && c <= '9';
    });
    const uint32_t v = digits ? uint32_t(std::stoul(t)) : 0;
    if (!digits || v < 1 || v > max)
      fail(key, quote(t) + ": must be an integer 1.." + std::to_string(max));
    return v;
  }
  uint64_t speed(const YAML::Node& n, const std::string& key) const {
    const std::string t = scalar(n, key, "a speed");
    uint64_t bps = 0;
    std::string why;
    if (!parse_speed_bps(t, bps, &why)) fail(key, quote(t) + ": " + why);
    if (bps < 1'000'000 || bps > 1'600'000'000'000)
      fail(key, quote(t) + ": speed must be 1M .. 1.6T");
    return bps;
  }
  uint64_t duration(const YAML::Node& n, const std::string& key) const {
    const std::string t = scalar(n, key, "a duration");
    uint64_t ns = 0;
    std::string why;
    if (!parse_duration_ns(t, ns, &why)) fail(key, quote(t) + ": " + why);
    if (ns > kMaxLinkDelayNs) fail(key, quote(t) + ": delay must be 0 .. 1s");
    return ns;
  }

  std::string source_;
};

YAML::Node port_node(uint32_t id, const std::string& name, uint64_t speed, const std::string& mac,
                     const std::string& ipv4) {
  YAML::Node p(YAML::NodeType::Map);
  p["id"] = id;
  p["name"] = name;
  p["speed"] = format_speed_bps(speed);
  p["mac"] = mac;
  p["ipv4"] = ipv4;
  return p;
}

YAML::Node neighbor_node(const std::string& ip, const std::string& mac, uint32_t port) {
  YAML::Node n(YAML::NodeType::Map);
  n["ip"] = ip;
  n["mac"] = mac;
  n["port"] = port;
  return n;
}

// The leaf's config: the base's switch, control, limits and qos sections,
// generated ports, neighbours, routes and the `uplinks` group (the base's
// group settings with the spine neighbours as members).
YAML::Node leaf_config(const YAML::Node& base, const Shape& s, uint32_t l) {
  YAML::Node doc = YAML::Clone(base);
  doc["switch"]["name"] = numbered("leaf", l);
  YAML::Node ports(YAML::NodeType::Sequence), neighbors(YAML::NodeType::Sequence);
  for (uint32_t i = 0; i < s.hosts_per_leaf; ++i) {
    ports.push_back(port_node(i, numbered("h", l * s.hosts_per_leaf + i), s.host_speed,
                              leaf_mac(l, i), v4(10, l, i, 1) + "/24"));
    neighbors.push_back(neighbor_node(v4(10, l, i, 2), host_mac(l, i), i));
  }
  YAML::Node members(YAML::NodeType::Sequence);
  for (uint32_t sp = 0; sp < s.spines; ++sp) {
    const uint32_t port = s.hosts_per_leaf + sp;
    ports.push_back(port_node(port, numbered("spine", sp), s.uplink_speed, leaf_mac(l, port),
                              v4(10, 100 + sp, l, 1) + "/24"));
    neighbors.push_back(neighbor_node(v4(10, 100 + sp, l, 2), spine_mac(sp, l), port));
    members.push_back(v4(10, 100 + sp, l, 2));
  }
  doc["ports"] = ports;
  doc["neighbors"] = neighbors;
  YAML::Node group(YAML::NodeType::Map);
  if (base["groups"] && base["groups"].IsMap() && base["groups"]["uplinks"] &&
      base["groups"]["uplinks"].IsMap())
    group = YAML::Clone(base["groups"]["uplinks"]);
  group["members"] = members;
  YAML::Node groups(YAML::NodeType::Map);
  groups["uplinks"] = group;
  doc["groups"] = groups;
  YAML::Node routes(YAML::NodeType::Sequence), def(YAML::NodeType::Map);
  def["prefix"] = "0.0.0.0/0";
  def["group"] = "uplinks";
  routes.push_back(def);
  doc["routes"] = routes;
  return doc;
}

// The spine's config: one port per leaf, a /16 route to each leaf, no group.
YAML::Node spine_config(const YAML::Node& base, const Shape& s, uint32_t sp) {
  YAML::Node doc = YAML::Clone(base);
  doc["switch"]["name"] = numbered("spine", sp);
  YAML::Node ports(YAML::NodeType::Sequence), neighbors(YAML::NodeType::Sequence),
      routes(YAML::NodeType::Sequence);
  for (uint32_t l = 0; l < s.leaves; ++l) {
    const uint32_t leaf_port = s.hosts_per_leaf + sp;
    ports.push_back(port_node(l, numbered("leaf", l), s.uplink_speed, spine_mac(sp, l),
                              v4(10, 100 + sp, l, 2) + "/24"));
    neighbors.push_back(neighbor_node(v4(10, 100 + sp, l, 1), leaf_mac(l, leaf_port), l));
    YAML::Node r(YAML::NodeType::Map);
    r["prefix"] = v4(10, l, 0, 0) + "/16";
    r["via"] = v4(10, 100 + sp, l, 1);
    routes.push_back(r);
  }
  doc["ports"] = ports;
  doc["neighbors"] = neighbors;
  doc.remove("groups");
  doc["routes"] = routes;
  return doc;
}

// "nic.KEY=VALUE" (or "nic=..."): an override of the hosts' NICs.
bool is_nic_override(const std::string& o) {
  return o.compare(0, 3, "nic") == 0 && (o.size() == 3 || o[3] == '.' || o[3] == '=');
}

// The hosts' NIC knobs: the file's `nic` map with the nic.* overrides.
NicParams nic_params(const YAML::Node& root, const std::vector<std::string>& overrides,
                     const std::string& source) {
  YAML::Node doc(YAML::NodeType::Map);
  doc["nic"] = root["nic"] ? YAML::Clone(root["nic"]) : YAML::Node(YAML::NodeType::Map);
  for (const std::string& o : overrides) {
    if (!is_nic_override(o)) continue;
    try {
      apply_override(doc, o);
    } catch (const ConfigError& e) {
      throw TopologyError(source + ": " + e.what());
    }
  }
  try {
    return load_nic_params(doc["nic"], source);
  } catch (const NicParamsError& e) {
    throw TopologyError(e.what());
  }
}

// The --set lines for each switch, by index. "NAME:KEY=VALUE" for one switch;
// a colon after the '=' belongs to the value (a MAC, an IPv6 address).
std::vector<std::vector<std::string>> split_overrides(const std::vector<std::string>& overrides,
                                                      const std::vector<FabricSwitch>& switches,
                                                      const std::string& source) {
  std::vector<std::vector<std::string>> out(switches.size());
  for (const std::string& o : overrides) {
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
    if (is_nic_override(o)) continue;  // the NICs': load_topology_text
    const bool group_key = o.compare(0, 6, "groups") == 0 &&
                           (o.size() == 6 || o[6] == '.' || o[6] == '=' || o[6] == '[');
    for (size_t i = 0; i < switches.size(); ++i)
      if (!(group_key && switches[i].role == SwitchRole::kSpine)) out[i].push_back(o);
  }
  return out;
}

IpAddr ip_of(const std::string& text) {
  IpAddr a;
  parse_ip(text, a);
  return a;
}
MacAddr mac_of(const std::string& text) {
  MacAddr m;
  parse_mac(text, m);
  return m;
}

}  // namespace

std::optional<uint32_t> Topology::switch_index(std::string_view name) const {
  for (size_t i = 0; i < switches.size(); ++i)
    if (switches[i].name == name) return uint32_t(i);
  return std::nullopt;
}

std::optional<uint32_t> Topology::host_index(std::string_view name) const {
  for (size_t i = 0; i < hosts.size(); ++i)
    if (hosts[i].name == name) return uint32_t(i);
  return std::nullopt;
}

Topology load_topology_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir,
                            const std::vector<std::string>& overrides) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw TopologyError(yaml_error_where(source_name, e) + ": invalid YAML: " + e.msg);
  }
  const ShapeReader reader(source_name);
  const Shape s = reader.read(root);

  std::string base_text(embedded_default_config());
  std::string base_name = "the default config";
  if (!s.switch_config.empty()) {
    std::filesystem::path p(s.switch_config);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    try {
      base_text = read_config_file(p.string());
    } catch (const ConfigError& e) {
      reader.fail("switch_config", e.what());
    }
    base_name = p.string();
  }
  YAML::Node base;
  try {
    base = YAML::Load(base_text);
  } catch (const YAML::Exception& e) {
    reader.fail("switch_config", base_name + ": invalid YAML: " + e.msg);
  }
  if (!base.IsMap()) reader.fail("switch_config", base_name + ": a switch config is a map");

  Topology t;
  t.source = source_name;
  t.leaves = s.leaves;
  t.spines = s.spines;
  t.hosts_per_leaf = s.hosts_per_leaf;
  std::vector<YAML::Node> docs;
  for (uint32_t l = 0; l < s.leaves; ++l) {
    t.switches.push_back({numbered("leaf", l), SwitchRole::kLeaf, {}, {}, {}});
    docs.push_back(leaf_config(base, s, l));
  }
  for (uint32_t sp = 0; sp < s.spines; ++sp) {
    t.switches.push_back({numbered("spine", sp), SwitchRole::kSpine, {}, {}, {}});
    docs.push_back(spine_config(base, s, sp));
  }
  const auto per_switch = split_overrides(overrides, t.switches, source_name);
  for (size_t i = 0; i < t.switches.size(); ++i) {
    FabricSwitch& sw = t.switches[i];
    sw.config_yaml = YAML::Dump(docs[i]) + "\n";
    sw.overrides = per_switch[i];
    try {
      sw.params = load_config_node(docs[i], source_name + ": " + sw.name, sw.overrides);
    } catch (const ConfigError& e) {
      // The loader names its source in file errors, not in --set ones.
      const std::string source = source_name + ": " + sw.name;
      const std::string why = e.what();
      throw TopologyError(why.rfind(source, 0) == 0 ? why : source + ": " + why);
    }
  }
  t.nic = nic_params(root, overrides, source_name);
  for (uint32_t l = 0; l < s.leaves; ++l)
    for (uint32_t i = 0; i < s.hosts_per_leaf; ++i) {
      FabricHost h;
      h.name = numbered("h", l * s.hosts_per_leaf + i);
      h.sw = l;
      h.port = uint16_t(i);
      h.ip = ip_of(v4(10, l, i, 2));
      h.mac = mac_of(host_mac(l, i));
      h.gateway = ip_of(v4(10, l, i, 1));
      h.gateway_mac = mac_of(leaf_mac(l, i));
      h.speed_bps = s.host_speed;
      h.delay_ns = s.delay_ns;
      t.hosts.push_back(h);
    }
  for (uint32_t l = 0; l < s.leaves; ++l)
    for (uint32_t sp = 0; sp < s.spines; ++sp)
      t.links.push_back({l, s.leaves + sp, uint16_t(s.hosts_per_leaf + sp), uint16_t(l),
                         s.uplink_speed, s.delay_ns});
  return t;
}

Topology load_topology_file(const std::string& path, const std::vector<std::string>& overrides) {
  std::string text;
  try {
    text = read_config_file(path);
  } catch (const ConfigError& e) {
    // "cannot read config file "PATH": why", said of a topology file.
    std::string why = e.what();
    if (const size_t at = why.find("config file"); at != std::string::npos)
      why.replace(at, 6, "topology");
    throw TopologyError(why);
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return load_topology_text(text, path, dir.empty() ? "." : dir, overrides);
}

}  // namespace rocelb
