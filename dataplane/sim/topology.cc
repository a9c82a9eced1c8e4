#include "dataplane/sim/topology.h"

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
#include "dataplane/sim/fat_tree.h"
#include "dataplane/sim/ns3_topology.h"
#include "dataplane/sim/topology_explicit.h"
#include "dataplane/sim/topology_graph.h"
#include "dataplane/sim/topology_keys.h"

namespace rocelb {
namespace {

struct Shape {
  uint32_t leaves = 0, spines = 0, hosts_per_leaf = 0;
  uint64_t host_speed = 0, uplink_speed = 0, delay_ns = 0;
  uint32_t planes = 1;
  std::string switch_config;  // a path, or empty
  uint32_t port_mtu = 1500;   // IP packet bytes: fits the NICs' RoCE MTU
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

// One plane's names and numbers (topology.h): its switches' names start
// "pP-" when the fabric has more than one plane, its addresses have the
// first octet 10 + P, its MACs the second byte P.
struct Plane {
  uint32_t p = 0;
  bool named = false;  // planes > 1

  std::string name(const char* role, uint32_t n) const {
    std::string s;
    if (named) {
      s += 'p';
      s += std::to_string(p);
      s += '-';
    }
    s += role;
    s += std::to_string(n);
    return s;
  }
  // Host h's port on this plane: "h3", or "h3.1" on plane 1.
  std::string host_port(uint32_t h) const {
    std::string s = numbered("h", h);
    if (p > 0) {
      s += '.';
      s += std::to_string(p);
    }
    return s;
  }
  std::string ip(uint32_t b, uint32_t c, uint32_t d) const { return v4(10 + p, b, c, d); }
  std::string leaf_mac(uint32_t l, uint32_t port) const {
    return "02:" + hex2(p) + ":01:" + hex2(l) + ":00:" + hex2(port);
  }
  std::string spine_mac(uint32_t s, uint32_t port) const {
    return "02:" + hex2(p) + ":02:" + hex2(s) + ":00:" + hex2(port);
  }
  std::string host_mac(uint32_t l, uint32_t i) const {
    return "02:" + hex2(p) + ":0a:" + hex2(l) + ":" + hex2(i) + ":02";
  }
};

// The generated form's keys, by their rows (topology_schema()).
Shape read_shape(const KeyReader& r, const YAML::Node& root) {
  if (!root.IsMap())
    r.fail("",
           "a topology is a map of leaves, spines, hosts_per_leaf, host_speed, uplink_speed, "
           "link_delay and switch_config, or of switches, links and hosts (found " +
               yaml_kind(root) + ")");
  r.check_utf8(root, "");
  const KeyReader::Map m = r.top(root);
  for (const char* k :
       {"leaves", "spines", "hosts_per_leaf", "host_speed", "uplink_speed", "link_delay"})
    m.require(k);
  Shape s;
  m.read("leaves", s.leaves);
  m.read("spines", s.spines);
  m.read("hosts_per_leaf", s.hosts_per_leaf);
  if (s.hosts_per_leaf + s.spines > uint32_t(kMaxPorts))
    r.fail("hosts_per_leaf", "hosts_per_leaf + spines is " +
                                 std::to_string(s.hosts_per_leaf + s.spines) +
                                 ": a leaf has at most " + std::to_string(kMaxPorts) + " ports");
  m.read("planes", s.planes);
  m.read("host_speed", s.host_speed);
  m.read("uplink_speed", s.uplink_speed);
  m.read("link_delay", s.delay_ns);
  if (m.read("switch_config", s.switch_config) && s.switch_config.empty())
    r.fail("switch_config", "must be a file path");
  return s;
}

YAML::Node port_node(uint32_t id, const std::string& name, uint64_t speed, const std::string& mac,
                     const std::string& ipv4, uint32_t mtu) {
  YAML::Node p(YAML::NodeType::Map);
  p["id"] = id;
  p["name"] = name;
  p["speed"] = format_speed_bps(speed);
  p["mac"] = mac;
  p["ipv4"] = ipv4;
  p["mtu"] = mtu;
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
YAML::Node leaf_config(const YAML::Node& base, const Shape& s, const Plane& pl, uint32_t l) {
  YAML::Node doc = YAML::Clone(base);
  doc["switch"]["name"] = pl.name("leaf", l);
  YAML::Node ports(YAML::NodeType::Sequence), neighbors(YAML::NodeType::Sequence);
  for (uint32_t i = 0; i < s.hosts_per_leaf; ++i) {
    ports.push_back(port_node(i, pl.host_port(l * s.hosts_per_leaf + i), s.host_speed,
                              pl.leaf_mac(l, i), pl.ip(l, i, 1) + "/24", s.port_mtu));
    neighbors.push_back(neighbor_node(pl.ip(l, i, 2), pl.host_mac(l, i), i));
  }
  YAML::Node members(YAML::NodeType::Sequence);
  for (uint32_t sp = 0; sp < s.spines; ++sp) {
    const uint32_t port = s.hosts_per_leaf + sp;
    ports.push_back(port_node(port, pl.name("spine", sp), s.uplink_speed, pl.leaf_mac(l, port),
                              pl.ip(100 + sp, l, 1) + "/24", s.port_mtu));
    neighbors.push_back(neighbor_node(pl.ip(100 + sp, l, 2), pl.spine_mac(sp, l), port));
    members.push_back(pl.ip(100 + sp, l, 2));
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
YAML::Node spine_config(const YAML::Node& base, const Shape& s, const Plane& pl, uint32_t sp) {
  YAML::Node doc = YAML::Clone(base);
  doc["switch"]["name"] = pl.name("spine", sp);
  YAML::Node ports(YAML::NodeType::Sequence), neighbors(YAML::NodeType::Sequence),
      routes(YAML::NodeType::Sequence);
  for (uint32_t l = 0; l < s.leaves; ++l) {
    const uint32_t leaf_port = s.hosts_per_leaf + sp;
    ports.push_back(port_node(l, pl.name("leaf", l), s.uplink_speed, pl.spine_mac(sp, l),
                              pl.ip(100 + sp, l, 2) + "/24", s.port_mtu));
    neighbors.push_back(neighbor_node(pl.ip(100 + sp, l, 1), pl.leaf_mac(l, leaf_port), l));
    YAML::Node r(YAML::NodeType::Map);
    r["prefix"] = pl.ip(l, 0, 0) + "/16";
    r["via"] = pl.ip(100 + sp, l, 1);
    routes.push_back(r);
  }
  doc["ports"] = ports;
  doc["neighbors"] = neighbors;
  doc.remove("groups");
  doc["routes"] = routes;
  return doc;
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

std::string Topology::port_name(size_t k) const {
  const FabricHost& h = port(k);
  if (h.plane == 0) return h.name;
  return h.name + "." + std::to_string(h.plane);
}

std::optional<uint32_t> Topology::port_index(std::string_view name) const {
  if (const auto h = host_index(name)) return *h;
  const size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || planes <= 1) return std::nullopt;
  const std::string_view digits = name.substr(dot + 1);
  if (digits.empty() || digits.size() > 1 || digits[0] < '0' || digits[0] > '9')
    return std::nullopt;
  const uint32_t plane = uint32_t(digits[0] - '0');
  const auto h = host_index(name.substr(0, dot));
  if (!h || plane >= planes) return std::nullopt;
  return port_of(*h, plane);
}

uint64_t Topology::host_bps(uint32_t host) const {
  uint64_t bps = 0;
  for (uint32_t p = 0; p < planes; ++p) bps += port(port_of(host, p)).speed_bps;
  return bps;
}

Topology load_topology_text(const std::string& text, const std::string& source_name,
                            const std::string& base_dir,
                            const std::vector<std::string>& overrides) {
  if (is_ns3_topology(text)) return load_ns3_topology(text, source_name, overrides);
  const YAML::Node root = topology_detail::parse_document(text, source_name);
  if (root.IsMap() && root["switches"])
    return load_explicit_topology(root, source_name, base_dir, overrides);
  if (root.IsMap() && root["k"])
    return load_fat_tree_topology(root, source_name, base_dir, overrides);
  const KeyReader reader = topology_detail::topology_reader(topology_schema(), source_name);
  Shape s = read_shape(reader, root);
  std::string nic_yaml;
  const NicParams nic = topology_detail::nic_params(root, overrides, source_name, &nic_yaml);
  s.port_mtu = std::max<uint32_t>(1500, nic.mtu + 64);

  std::string base_text(embedded_default_config());
  std::string base_name = "the default config";
  if (!s.switch_config.empty()) {
    std::filesystem::path p(s.switch_config);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    try {
      base_text = topology_detail::read_file(p.string(), "config file");
    } catch (const TopologyError& e) {
      reader.fail("switch_config", e.what());
    }
    base_name = p.string();
  }
  YAML::Node base;
  try {
    base = topology_detail::parse_document(base_text, base_name, kMaxSwitchConfigNodes);
  } catch (const TopologyError& e) {
    reader.fail("switch_config", e.what());
  }
  if (!base.IsMap())
    reader.fail("switch_config",
                base_name + ": a switch config is a map (found " + yaml_kind(base) + ")");
  apply_switch_set(base, reader.top(root), source_name);

  Topology t;
  t.source = source_name;
  t.leaves = s.leaves;
  t.spines = s.spines;
  t.hosts_per_leaf = s.hosts_per_leaf;
  t.planes = s.planes;
  // Leaves of every plane, then spines; plane p's leaf l and spine sp:
  const uint32_t L = s.leaves, S = s.spines, H = s.hosts_per_leaf;
  auto leaf_at = [&](uint32_t p, uint32_t l) { return p * L + l; };
  auto spine_at = [&](uint32_t p, uint32_t sp) { return s.planes * L + p * S + sp; };
  std::vector<Plane> planes;
  for (uint32_t p = 0; p < s.planes; ++p) planes.push_back({p, s.planes > 1});
  std::vector<YAML::Node> docs;
  for (const Plane& pl : planes)
    for (uint32_t l = 0; l < L; ++l) {
      t.switches.push_back({pl.name("leaf", l), SwitchRole::kLeaf, {}, {}, {}});
      docs.push_back(leaf_config(base, s, pl, l));
    }
  for (const Plane& pl : planes)
    for (uint32_t sp = 0; sp < S; ++sp) {
      t.switches.push_back({pl.name("spine", sp), SwitchRole::kSpine, {}, {}, {}});
      docs.push_back(spine_config(base, s, pl, sp));
    }
  std::vector<bool> has_groups;
  for (const FabricSwitch& sw : t.switches) has_groups.push_back(sw.role == SwitchRole::kLeaf);
  const auto per_switch =
      topology_detail::split_overrides(overrides, t.switches, has_groups, source_name);
  for (size_t i = 0; i < t.switches.size(); ++i) {
    t.switches[i].overrides = per_switch[i];
    topology_detail::load_switch(t.switches[i], docs[i], source_name);
  }
  t.nic = nic;
  t.nic_yaml = nic_yaml;
  for (const Plane& pl : planes)
    for (uint32_t l = 0; l < L; ++l)
      for (uint32_t i = 0; i < H; ++i) {
        FabricHost h;
        h.name = numbered("h", l * H + i);
        h.plane = pl.p;
        h.sw = leaf_at(pl.p, l);
        h.port = uint16_t(i);
        h.ip = ip_of(pl.ip(l, i, 2));
        h.mac = mac_of(pl.host_mac(l, i));
        h.gateway = ip_of(pl.ip(l, i, 1));
        h.gateway_mac = mac_of(pl.leaf_mac(l, i));
        h.speed_bps = s.host_speed;
        h.delay_ns = s.delay_ns;
        (pl.p == 0 ? t.hosts : t.plane_ports).push_back(h);
      }
  for (const Plane& pl : planes)
    for (uint32_t l = 0; l < L; ++l)
      for (uint32_t sp = 0; sp < S; ++sp)
        t.links.push_back({leaf_at(pl.p, l), spine_at(pl.p, sp), uint16_t(H + sp), uint16_t(l),
                           s.uplink_speed, s.delay_ns});
  return t;
}

Topology load_topology_file(const std::string& path, const std::vector<std::string>& overrides) {
  const std::string text = topology_detail::read_file(path, "topology file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  return load_topology_text(text, path, dir.empty() ? "." : dir, overrides);
}

}  // namespace rocelb
