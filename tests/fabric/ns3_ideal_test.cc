// ns3_standalone_fct_ns (ideal_fct.h), the ideal of `fabric --ideal ns3`,
// gives every standalone_fct ConWeave's ns-3 wrote: the 2,404 flows of the
// stored ns-3 result tests/integration/vs_ns3_data (32 hosts: 4 leaves of
// 8, 4 spines, 100G, 1 us links, 1,000-byte payloads), each from its path in
// the same topology read from ns-3's format, same-leaf and across spines.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "dataplane/sim/ideal_fct.h"
#include "dataplane/sim/topology.h"

namespace rocelb {
namespace {

// ns-3's topology file of the 32-host leaf-spine, as tools/bench-ns3 writes
// it: hosts 0..31, leaves 32..35, spines 36..39.
std::string leaf_spine_32_ns3() {
  std::string links;
  int n = 0;
  for (int leaf = 0; leaf < 4; ++leaf)
    for (int h = 0; h < 8; ++h, ++n)
      links +=
          std::to_string(leaf * 8 + h) + " " + std::to_string(32 + leaf) + " 100Gbps 1000ns 0\n";
  for (int leaf = 0; leaf < 4; ++leaf)
    for (int s = 0; s < 4; ++s, ++n)
      links += std::to_string(32 + leaf) + " " + std::to_string(36 + s) + " 100Gbps 1000ns 0\n";
  return "40 8 " + std::to_string(n) + "\n32 33 34 35 36 37 38 39\n" + links;
}

TEST(Ns3Ideal, EveryStandaloneFctOfAStoredNs3Run) {
  const Topology t = load_topology_text(leaf_spine_32_ns3(), "leaf_spine_32.txt", ".");
  ASSERT_EQ(t.hosts.size(), 32u);
  HostPaths paths(t);
  std::ifstream in(std::string(ROCELB_SOURCE_DIR) +
                   "/tests/integration/vs_ns3_data/ecmp-lossless/out_fct.txt");
  ASSERT_TRUE(in.good());
  size_t lines = 0, same_leaf = 0;
  for (std::string line; std::getline(in, line);) {
    std::istringstream ls(line);
    uint64_t src, dst, sport, dport, size, start, fct, standalone;
    ASSERT_TRUE(ls >> src >> dst >> sport >> dport >> size >> start >> fct >> standalone) << line;
    ++lines;
    same_leaf += src / 8 == dst / 8;
    EXPECT_EQ(ns3_standalone_fct_ns(
                  paths.path(static_cast<uint32_t>(src), static_cast<uint32_t>(dst)), size, 1000),
              standalone)
        << line;
  }
  EXPECT_EQ(lines, 2404u);
  EXPECT_GT(same_leaf, 100u);  // both path lengths are checked
}

// The tiny case ns-3 gave 343,680 ns: 4 MB across the spines.
TEST(Ns3Ideal, FourMegabytesAcrossTheSpines) {
  const std::vector<PathLink> path(4, PathLink{100'000'000'000, 1000});
  // 2 × 4 us + 4 × 80 ns + (4,000,000 + 4,000 × 48) B × 0.08 ns
  EXPECT_EQ(ns3_standalone_fct_ns(path, 4'000'000, 1000), 8000u + 320 + 335'360);
}

}  // namespace
}  // namespace rocelb
