#include "dataplane/sim/topology_explicit.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include "control/config_loader.h"
#include "control/net_types.h"
#include "control/units.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "dataplane/sim/topology_keys.h"

namespace rocelb {

namespace {

struct PortRef {
  uint32_t sw = 0;
  uint16_t port = 0;
};

// The explicit form's keys, by their rows (explicit_topology_schema()), and
// the rules that make the fabric workable.
class ExplicitReader {
 public:
  ExplicitReader(const std::string& source, const std::string& base_dir)
      : r_(topology_detail::topology_reader(explicit_topology_schema(), source)),
        source_(source),
        base_dir_(base_dir) {}

  Topology read(const YAML::Node& root, const std::vector<std::string>& overrides) {
    r_.check_utf8(root, "");
    if (root["planes"])
      fail("planes",
           "a host of the explicit form has one NIC port (one plane); planes is a key of the "
           "generated leaf-spine (leaves, spines, hosts_per_leaf, ...)");
    const KeyReader::Map top = r_.top(root);
    for (const char* k : {"switches", "links", "hosts"}) top.require(k);
    Topology t;
    t.source = source_;
    switches(top, overrides, t);
    t.nic = topology_detail::nic_params(root, overrides, source_, &t.nic_yaml);
    links(top, t);
    hosts(top, t);
    check_routes(t);
    // Roles: a switch with hosts is a leaf.
    std::vector<uint32_t> per_leaf(t.switches.size(), 0);
    for (const FabricHost& h : t.hosts) ++per_leaf[h.sw];
    for (size_t i = 0; i < t.switches.size(); ++i) {
      t.switches[i].role = per_leaf[i] ? SwitchRole::kLeaf : SwitchRole::kSpine;
      (per_leaf[i] ? t.leaves : t.spines) += 1;
      t.hosts_per_leaf = std::max(t.hosts_per_leaf, per_leaf[i]);
    }
    return t;
  }

 private:
  // The switches, each config read, checked and loaded with its overrides
  // (groups.* skips a switch whose config has no groups). One switch's YAML
  // tree at a time: a fabric of large configs holds their text, not trees.
  void switches(const KeyReader::Map& top, const std::vector<std::string>& overrides, Topology& t) {
    const YAML::Node n = top.require("switches");
    if (!n.IsMap() || n.size() == 0)
      fail("switches", "must be a map of switch name to config file (found " + yaml_kind(n) + ")");
    std::vector<std::string> paths;
    top.entries("switches", [&](const std::string& name, const YAML::Node& value,
                                const std::string& key, const std::string& pattern) {
      std::string file;
      if (value.IsMap()) {
        const KeyReader::Map m = r_.map(value, key, pattern);
        m.require("config");
        m.read("config", file);
      } else {
        file = r_.scalar(value, key, "a config file path");
      }
      std::filesystem::path p(file);
      if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
      t.switches.push_back({name, SwitchRole::kLeaf, {}, {}, {}});
      paths.push_back(p.string());
    });
    // Every switch gets the lines for it; a switch without groups then drops
    // the groups.* lines that were not addressed to it by name.
    const std::vector<bool> all(t.switches.size(), true);
    const auto per = topology_detail::split_overrides(overrides, t.switches, all, source_);
    for (size_t i = 0; i < t.switches.size(); ++i) {
      FabricSwitch& sw = t.switches[i];
      const std::string key = "switches." + sw.name;
      std::string text;
      YAML::Node doc;
      try {
        text = topology_detail::read_file(paths[i], "config file");
        doc = topology_detail::parse_document(text, paths[i], kMaxSwitchConfigNodes);
      } catch (const TopologyError& e) {
        fail(key, e.what());
      }
      if (!doc.IsMap())
        fail(key, paths[i] + ": a switch config is a map (found " + yaml_kind(doc) + ")");
      const bool has_groups = doc["groups"] && doc["groups"].size() > 0;
      const std::string prefix = sw.name + ":";
      for (const std::string& o : per[i]) {
        const bool named =
            std::find(overrides.begin(), overrides.end(), prefix + o) != overrides.end();
        if (has_groups || named || !topology_detail::is_group_override(o))
          sw.overrides.push_back(o);
      }
      topology_detail::load_switch(sw, doc, source_);
    }
  }

  // "leaf0:4": a port of a switch's config not taken yet.
  PortRef port_ref(const YAML::Node& n, const std::string& key, const Topology& t) {
    const std::string text = r_.scalar(n, key, "SWITCH:PORT");
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon == std::string::npos ? 0 : colon);
    const std::string num = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (name.empty() || num.empty() || num.size() > 2 ||
        num.find_first_not_of("0123456789") != std::string::npos)
      fail(key, quote(text) + ": must be SWITCH:PORT, e.g. leaf0:4");
    const auto sw = t.switch_index(name);
    if (!sw) fail(key, quote(text) + ": no switch " + quote(name));
    const uint16_t port = static_cast<uint16_t>(std::stoul(num));
    if (!t.switches[*sw].params.find_port(port))
      fail(key, quote(text) + ": " + name + "'s config has no port " + num);
    if (!taken_.insert({*sw, port}).second)
      fail(key, quote(text) + ": the port already has a link or a host");
    return {*sw, port};
  }

  void links(const KeyReader::Map& top, Topology& t) {
    const YAML::Node n = top.require("links");
    if (!n.IsSequence()) r_.fail_type("links", n, "a list");
    top.each("links", [&](const YAML::Node& node, const std::string& key,
                          const std::string& pattern) {
      const KeyReader::Map l = r_.map(node, key, pattern);
      for (const char* k : {"a", "b", "delay"}) l.require(k);
      const PortRef a = port_ref(l.require("a"), l.at("a"), t);
      const PortRef b = port_ref(l.require("b"), l.at("b"), t);
      if (a.sw == b.sw) fail(l.at("b"), "a link joins two different switches");
      FabricLink fl{a.sw, b.sw, a.port, b.port, 0, 0};
      l.read("delay", fl.delay_ns);
      const uint64_t sa = t.switches[a.sw].params.find_port(a.port)->speed_bps;
      const uint64_t sb = t.switches[b.sw].params.find_port(b.port)->speed_bps;
      auto end = [&](const PortRef& r, uint64_t bps) {
        return t.switches[r.sw].name + "'s port " + std::to_string(r.port) + " is " +
               format_speed_bps(bps);
      };
      if (sa != sb)
        fail(key, "the ends differ: " + end(a, sa) + ", " + end(b, sb) +
                      ": a link has one speed (set ports[].speed in their configs)");
      fl.speed_bps = sa;
      if (uint64_t want = 0; l.read("speed", want)) {
        if (want != sa)
          fail(l.at("speed"), "the link says " + format_speed_bps(want) + " but " + end(a, sa) +
                                  " and " + end(b, sb) +
                                  ": a port sends at its configured speed (set ports[].speed in "
                                  "their configs)");
      }
      if (std::string state; l.read("state", state)) fl.up = state == "up";
      t.links.push_back(fl);
    });
  }

  void hosts(const KeyReader::Map& top, Topology& t) {
    const YAML::Node n = top.require("hosts");
    if (!n.IsSequence() || n.size() == 0)
      fail("hosts", "must be a non-empty list (found " + yaml_kind(n) + ")");
    std::set<std::string> names;
    std::set<uint32_t> ips;
    top.each("hosts", [&](const YAML::Node& node, const std::string& key,
                          const std::string& pattern) {
      const KeyReader::Map h = r_.map(node, key, pattern);
      for (const char* k : {"name", "at", "ip", "delay"}) h.require(k);
      FabricHost fh;
      h.read("name", fh.name);
      if (t.switch_index(fh.name) || !names.insert(fh.name).second)
        fail(key + ".name", quote(fh.name) + ": the name is taken");
      const PortRef at = port_ref(h.require("at"), h.at("at"), t);
      fh.sw = at.sw;
      fh.port = at.port;
      std::string ip;
      h.read("ip", ip);
      if (!parse_ip(ip, fh.ip) || !fh.ip.is_v4())
        fail(key + ".ip", quote(ip) + ": must be an IPv4 address (the NIC model is IPv4)");
      if (!ips.insert(fh.ip.v4_host_order()).second)
        fail(key + ".ip", quote(ip) + ": another host has it");
      const NeighborParams& nb = reachable(t, at, fh.ip, key, ip);
      if (std::string mac; h.read("mac", mac)) {
        if (!parse_mac(mac, fh.mac) || fh.mac.is_multicast() || fh.mac.is_zero())
          fail(key + ".mac", quote(mac) + ": must be a unicast MAC address");
        if (fh.mac != nb.mac)
          fail(key + ".mac", quote(mac) + ": " + t.switches[at.sw].name + "'s neighbor " + ip +
                                 " has MAC " + to_string(nb.mac) +
                                 ": the switch would send the host's frames there (leave mac out "
                                 "to take the neighbor's)");
      } else {
        fh.mac = nb.mac;
      }
      const PortParams& p = *t.switches[at.sw].params.find_port(at.port);
      fh.gateway_mac = p.mac;
      fh.gateway = p.ipv4->addr;
      fh.speed_bps = p.speed_bps;
      h.read("delay", fh.delay_ns);
      t.hosts.push_back(fh);
    });
  }

  // The neighbor entry through which host `ip` at `at` is reached, after the
  // rules that make a host reachable: its port has an IPv4 subnet (the
  // host's gateway), the address lies in it, is none of the switch's own,
  // and the switch's config has it as a neighbor on that port.
  const NeighborParams& reachable(const Topology& t, const PortRef& at, const IpAddr& addr,
                                  const std::string& key, const std::string& ip) const {
    const FabricSwitch& sw = t.switches[at.sw];
    const PortParams& p = *sw.params.find_port(at.port);
    const std::string port = sw.name + "'s port " + std::to_string(at.port);
    if (!p.ipv4) fail(key + ".at", port + " has no ipv4 address: a host's port is its gateway");
    if (!p.ipv4->contains(addr))
      fail(key + ".ip",
           quote(ip) + ": not in the subnet of " + port + " (" + to_string(*p.ipv4) + ")");
    if (own_v4_.empty())
      for (uint32_t i = 0; i < t.switches.size(); ++i)
        for (const PortParams& q : t.switches[i].params.ports)
          if (q.ipv4) own_v4_.try_emplace(q.ipv4->addr.v4_host_order(), PortRef{i, q.id});
    if (const auto own = own_v4_.find(addr.v4_host_order()); own != own_v4_.end())
      fail(key + ".ip", quote(ip) + ": the address of " + t.switches[own->second.sw].name +
                            "'s port " + std::to_string(own->second.port) + " itself");
    const NeighborParams* nb = sw.params.find_neighbor(addr);
    if (!nb)
      fail(key + ".ip", quote(ip) + ": " + sw.name + "'s config has no neighbor " + ip +
                            ", so the switch could not deliver to the host (add {ip: " + ip +
                            ", mac: MAC, port: " + std::to_string(at.port) + "} to its neighbors)");
    if (nb->port != at.port)
      fail(key + ".ip", quote(ip) + ": " + sw.name + "'s config has the neighbor " + ip +
                            " on port " + std::to_string(nb->port) + ", not on port " +
                            std::to_string(at.port));
    return *nb;
  }

  // Every port a route leaves by (a `via` neighbor's, a group member's, a
  // `port` route's) has a link or a host: otherwise the switch would send
  // the route's traffic onto a port nothing is plugged into.
  void check_routes(const Topology& t) const {
    auto ip_key = [](const IpAddr& a) {
      return std::string(reinterpret_cast<const char*>(a.b.data()), a.b.size()) + char(a.family);
    };
    for (size_t s = 0; s < t.switches.size(); ++s) {
      const FabricSwitch& sw = t.switches[s];
      const ConfigParams& c = sw.params;
      auto linked = [&](uint16_t port) { return taken_.count({uint32_t(s), port}) > 0; };
      std::unordered_map<std::string, uint16_t> port_of;  // a neighbor's port, by address
      for (const NeighborParams& nb : c.neighbors) port_of.emplace(ip_key(nb.ip), nb.port);
      // Each group's first member on a port with nothing plugged in, found
      // once: a full table into one group stays linear.
      std::unordered_map<std::string, std::optional<std::pair<IpAddr, uint16_t>>> gap_of;
      for (size_t k = 0; k < c.routes.size(); ++k) {
        const RouteParams& r = c.routes[k];
        std::optional<uint16_t> bad;
        std::string how;
        switch (r.target) {
          case RouteTarget::kPort:
            if (!linked(r.port)) {
              bad = r.port;
              how = " to port " + std::to_string(r.port);
            }
            break;
          case RouteTarget::kVia: {
            const auto it = port_of.find(ip_key(r.via));
            if (it != port_of.end() && !linked(it->second)) {
              bad = it->second;
              how = " via " + to_string(r.via);
            }
            break;
          }
          case RouteTarget::kGroup: {
            const auto [it, fresh] = gap_of.try_emplace(r.group);
            if (const GroupParams* g = fresh ? c.find_group(r.group) : nullptr)
              for (const GroupMemberParams& m : g->members) {
                const auto p = port_of.find(ip_key(m.via));
                if (p != port_of.end() && !linked(p->second)) {
                  it->second = std::make_pair(m.via, p->second);
                  break;
                }
              }
            if (it->second) {
              bad = it->second->second;
              how = " to group " + r.group + ", member " + to_string(it->second->first);
            }
            break;
          }
        }
        if (bad)
          fail("switches." + sw.name,
               "routes[" + std::to_string(k) + "] (" + to_string(r.prefix) + how +
                   ") leaves by port " + std::to_string(*bad) +
                   ", which has no link or host: list its link in links (with state: down for a "
                   "failed one) or drop the route");
      }
    }
  }

  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    r_.fail(key, why);
  }

  KeyReader r_;
  std::string source_;
  std::string base_dir_;
  std::set<std::pair<uint32_t, uint16_t>> taken_;
  // Every switch port's IPv4 address, to the first port that has it (filled
  // at the first host).
  mutable std::unordered_map<uint32_t, PortRef> own_v4_;
};

}  // namespace

Topology load_explicit_topology(const YAML::Node& root, const std::string& source,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides) {
  ExplicitReader r(source, base_dir);
  return r.read(root, overrides);
}

}  // namespace rocelb

namespace rocelb {

std::vector<std::pair<std::string, std::string>> export_explicit_topology(const Topology& t) {
  if (t.planes > 1)
    throw TopologyError(t.source + ": planes: " + std::to_string(t.planes) +
                        ": a host of the explicit form has one NIC port, so a fabric of more "
                        "than one plane has no explicit form to export");
  std::vector<std::pair<std::string, std::string>> files;
  auto at = [&](uint32_t sw, uint16_t port) {
    std::string s = t.switches[sw].name;
    s += ':';
    s += std::to_string(port);
    return s;
  };
  auto ns = [](uint64_t v) { return std::to_string(v) + "ns"; };
  std::string f = "# " + t.source +
                  " in the explicit form (rocelb-dp fabric --export): edit, then run it with\n"
                  "# rocelb-dp fabric --topology fabric.yaml.\nswitches:\n";
  for (const FabricSwitch& sw : t.switches) f += "  " + sw.name + ": " + sw.name + ".yaml\n";
  f += "links:\n";
  for (const FabricLink& l : t.links)
    f += "  - {a: " + at(l.a_sw, l.a_port) + ", b: " + at(l.b_sw, l.b_port) +
         ", delay: " + ns(l.delay_ns) + (l.up ? "" : ", state: down") + "}\n";
  f += "hosts:\n";
  for (const FabricHost& h : t.hosts)
    f += "  - {name: " + h.name + ", at: " + at(h.sw, h.port) + ", ip: " + to_string(h.ip) +
         ", mac: \"" + to_string(h.mac) + "\", delay: " + ns(h.delay_ns) + "}\n";
  if (!t.nic_yaml.empty() && t.nic_yaml != "{}") {
    YAML::Node nic = YAML::Load(t.nic_yaml);
    YAML::Node doc(YAML::NodeType::Map);
    doc["nic"] = nic;
    f += YAML::Dump(doc) + "\n";
  }
  files.emplace_back("fabric.yaml", f);
  for (const FabricSwitch& sw : t.switches)
    files.emplace_back(sw.name + ".yaml", effective_config_yaml(sw.config_yaml, sw.overrides));
  return files;
}

}  // namespace rocelb
