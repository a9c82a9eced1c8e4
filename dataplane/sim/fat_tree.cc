#include "dataplane/sim/fat_tree.h"

#include "common/constants.h"
#include "control/yaml_util.h"
#include "dataplane/sim/topology_graph.h"
#include "dataplane/sim/topology_keys.h"

namespace rocelb {
namespace {

std::string numbered(const char* prefix, uint32_t n) {
  std::string s(prefix);
  s += std::to_string(n);
  return s;
}

}  // namespace

Topology load_fat_tree_topology(const YAML::Node& root, const std::string& source,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides) {
  const KeyReader r = topology_detail::topology_reader(fat_tree_topology_schema(), source);
  r.check_utf8(root, "");
  // A fat tree is one plane (its hosts have one NIC port each).
  if (root["planes"])
    r.fail("planes",
           "a fat tree has one plane: planes is a key of the generated leaf-spine (leaves, "
           "spines, hosts_per_leaf, ...)");
  const KeyReader::Map m = r.top(root);
  for (const char* key : {"k", "host_speed", "link_delay"}) m.require(key);
  uint32_t k = 0;
  m.read("k", k);
  if (k % 2) r.fail("k", std::to_string(k) + ": must be even (k/2 edge, aggregation switches)");
  const uint32_t half = k / 2;
  uint32_t hosts_per_edge = half;
  m.read("hosts_per_edge", hosts_per_edge);
  if (hosts_per_edge + half > uint32_t(kMaxPorts))
    r.fail("hosts_per_edge", "hosts_per_edge + k/2 is " + std::to_string(hosts_per_edge + half) +
                                 ": an edge switch has at most " + std::to_string(kMaxPorts) +
                                 " ports");
  uint64_t host_speed = 0;
  m.read("host_speed", host_speed);
  uint64_t edge_speed = host_speed;
  m.read("edge_uplink_speed", edge_speed);
  uint64_t agg_speed = edge_speed;
  m.read("agg_uplink_speed", agg_speed);
  uint64_t delay = 0;
  m.read("link_delay", delay);
  uint64_t host_delay = delay, edge_delay = delay, agg_delay = delay;
  m.read("host_link_delay", host_delay);
  m.read("edge_uplink_delay", edge_delay);
  m.read("agg_uplink_delay", agg_delay);
  std::string switch_config;
  if (m.read("switch_config", switch_config) && switch_config.empty())
    r.fail("switch_config", "must be a file path");
  std::string nic_yaml;
  const NicParams nic = topology_detail::nic_params(root, overrides, source, &nic_yaml);
  YAML::Node base = load_base_switch_config(
      switch_config, base_dir, [&](const std::string& why) { r.fail("switch_config", why); });
  apply_switch_set(base, m, source);

  // Nodes in ConWeave's generator's order: hosts, edges, aggregations, cores.
  const uint32_t edges = k * half, aggs = k * half, cores = half * half;
  const uint32_t hosts = edges * hosts_per_edge;
  FabricGraph g;
  const std::string where = source + ": k";
  for (uint32_t h = 0; h < hosts; ++h) g.nodes.push_back({numbered("h", h), false, where});
  const uint32_t edge0 = hosts, agg0 = edge0 + edges, core0 = agg0 + aggs;
  for (uint32_t e = 0; e < edges; ++e) g.nodes.push_back({numbered("edge", e), true, where});
  for (uint32_t a = 0; a < aggs; ++a) g.nodes.push_back({numbered("agg", a), true, where});
  for (uint32_t c = 0; c < cores; ++c) g.nodes.push_back({numbered("core", c), true, where});
  for (uint32_t e = 0; e < edges; ++e)
    for (uint32_t i = 0; i < hosts_per_edge; ++i)
      g.links.push_back({e * hosts_per_edge + i, edge0 + e, host_speed, host_delay, where});
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t e = 0; e < half; ++e)
      for (uint32_t a = 0; a < half; ++a)
        g.links.push_back(
            {edge0 + p * half + e, agg0 + p * half + a, edge_speed, edge_delay, where});
  for (uint32_t p = 0; p < k; ++p)
    for (uint32_t a = 0; a < half; ++a)
      for (uint32_t c = 0; c < half; ++c)
        g.links.push_back({agg0 + p * half + a, core0 + a * half + c, agg_speed, agg_delay, where});
  return build_graph_topology(g, base, nic, nic_yaml, overrides, source);
}

}  // namespace rocelb
