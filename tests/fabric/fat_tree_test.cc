// The generated 3-tier fat tree: its shape (k pods, k/2 edge and aggregation
// switches each, (k/2)^2 cores, oversubscription at the edge), the same
// fabric as ConWeave's generator writes in the ns-3 format, shortest-path
// ECMP routes, the shipped presets and the form's key table.
#include <gtest/gtest.h>

#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"
#include "tests/fabric/schema_agreement.h"

namespace rocelb {
namespace {

std::string error_of(const std::string& text) {
  try {
    load_topology_text(text, "t.yaml", ".");
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "";
}

// ConWeave's config/fat_topology_gen.py, in C++: the ns-3 text of a k-ary
// fat tree with `per_edge` hosts per edge switch.
std::string conweave_fat_tree(uint32_t k, uint32_t per_edge) {
  const uint32_t half = k / 2, tors = k * half, aggs = k * half, cores = half * half;
  const uint32_t hosts = tors * per_edge;
  std::string links;
  uint32_t n = 0;
  auto link = [&](uint32_t a, uint32_t b) {
    links += std::to_string(a) + " " + std::to_string(b) + " 100Gbps 1000ns 0.000000\n";
    ++n;
  };
  for (uint32_t p = 0; p < tors; ++p)
    for (uint32_t i = 0; i < per_edge; ++i) link(p * per_edge + i, hosts + p);
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t j = 0; j < half; ++j)
      for (uint32_t l = 0; l < half; ++l) link(hosts + i * half + j, hosts + tors + i * half + l);
  for (uint32_t i = 0; i < k; ++i)
    for (uint32_t j = 0; j < half; ++j)
      for (uint32_t l = 0; l < half; ++l)
        link(hosts + tors + i * half + j, hosts + tors + aggs + j * half + l);
  std::string ids;
  for (uint32_t s = 0; s < tors + aggs + cores; ++s) ids += std::to_string(hosts + s) + " ";
  return std::to_string(hosts + tors + aggs + cores) + " " + std::to_string(tors + aggs + cores) +
         " " + std::to_string(n) + "\n" + ids + "\n" + links;
}

TEST(FatTree, K4Oversubscribed2To1HasConWeavesShape) {
  const Topology t =
      load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/fat_k4_100G_OS2.yaml");
  ASSERT_EQ(t.hosts.size(), 32u);
  ASSERT_EQ(t.switches.size(), 20u);  // 8 edge, 8 aggregation, 4 core
  EXPECT_EQ(t.switches[0].name, "edge0");
  EXPECT_EQ(t.switches[8].name, "agg0");
  EXPECT_EQ(t.switches[16].name, "core0");
  EXPECT_EQ(t.leaves, 8u);
  EXPECT_EQ(t.spines, 12u);
  EXPECT_EQ(t.hosts_per_leaf, 4u);
  EXPECT_DOUBLE_EQ(t.oversubscription, 2.0);
  EXPECT_EQ(t.links.size(), 32u);  // 16 edge-aggregation, 16 aggregation-core
  for (const FabricSwitch& s : t.switches)
    EXPECT_EQ(s.params.ports.size(), s.name.rfind("edge", 0) == 0 ? 6u : 4u) << s.name;
  // An edge reaches the 7 other edges' hosts over its 2 aggregation
  // switches; an aggregation reaches its pod's 2 edges directly and the
  // other pods' 6 over its 2 cores; a core reaches every edge via one
  // aggregation switch.
  const ConfigParams& edge = t.switches[0].params;
  EXPECT_EQ(edge.routes.size(), 7u);
  ASSERT_EQ(edge.groups.size(), 1u);
  EXPECT_EQ(edge.groups[0].members.size(), 2u);
  const ConfigParams& agg = t.switches[8].params;
  EXPECT_EQ(agg.routes.size(), 8u);
  ASSERT_EQ(agg.groups.size(), 1u);
  EXPECT_EQ(agg.groups[0].members.size(), 2u);
  size_t via = 0;
  for (const auto& r : agg.routes) via += r.group.empty();
  EXPECT_EQ(via, 2u);  // edge0 and edge1, its pod's
  EXPECT_TRUE(t.switches[16].params.groups.empty());
  EXPECT_EQ(t.switches[16].params.routes.size(), 8u);
}

TEST(FatTree, IsTheFabricConWeavesGeneratorWritesForNs3) {
  for (uint32_t k : {2u, 4u, 6u}) {
    const Topology gen =
        load_topology_text("k: " + std::to_string(k) + "\nhosts_per_edge: " + std::to_string(k) +
                               "\nhost_speed: 100G\nlink_delay: 1us\n",
                           "fat.yaml", ".");
    const Topology ns3 = load_topology_text(conweave_fat_tree(k, k), "fat.txt", ".");
    ASSERT_EQ(gen.hosts.size(), ns3.hosts.size()) << k;
    ASSERT_EQ(gen.switches.size(), ns3.switches.size()) << k;
    ASSERT_EQ(gen.links.size(), ns3.links.size()) << k;
    for (size_t i = 0; i < gen.hosts.size(); ++i) {
      EXPECT_EQ(gen.hosts[i].name, ns3.hosts[i].name);
      EXPECT_EQ(gen.hosts[i].sw, ns3.hosts[i].sw);
      EXPECT_EQ(gen.hosts[i].port, ns3.hosts[i].port);
      EXPECT_EQ(gen.hosts[i].ip, ns3.hosts[i].ip);
    }
    for (size_t i = 0; i < gen.links.size(); ++i) {
      EXPECT_EQ(gen.links[i].a_sw, ns3.links[i].a_sw);
      EXPECT_EQ(gen.links[i].b_sw, ns3.links[i].b_sw);
      EXPECT_EQ(gen.links[i].a_port, ns3.links[i].a_port);
      EXPECT_EQ(gen.links[i].b_port, ns3.links[i].b_port);
      EXPECT_EQ(gen.links[i].delay_ns, ns3.links[i].delay_ns);
    }
    for (size_t i = 0; i < gen.switches.size(); ++i) {
      EXPECT_EQ(gen.switches[i].params.routes, ns3.switches[i].params.routes) << k << " " << i;
      EXPECT_EQ(gen.switches[i].params.ports.size(), ns3.switches[i].params.ports.size());
    }
  }
}

TEST(FatTree, TheK8PresetHas256Hosts) {
  const Topology t =
      load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/fat_k8_100G_OS2.yaml");
  EXPECT_EQ(t.hosts.size(), 256u);
  EXPECT_EQ(t.switches.size(), 80u);
  EXPECT_EQ(t.links.size(), 256u);
  EXPECT_DOUBLE_EQ(t.oversubscription, 2.0);
}

TEST(FatTree, TierSpeedsAndDelaysAreTheirOwn) {
  const Topology t = load_topology_text(
      "k: 4\nhost_speed: 25G\nedge_uplink_speed: 50G\nagg_uplink_speed: 100G\n"
      "link_delay: 1us\nhost_link_delay: 200ns\nagg_uplink_delay: 3us\n",
      "t.yaml", ".");
  EXPECT_EQ(t.hosts[0].speed_bps, 25'000'000'000u);
  EXPECT_EQ(t.hosts[0].delay_ns, 200u);
  EXPECT_EQ(t.links.front().speed_bps, 50'000'000'000u);
  EXPECT_EQ(t.links.front().delay_ns, 1000u);
  EXPECT_EQ(t.links.back().speed_bps, 100'000'000'000u);
  EXPECT_EQ(t.links.back().delay_ns, 3000u);
  // 2 hosts × 25G over 2 × 50G: 0.5, no oversubscription.
  EXPECT_DOUBLE_EQ(t.oversubscription, 0.5);
}

TEST(FatTree, BadShapesAreRefusedWithTheKey) {
  EXPECT_EQ(error_of("k: 5\nhost_speed: 100G\nlink_delay: 1us\n"),
            "t.yaml: k: 5: must be even (k/2 edge, aggregation switches)");
  EXPECT_EQ(error_of("k: 8\nhosts_per_edge: 253\nhost_speed: 100G\nlink_delay: 1us\n"),
            "t.yaml: hosts_per_edge: hosts_per_edge + k/2 is 257: an edge switch has at most 256 "
            "ports");
  EXPECT_EQ(error_of("k: 4\nhost_speed: 100G\n"), "t.yaml: missing required key \"link_delay\"");
  EXPECT_EQ(error_of("k: 4\nhost_speed: 100G\nlink_delay: 1us\nspines: 2\n").substr(0, 22),
            "t.yaml: spines: unknow");
}

TEST(FatTree, NetworkLoadIsDividedByTheEdgeOversubscription) {
  const Topology t =
      load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/fat_k4_100G_OS2.yaml");
  const Workload w = load_workload_text(
      "type: poisson\ncdf: AliStorage2019\nload: 0.5\nload_of: network\nduration: 1ms\n", "w.yaml",
      ".", t, 1);
  EXPECT_DOUBLE_EQ(w.load, 0.25);
}

TEST(FatTree, TheTableAndTheReaderAgree) {
  EXPECT_EQ(test::expect_table_and_reader_agree(fat_tree_topology_schema(),
                                                "k: 2\nhost_speed: 100G\nlink_delay: 1us\n",
                                                [](const std::string& t) { return error_of(t); }),
            14u);
}

}  // namespace
}  // namespace rocelb
