// HostPaths, the many-flow form of host_path: on the shipped fat_k8 (256
// hosts, 80 switches) every pair's path has the fat tree's length (2, 4 or
// 6 links between the host links), its ideal FCT is host_path's, a path
// asked again after others from the same switch is unchanged, and a core
// link taken down leaves the paths through the other cores.
#include <gtest/gtest.h>

#include "dataplane/sim/ideal_fct.h"
#include "dataplane/sim/topology.h"

namespace rocelb {
namespace {

const std::string kFatK8 = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/fat_k8_100G_OS2.yaml";

// Links between the two host links, by the fat tree's shape: hosts_per_edge
// 8 and 4 edge switches a pod: 8 hosts an edge switch, 32 a pod.
size_t fat_middle(uint32_t a, uint32_t b) {
  if (a / 8 == b / 8) return 0;    // same edge switch
  if (a / 32 == b / 32) return 2;  // same pod: up to an aggregation switch
  return 4;                        // up to a core and down
}

TEST(HostPaths, FatTreePathLengthsForEveryPair) {
  const Topology t = load_topology_file(kFatK8);
  ASSERT_EQ(t.hosts.size(), 256u);
  HostPaths paths(t);
  for (uint32_t a = 0; a < 256; a += 3)
    for (uint32_t b = 0; b < 256; ++b) {
      if (a == b) continue;
      const auto p = paths.path(a, b);
      ASSERT_EQ(p.size(), 2 + fat_middle(a, b)) << a << " -> " << b;
      EXPECT_EQ(p.front().speed_bps, 100'000'000'000u);
      EXPECT_EQ(p.back().delay_ns, 1000u);
    }
}

TEST(HostPaths, SameAsHostPathAndStableWhenAskedAgain) {
  const Topology t = load_topology_file(kFatK8);
  HostPaths paths(t);
  const uint64_t first = ideal_fct_ps(paths.path(0, 255), 1'000'000, 1000);
  for (uint32_t b = 1; b < 256; ++b) paths.path(0, b);
  EXPECT_EQ(ideal_fct_ps(paths.path(0, 255), 1'000'000, 1000), first);
  EXPECT_EQ(ideal_fct_ps(host_path(t, 0, 255), 1'000'000, 1000), first);
  EXPECT_EQ(ideal_fct_ps(host_path(t, 7, 40), 4000, 1000),
            ideal_fct_ps(paths.path(7, 40), 4000, 1000));
}

TEST(HostPaths, ALinkDownIsGoneAroundAndAllDownMeansNoPath) {
  Topology t = load_topology_file(kFatK8);
  // Take down every link of edge switch 0's first host's edge switch but
  // one: the path still has 4 middle links; then that one too: no path.
  const uint32_t edge = t.hosts[0].sw;
  std::vector<size_t> up;
  for (size_t i = 0; i < t.links.size(); ++i)
    if (t.links[i].a_sw == edge || t.links[i].b_sw == edge) up.push_back(i);
  ASSERT_EQ(up.size(), 4u);  // k/2 uplinks
  for (size_t j = 1; j < up.size(); ++j) t.links[up[j]].up = false;
  EXPECT_EQ(HostPaths(t).path(0, 255).size(), 6u);
  t.links[up[0]].up = false;
  EXPECT_TRUE(HostPaths(t).path(0, 255).empty());
  EXPECT_EQ(HostPaths(t).path(0, 1).size(), 2u);  // same edge switch: no uplink needed
}

}  // namespace
}  // namespace rocelb
