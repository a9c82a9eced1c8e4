#include "dataplane/sim/topology_graph.h"

#include <algorithm>
#include <deque>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>

#include "common/constants.h"
#include "control/config_loader.h"
#include "control/default_config.h"
#include "control/units.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "dataplane/sim/topology_keys.h"

namespace rocelb {
namespace {

// The most switch-to-switch links the 172.16.0.0/12 plan numbers.
constexpr uint32_t kMaxSwitchLinks = 1u << 18;
// The most switches with hosts the 10.0.0.0/8 plan numbers.
constexpr uint32_t kMaxHostSwitches = 1u << 16;

std::string v4(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
         std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

std::string hex2(uint32_t v) {
  const char* digits = "0123456789abcdef";
  return {digits[(v >> 4) & 15], digits[v & 15]};
}

std::string switch_mac(uint32_t s, uint32_t port) {
  return "02:01:" + hex2(s >> 8) + ":" + hex2(s) + ":00:" + hex2(port);
}
std::string host_mac(uint32_t h) {
  return "02:0a:" + hex2(h >> 16) + ":" + hex2(h >> 8) + ":" + hex2(h) + ":02";
}

uint32_t host_net(uint32_t l) {
  return (10u << 24) | (l << 8);
}
uint32_t link_net(uint32_t k) {
  return (172u << 24) | (16u << 16) | (k << 2);
}

// One end of a link at a switch: the port and what is on the other side.
struct PortEnd {
  uint32_t peer = 0;  // node index
  uint32_t link = 0;  // index in g.links
  uint32_t local_ip = 0, peer_ip = 0;
  std::string peer_mac;
};

}  // namespace

YAML::Node load_base_switch_config(const std::string& switch_config, const std::string& base_dir,
                                   const std::function<void(const std::string&)>& fail) {
  std::string text(embedded_default_config());
  std::string name = "the default config";
  if (!switch_config.empty()) {
    std::filesystem::path p(switch_config);
    if (p.is_relative()) p = std::filesystem::path(base_dir) / p;
    try {
      text = topology_detail::read_file(p.string(), "config file");
    } catch (const TopologyError& e) {
      fail(e.what());
    }
    name = p.string();
  }
  YAML::Node base;
  try {
    base = topology_detail::parse_document(text, name, kMaxSwitchConfigNodes);
  } catch (const TopologyError& e) {
    fail(e.what());
  }
  if (!base.IsMap()) fail(name + ": a switch config is a map (found " + yaml_kind(base) + ")");
  return base;
}

void apply_switch_set(YAML::Node& base, const KeyReader::Map& top, const std::string& source) {
  top.each("switch_set", [&](const YAML::Node& node, const std::string& path, const std::string&) {
    if (!node.IsScalar())
      throw TopologyError(source + ": " + path + ": must be KEY=VALUE, as --set takes it (found " +
                          yaml_kind(node) + ")");
    try {
      apply_override(base, node.Scalar(), source + ": " + path);
    } catch (const ConfigError& e) {
      throw TopologyError(e.what());
    }
  });
}

Topology build_graph_topology(const FabricGraph& g, const YAML::Node& base, const NicParams& nic,
                              const std::string& nic_yaml,
                              const std::vector<std::string>& overrides,
                              const std::string& source) {
  const size_t n = g.nodes.size();
  // Each node's ports, in link order.
  std::vector<std::vector<PortEnd>> ports(n);
  std::vector<std::pair<uint16_t, uint16_t>> link_ports(g.links.size());  // at a, at b
  uint32_t switch_links = 0;
  for (size_t k = 0; k < g.links.size(); ++k) {
    const GraphLink& e = g.links[k];
    if (e.a >= n || e.b >= n) throw TopologyError(e.where + ": no such node");
    if (e.a == e.b) throw TopologyError(e.where + ": a link joins two different nodes");
    const GraphNode &a = g.nodes[e.a], &b = g.nodes[e.b];
    if (!a.is_switch && !b.is_switch)
      throw TopologyError(e.where + ": " + a.name + " and " + b.name +
                          " are both hosts: a link has a switch at one end at least");
    for (uint32_t end : {e.a, e.b}) {
      const GraphNode& node = g.nodes[end];
      if (node.is_switch && ports[end].size() == size_t(kMaxPorts))
        throw TopologyError(e.where + ": " + node.name + " would have " +
                            std::to_string(kMaxPorts + 1) + " links: a switch has at most " +
                            std::to_string(kMaxPorts) + " ports");
      if (!node.is_switch && !ports[end].empty())
        throw TopologyError(e.where + ": host " + node.name +
                            " has a second link: a host has one NIC port");
    }
    link_ports[k] = {uint16_t(ports[e.a].size()), uint16_t(ports[e.b].size())};
    if (a.is_switch && b.is_switch) {
      if (switch_links == kMaxSwitchLinks)
        throw TopologyError(e.where + ": more than " + std::to_string(kMaxSwitchLinks) +
                            " switch-to-switch links");
      const uint32_t net = link_net(switch_links++);
      ports[e.a].push_back({e.b, uint32_t(k), net + 1, net + 2, {}});
      ports[e.b].push_back({e.a, uint32_t(k), net + 2, net + 1, {}});
    } else {
      ports[e.a].push_back({e.b, uint32_t(k), 0, 0, {}});
      ports[e.b].push_back({e.a, uint32_t(k), 0, 0, {}});
    }
  }
  // Switch ordinals, host-switch ordinals, host ordinals.
  std::vector<uint32_t> sw_of(n, UINT32_MAX), hostsw_of(n, UINT32_MAX), host_of(n, UINT32_MAX);
  std::vector<uint32_t> switch_nodes, host_nodes;
  for (uint32_t i = 0; i < n; ++i) {
    const GraphNode& node = g.nodes[i];
    if (ports[i].empty())
      throw TopologyError(node.where + ": " + (node.is_switch ? "switch " : "host ") + node.name +
                          " has no link");
    if (node.is_switch) {
      sw_of[i] = uint32_t(switch_nodes.size());
      switch_nodes.push_back(i);
    } else {
      host_of[i] = uint32_t(host_nodes.size());
      host_nodes.push_back(i);
    }
  }
  if (host_nodes.empty()) throw TopologyError(source + ": the fabric has no host");
  std::vector<uint32_t> host_switches;
  for (uint32_t s : switch_nodes)
    for (const PortEnd& p : ports[s])
      if (!g.nodes[p.peer].is_switch) {
        if (host_switches.size() == kMaxHostSwitches)
          throw TopologyError(g.nodes[s].where + ": more than " + std::to_string(kMaxHostSwitches) +
                              " switches with hosts");
        hostsw_of[s] = uint32_t(host_switches.size());
        host_switches.push_back(s);
        break;
      }
  // Addresses of host ports and MACs of every port.
  for (uint32_t s : switch_nodes)
    for (size_t p = 0; p < ports[s].size(); ++p) {
      PortEnd& end = ports[s][p];
      if (g.nodes[end.peer].is_switch) {
        const std::vector<PortEnd>& far = ports[end.peer];
        for (size_t q = 0; q < far.size(); ++q)
          if (far[q].link == end.link) end.peer_mac = switch_mac(sw_of[end.peer], uint32_t(q));
      } else {
        const uint32_t net = host_net(hostsw_of[s]) + 4 * uint32_t(p);
        end.local_ip = net + 1;
        end.peer_ip = net + 2;
        end.peer_mac = host_mac(host_of[end.peer]);
      }
    }

  Topology t;
  t.source = source;
  t.nic = nic;
  t.nic_yaml = nic_yaml;
  const uint32_t port_mtu = std::max<uint32_t>(1500, nic.mtu + 64);
  YAML::Node group_settings(YAML::NodeType::Map);
  if (base["groups"] && base["groups"].IsMap() && base["groups"]["uplinks"] &&
      base["groups"]["uplinks"].IsMap())
    group_settings = base["groups"]["uplinks"];

  // Hop counts from each host switch over the switch graph (breadth first).
  std::vector<std::vector<uint32_t>> dist(host_switches.size());
  for (size_t d = 0; d < host_switches.size(); ++d) {
    std::vector<uint32_t>& dd = dist[d];
    dd.assign(n, UINT32_MAX);
    std::deque<uint32_t> queue{host_switches[d]};
    dd[host_switches[d]] = 0;
    while (!queue.empty()) {
      const uint32_t u = queue.front();
      queue.pop_front();
      for (const PortEnd& p : ports[u])
        if (g.nodes[p.peer].is_switch && dd[p.peer] == UINT32_MAX) {
          dd[p.peer] = dd[u] + 1;
          queue.push_back(p.peer);
        }
    }
    for (uint32_t s : switch_nodes)
      if (dd[s] == UINT32_MAX)
        throw TopologyError(source + ": " + g.nodes[s].name + " has no path to " +
                            g.nodes[host_switches[d]].name + "'s hosts");
  }

  std::vector<YAML::Node> docs;
  std::vector<bool> has_groups;
  for (uint32_t s : switch_nodes) {
    const uint32_t si = sw_of[s];
    YAML::Node doc = YAML::Clone(base);
    doc["switch"]["name"] = g.nodes[s].name;
    YAML::Node port_list(YAML::NodeType::Sequence), neighbors(YAML::NodeType::Sequence);
    for (size_t p = 0; p < ports[s].size(); ++p) {
      const PortEnd& end = ports[s][p];
      const GraphLink& link = g.links[end.link];
      YAML::Node pn(YAML::NodeType::Map);
      pn["id"] = p;
      pn["name"] = g.nodes[end.peer].name;
      pn["speed"] = format_speed_bps(link.speed_bps);
      pn["mac"] = switch_mac(si, uint32_t(p));
      pn["ipv4"] = v4(end.local_ip) + "/30";
      pn["mtu"] = port_mtu;
      port_list.push_back(pn);
      YAML::Node nb(YAML::NodeType::Map);
      nb["ip"] = v4(end.peer_ip);
      nb["mac"] = end.peer_mac;
      nb["port"] = p;
      neighbors.push_back(nb);
    }
    doc["ports"] = port_list;
    doc["neighbors"] = neighbors;
    // Routes to every other host switch's /24: the neighbours one hop nearer.
    std::map<std::vector<uint32_t>, std::string> group_of;  // member ports → name
    YAML::Node groups(YAML::NodeType::Map), routes(YAML::NodeType::Sequence);
    for (size_t d = 0; d < host_switches.size(); ++d) {
      if (host_switches[d] == s) continue;
      std::vector<uint32_t> next;
      for (size_t p = 0; p < ports[s].size(); ++p) {
        const PortEnd& end = ports[s][p];
        if (g.nodes[end.peer].is_switch && dist[d][end.peer] + 1 == dist[d][s])
          next.push_back(uint32_t(p));
      }
      YAML::Node r(YAML::NodeType::Map);
      r["prefix"] = v4(host_net(uint32_t(d))) + "/24";
      if (next.size() == 1) {
        r["via"] = v4(ports[s][next[0]].peer_ip);
      } else {
        auto it = group_of.find(next);
        if (it == group_of.end()) {
          std::string name = "uplinks";
          if (!group_of.empty()) name += std::to_string(group_of.size());
          it = group_of.emplace(next, name).first;
          YAML::Node grp = YAML::Clone(group_settings);
          YAML::Node members(YAML::NodeType::Sequence);
          for (uint32_t p : next) members.push_back(v4(ports[s][p].peer_ip));
          grp["members"] = members;
          groups[name] = grp;
        }
        r["group"] = it->second;
      }
      routes.push_back(r);
    }
    if (group_of.empty())
      doc.remove("groups");
    else
      doc["groups"] = groups;
    doc["routes"] = routes;
    const bool leaf = hostsw_of[s] != UINT32_MAX;
    t.switches.push_back(
        {g.nodes[s].name, leaf ? SwitchRole::kLeaf : SwitchRole::kSpine, {}, {}, {}});
    has_groups.push_back(!group_of.empty());
    docs.push_back(doc);
  }
  const auto per_switch =
      topology_detail::split_overrides(overrides, t.switches, has_groups, source);
  for (size_t i = 0; i < t.switches.size(); ++i) {
    t.switches[i].overrides = per_switch[i];
    topology_detail::load_switch(t.switches[i], docs[i], source);
    docs[i] = YAML::Node();
  }

  // Hosts, links, shape facts.
  std::vector<uint64_t> down_bps(n, 0), up_bps(n, 0);
  std::vector<uint32_t> hosts_at(n, 0);
  for (uint32_t h : host_nodes) {
    const PortEnd& end = ports[h][0];
    const uint32_t s = end.peer;
    const std::vector<PortEnd>& sp = ports[s];
    const uint16_t port =
        g.links[end.link].a == s ? link_ports[end.link].first : link_ports[end.link].second;
    const GraphLink& link = g.links[end.link];
    FabricHost fh;
    fh.name = g.nodes[h].name;
    fh.sw = sw_of[s];
    fh.port = port;
    parse_ip(v4(sp[port].peer_ip), fh.ip);
    parse_mac(host_mac(host_of[h]), fh.mac);
    parse_ip(v4(sp[port].local_ip), fh.gateway);
    parse_mac(switch_mac(sw_of[s], port), fh.gateway_mac);
    fh.speed_bps = link.speed_bps;
    fh.delay_ns = link.delay_ns;
    t.hosts.push_back(fh);
    down_bps[s] += link.speed_bps;
    ++hosts_at[s];
  }
  for (size_t k = 0; k < g.links.size(); ++k) {
    const GraphLink& e = g.links[k];
    if (!g.nodes[e.a].is_switch || !g.nodes[e.b].is_switch) continue;
    t.links.push_back({sw_of[e.a], sw_of[e.b], link_ports[k].first, link_ports[k].second,
                       e.speed_bps, e.delay_ns});
    up_bps[e.a] += e.speed_bps;
    up_bps[e.b] += e.speed_bps;
  }
  for (uint32_t s : switch_nodes) {
    if (hostsw_of[s] == UINT32_MAX) {
      ++t.spines;
      continue;
    }
    ++t.leaves;
    t.hosts_per_leaf = std::max(t.hosts_per_leaf, hosts_at[s]);
    if (up_bps[s])
      t.oversubscription = std::max(t.oversubscription, double(down_bps[s]) / double(up_bps[s]));
  }
  return t;
}

}  // namespace rocelb
