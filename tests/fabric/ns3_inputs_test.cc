// HPCC's and ConWeave's ns-3 topology and flow files read directly: the
// checked-in 4-host fabric and 5-flow file (tests/fabric/ns3/, written for
// these tests), detection by content, and every malformed line refused with
// FILE:LINE and its rule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "dataplane/sim/ns3_flows.h"
#include "dataplane/sim/ns3_text.h"
#include "dataplane/sim/ns3_topology.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/topology_explicit.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

std::string fixture(const std::string& name) {
  return std::string(ROCELB_SOURCE_DIR) + "/tests/fabric/ns3/" + name;
}

const Topology& four_hosts() {
  static const Topology t = load_topology_file(fixture("four_hosts.txt"));
  return t;
}

std::string topology_error(const std::string& text) {
  try {
    load_topology_text(text, "t.txt", ".");
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "";
}

std::string flows_error(const std::string& text) {
  try {
    load_workload_text(text, "f.txt", ".", four_hosts(), 1);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(Ns3Topology, TheFourHostFabricLoads) {
  const Topology& t = four_hosts();
  ASSERT_EQ(t.hosts.size(), 4u);
  ASSERT_EQ(t.switches.size(), 4u);
  EXPECT_EQ(t.switches[0].name, "sw4");
  EXPECT_EQ(t.switches[3].name, "sw7");
  EXPECT_EQ(t.switches[0].role, SwitchRole::kLeaf);
  EXPECT_EQ(t.switches[2].role, SwitchRole::kSpine);
  EXPECT_EQ(t.leaves, 2u);
  EXPECT_EQ(t.spines, 2u);
  EXPECT_EQ(t.hosts_per_leaf, 2u);
  EXPECT_DOUBLE_EQ(t.oversubscription, 1.0);
  EXPECT_EQ(t.hosts[2].name, "h2");
  EXPECT_EQ(t.hosts[2].sw, 1u);  // sw5
  EXPECT_EQ(t.hosts[2].port, 0);
  EXPECT_EQ(t.hosts[3].port, 1);
  EXPECT_EQ(t.hosts[0].speed_bps, 100'000'000'000u);
  ASSERT_EQ(t.links.size(), 4u);
  // 5 7 100Gbps 1us: sw5's port 3 (after h2, h3, sw6) to sw7's port 1.
  EXPECT_EQ(t.links[3].a_sw, 1u);
  EXPECT_EQ(t.links[3].a_port, 3);
  EXPECT_EQ(t.links[3].b_sw, 3u);
  EXPECT_EQ(t.links[3].b_port, 1);
  EXPECT_EQ(t.links[3].delay_ns, 1000u);
  // A leaf spreads the other leaf's hosts over both spines; a spine sends
  // them to the one leaf.
  const ConfigParams& leaf = t.switches[0].params;
  ASSERT_EQ(leaf.groups.size(), 1u);
  EXPECT_EQ(leaf.groups[0].name, "uplinks");
  EXPECT_EQ(leaf.groups[0].members.size(), 2u);
  EXPECT_EQ(leaf.routes.size(), 1u);
  EXPECT_TRUE(t.switches[2].params.groups.empty());
  EXPECT_EQ(t.switches[2].params.routes.size(), 2u);
}

// The generated configs pass the explicit form's rules (every route's
// port has a link or a host, every host a neighbor in its subnet): export
// and load again give the same fabric.
TEST(Ns3Topology, ExportsToTheExplicitFormAndLoadsBack) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rocelb-ns3-export-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  for (const auto& [name, text] : export_explicit_topology(four_hosts()))
    std::ofstream(dir / name) << text;
  const Topology back = load_topology_file((dir / "fabric.yaml").string());
  std::filesystem::remove_all(dir);
  ASSERT_EQ(back.hosts.size(), 4u);
  ASSERT_EQ(back.links.size(), 4u);
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(back.hosts[i].ip, four_hosts().hosts[i].ip);
    EXPECT_EQ(back.links[i].a_port, four_hosts().links[i].a_port);
    EXPECT_EQ(back.links[i].delay_ns, four_hosts().links[i].delay_ns);
  }
  EXPECT_EQ(back.switches[0].params.routes, four_hosts().switches[0].params.routes);
}

TEST(Ns3Topology, IsKnownByItsContentNotItsName) {
  std::ifstream in(fixture("four_hosts.txt"));
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(load_topology_text(text, "fabric.yaml", ".").hosts.size(), 4u);
  EXPECT_TRUE(is_ns3_topology("\n 3 2 1\n"));
  EXPECT_FALSE(is_ns3_topology("leaves: 2\n"));
  EXPECT_FALSE(is_ns3_topology("3 2\n1 2\n"));
}

TEST(Ns3Topology, SetsReachItsSwitchesAndNics) {
  const Topology t = load_topology_file(fixture("four_hosts.txt"),
                                        {"nic.mtu=4096", "sw4:groups.uplinks.mode=flowlet_random"});
  EXPECT_EQ(t.nic.mtu, 4096u);
  EXPECT_EQ(t.switches[0].params.groups[0].mode, LbMode::kFlowletRandom);
  EXPECT_EQ(t.switches[1].params.groups[0].mode, LbMode::kFixed);
}

TEST(Ns3Topology, MalformedLinesAreRefusedWithFileAndLine) {
  const std::string head = "4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n";
  EXPECT_EQ(topology_error(head + "2 3 100Gbps 1000ns 0\n").empty(), true);
  EXPECT_EQ(topology_error(head + "2 3 100Gbit 1000ns 0\n"),
            "t.txt:5: rate \"100Gbit\": not an ns-3 DataRate (a number and bps, Kbps, Mbps, "
            "Gbps or Tbps)");
  EXPECT_EQ(topology_error(head + "2 3 100Gbps 1.5ns 0\n"),
            "t.txt:5: delay \"1.5ns\": not a whole number of nanoseconds (a number and s, ms, "
            "us, ns or ps)");
  EXPECT_EQ(topology_error(head + "2 3 100Gbps 1000ns 0.001\n"),
            "t.txt:5: error rate 0.001: must be 0 (rocelb's links lose no packet at random)");
  EXPECT_EQ(topology_error(head + "2 9 100Gbps 1000ns 0\n"), "t.txt:5: node 9: the nodes are 0..3");
  EXPECT_EQ(topology_error(head + "2 3 100Gbps 1000ns\n"),
            "t.txt:5: the file ends before link 3 of 3: its error rate");
  // What follows the links is ignored, as ns-3 ignores it (ConWeave's notes).
  EXPECT_EQ(topology_error(head + "2 3 100Gbps 1000ns 0\n\nFirst line: total node #\n"), "");
  EXPECT_EQ(topology_error("4 2 3\n2 2\n"), "t.txt:2: switch id 2 is listed twice");
  EXPECT_EQ(topology_error("4 2 3\n2 4\n"), "t.txt:2: switch id 4: the nodes are 0..3");
  EXPECT_EQ(topology_error(head + "0 3 100Gbps 1000ns 0\n"),
            "t.txt:5: host h0 has a second link: a host has one NIC port");
  EXPECT_EQ(topology_error("4 2 1\n2 3\n0 1 100Gbps 1000ns 0\n"),
            "t.txt:3: h0 and h1 are both hosts: a link has a switch at one end at least");
  EXPECT_EQ(topology_error("4 2 2\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"),
            "t.txt: sw3 has no path to sw2's hosts");
  EXPECT_EQ(topology_error(head + "2 3 100Kbps 1000ns 0\n"),
            "t.txt:5: rate 100Kbps: must be 1Mbps .. 1.6Tbps");
  // 257 links on one switch: more than its 256 ports.
  std::string wide = "259 1 258\n0\n";
  for (int i = 1; i <= 258; ++i) wide += "0 " + std::to_string(i) + " 100Gbps 1000ns 0\n";
  EXPECT_EQ(topology_error(wide),
            "t.txt:259: sw0 would have 257 links: a switch has at most 256 ports");
}

TEST(Ns3Text, UnitsAreReadAsNs3ReadsThem) {
  uint64_t v = 0;
  EXPECT_TRUE(ns3_text::parse_rate_bps("100Gbps", v));
  EXPECT_EQ(v, 100'000'000'000u);
  EXPECT_TRUE(ns3_text::parse_rate_bps("2.5Gb/s", v));
  EXPECT_EQ(v, 2'500'000'000u);
  EXPECT_TRUE(ns3_text::parse_rate_bps("1e11", v));
  EXPECT_EQ(v, 100'000'000'000u);
  EXPECT_TRUE(ns3_text::parse_time_ns("1us", v));
  EXPECT_EQ(v, 1000u);
  EXPECT_TRUE(ns3_text::parse_time_ns("0.000001", v));
  EXPECT_EQ(v, 1000u);
  EXPECT_TRUE(ns3_text::parse_time_ns("2500ps", v) == false);
  EXPECT_TRUE(ns3_text::parse_scaled("2.000001234", 9, v));
  EXPECT_EQ(v, 2'000'001'234u);
  EXPECT_FALSE(ns3_text::parse_scaled("-1", 9, v));
  EXPECT_FALSE(ns3_text::parse_scaled("1.2.3", 9, v));
}

TEST(Ns3Flows, TheFiveFlowFileLoads) {
  const Workload w = load_workload_file(fixture("five_flows.txt"), four_hosts(), 1);
  ASSERT_EQ(w.flows.size(), 5u);
  EXPECT_EQ(w.kind, "ns3");
  EXPECT_EQ(w.description, "ns-3 flows (ConWeave form), 5 flows, starts moved back by 2s");
  const uint64_t starts[] = {0, 1000, 2500, 10000, 20000};
  const uint64_t sizes[] = {4000, 100000, 1, 65536, 1};  // 0 bytes is read as 1, as ns-3 does
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(w.flows[i].id, i);
    EXPECT_EQ(w.flows[i].start_ns, starts[i]) << i;
    EXPECT_EQ(w.flows[i].size_bytes, sizes[i]) << i;
  }
  EXPECT_EQ(w.flows[1].src, 1u);
  EXPECT_EQ(w.flows[1].dst, 3u);
}

TEST(Ns3Flows, HpccsFormWithADportLoadsToo) {
  const Workload w = load_workload_text("2\n0 2 3 100 4000 0.5\n1 3 3 101 1000 0.25\n", "f.txt",
                                        ".", four_hosts(), 1);
  ASSERT_EQ(w.flows.size(), 2u);
  EXPECT_EQ(w.flows[0].start_ns, 250'000'000u);  // in start order
  EXPECT_EQ(w.flows[0].size_bytes, 1000u);
  EXPECT_EQ(w.description, "ns-3 flows (HPCC form), 2 flows");
}

TEST(Ns3Flows, MalformedLinesAreRefusedWithFileAndLine) {
  EXPECT_EQ(flows_error("2\n0 2 3 100 2.0\n1 3 3 100\n"),
            "f.txt:3: 4 fields: the first flow has 5 (src dst pg size start)");
  EXPECT_EQ(flows_error("1\n0 2 3\n"),
            "f.txt:2: 3 fields: a flow is \"src dst pg size start\" (ConWeave) or \"src dst "
            "pg dport size start\" (HPCC)");
  EXPECT_EQ(flows_error("1\n0 5 3 100 2.0\n"),
            "f.txt:2: dst 5: not a host node of the topology (h0..h3)");
  EXPECT_EQ(flows_error("1\n1 1 3 100 2.0\n"), "f.txt:2: src and dst are the same host");
  EXPECT_EQ(flows_error("1\n0 2 5 100 2.0\n"),
            "f.txt:2: pg 5: must be the NIC's data priority, 3 (nic.data_priority)");
  EXPECT_EQ(flows_error("1\n0 2 3 1e3 2.0\n"),
            "f.txt:2: size 1e3: must be whole bytes, at most 2147483648 (2 GiB)");
  EXPECT_EQ(flows_error("1\n0 2 3 100 -2.0\n"),
            "f.txt:2: start -2.0: must be seconds (\"2.000001234\"), at most 3600");
  EXPECT_EQ(flows_error("3\n0 2 3 100 2.0\n\n"),
            "f.txt:3: the file ends after 1 of the 3 flows its first line announces");
  EXPECT_EQ(flows_error("1\n0 2 3 100 2.0\n1 3 3 100 2.0\n"),
            "f.txt:3: more flows than the 1 the first line announces");
  EXPECT_EQ(flows_error("9000000\n"),
            "f.txt:1: the flow count \"9000000\" must be at most 5000000");
}

}  // namespace
}  // namespace rocelb
