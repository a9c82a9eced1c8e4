// A fabric run on a dual-plane leaf-spine (topology.h `planes`): a flow
// stays on the plane flow_plane() drew for it (the other plane's switches
// see none of its packets; a host port's wire carries traffic only for the
// flows of its plane), both planes carry a workload's flows, flows.csv
// says each flow's plane, --capture h3.1 is host h3's port on plane 1, one
// plane is the same bytes as a topology without the key, and any number of
// threads writes the same bytes as one.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dataplane/run/fabric_run.h"
#include "dataplane/sim/flow_plane.h"
#include "dataplane/wire/pcap_file.h"
#include "fabric_outputs.h"
#include "test_support.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

constexpr const char* kDual =
    "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\nplanes: 2\n";

using test::slurp;

std::vector<std::vector<std::string>> read_csv(const fs::path& p) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(slurp(p));
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) c.push_back(cell);
    if (!line.empty() && line.back() == ',') c.push_back("");
    rows.push_back(c);
  }
  return rows;
}

// Every switch's received packets, by name.
std::map<std::string, uint64_t> rx_by_switch(const fs::path& dir) {
  std::map<std::string, uint64_t> rx;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    const auto dot = name.find(".counters.json");
    if (dot == std::string::npos) continue;
    rx[name.substr(0, dot)] = Json::parse(slurp(e.path()))["totals"]["rx_packets"].get<uint64_t>();
  }
  return rx;
}

class FabricDualPlane : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    base_ = fs::temp_directory_path() /
            ("rocelb_dual_plane_" + std::to_string(::getpid()) + "_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(base_);
    fs::create_directories(base_);
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path run(const Topology& topo_in, const std::string& workload_yaml, uint64_t seed,
               uint32_t threads = 1, const std::vector<std::string>& captures = {},
               bool record = false) {
    Topology topo = topo_in;
    Workload wl = load_workload_text(workload_yaml, "w.yaml", ".", topo, seed);
    const NicParams nic = topo.nic;
    FabricRun engine(std::move(topo), nic, std::move(wl), seed);
    FabricRunOptions opt;
    opt.out_dir = (base_ / ("run" + std::to_string(++runs_))).string();
    opt.threads = threads;
    opt.link_window_ns = 10'000;
    opt.captures = captures;
    if (record) {
      opt.record.events = true;
      opt.record.timeline_ns = 10'000;
    }
    const FabricResult r = engine.run(opt);
    EXPECT_TRUE(r.conserved);
    EXPECT_EQ(r.flows_finished, r.flows);
    return opt.out_dir;
  }

  static void expect_same(const fs::path& a, const fs::path& b) { test::expect_same_outputs(a, b); }

  fs::path base_;
  int runs_ = 0;
};

TEST_F(FabricDualPlane, ALoneFlowCrossesOnlyTheSwitchesOfItsPlane) {
  const Topology topo = load_topology_text(kDual, "dual.yaml", ".");
  // A seed that draws plane 0 for flow 0 and one that draws plane 1.
  for (uint32_t want = 0; want < 2; ++want) {
    uint64_t seed = 1;
    while (flow_plane(seed, 0, 2) != want) ++seed;
    SCOPED_TRACE("plane " + std::to_string(want) + ", seed " + std::to_string(seed));
    const fs::path dir = run(topo, "flows:\n  - {src: h1, dst: h6, size: 200KB}\n", seed);
    const auto rows = read_csv(dir / "flows.csv");
    ASSERT_EQ(rows.size(), 2u);
    ASSERT_EQ(rows[0].size(), 13u);
    EXPECT_EQ(rows[0].back(), "plane");
    EXPECT_EQ(rows[1][1], "h1");  // flows.csv names hosts, not ports
    EXPECT_EQ(rows[1][2], "h6");
    EXPECT_EQ(rows[1][12], std::to_string(want));
    EXPECT_LT(std::stod(rows[1][8]), 1.01);  // alone on its plane: at its ideal time
    const std::string mine = "p" + std::to_string(want) + "-";
    const std::string other = "p" + std::to_string(1 - want) + "-";
    const auto rx = rx_by_switch(dir);
    ASSERT_EQ(rx.size(), 8u);
    EXPECT_GT(rx.at(mine + "leaf0"), 150u);  // 200 packets out, their ACKs in
    EXPECT_GT(rx.at(mine + "leaf1"), 150u);
    EXPECT_GT(rx.at(mine + "spine0") + rx.at(mine + "spine1"), 300u);
    for (const char* sw : {"leaf0", "leaf1", "spine0", "spine1"})
      EXPECT_EQ(rx.at(other + sw), 0u) << other << sw;
  }
}

TEST_F(FabricDualPlane, EveryHostPortCarriesOnlyTheFlowsOfItsPlane) {
  const Topology topo = load_topology_text(kDual, "dual.yaml", ".");
  const uint64_t seed = 4;
  const fs::path dir = run(
      topo, "type: poisson\ncdf: AliStorage2019\nload: 0.4\nduration: 100us\npairs: any\n", seed);
  // The ports each flow uses: its source's and its destination's on its plane.
  std::set<std::string> used;
  std::vector<uint32_t> per_plane(2, 0);
  const auto flows = read_csv(dir / "flows.csv");
  ASSERT_GT(flows.size(), 40u);
  for (size_t i = 1; i < flows.size(); ++i) {
    const auto& f = flows[i];
    ASSERT_EQ(f.size(), 13u);
    const uint32_t plane = flow_plane(seed, std::stoull(f[0]), 2);
    EXPECT_EQ(f[12], std::to_string(plane)) << "flow " << f[0];
    ++per_plane[plane];
    const std::string suffix = plane == 0 ? "" : "." + std::to_string(plane);
    used.insert(f[1] + suffix);
    used.insert(f[2] + suffix);
  }
  EXPECT_GT(per_plane[0], 10u);
  EXPECT_GT(per_plane[1], 10u);
  // links.csv: a host port's wire carries bytes only if a flow of its
  // plane starts or ends there, and every such port's wire does.
  std::set<std::string> sending;
  const auto links = read_csv(dir / "links.csv");
  for (size_t i = 1; i < links.size(); ++i) {
    const std::string& from = links[i][0];
    if (from.find(':') == std::string::npos && std::stoull(links[i][3]) > 0) sending.insert(from);
  }
  EXPECT_EQ(sending, used);
  const auto rx = rx_by_switch(dir);
  for (const char* sw : {"p0-leaf0", "p0-leaf1", "p1-leaf0", "p1-leaf1"})
    EXPECT_GT(rx.at(sw), 0u) << sw;
}

TEST_F(FabricDualPlane, ACaptureOfHostDotPlaneIsThatPortsFrames) {
  const Topology topo = load_topology_text(kDual, "dual.yaml", ".");
  EXPECT_EQ(capture_target(topo, "h3.1").index, topo.port_of(3, 1));
  EXPECT_TRUE(capture_target(topo, "h3.1").host);
  EXPECT_EQ(capture_target(topo, "h3").index, 3u);
  EXPECT_EQ(capture_target(topo, "p1-leaf0:3").index, 2u);  // the leaf port facing h3.1
  try {
    capture_target(topo, "h3.2");
    ADD_FAILURE() << "h3.2 accepted";
  } catch (const FabricError& e) {
    EXPECT_EQ(std::string(e.what()),
              "--capture h3.2: \"h3.2\" is neither a host, HOST.PLANE (0..1) nor SWITCH:PORT");
  }
  // Flows h3 -> h5 until one runs on plane 1: its frames are in h3.1's
  // capture, from h3's plane-1 address (11.0.3.2), and none in h3's.
  uint64_t seed = 1;
  while (flow_plane(seed, 0, 2) != 1) ++seed;
  const fs::path dir =
      run(topo, "flows:\n  - {src: h3, dst: h5, size: 20KB}\n", seed, 1, {"h3.1", "h3"});
  PcapReader one((dir / "capture-h3.1.pcap").string());
  PcapReader zero((dir / "capture-h3.pcap").string());
  PcapRecord rec;
  size_t frames = 0;
  while (one.next(rec)) {
    ++frames;
    ASSERT_GE(rec.caplen, 34u);
    EXPECT_EQ(rec.data[26], 11);  // IPv4 source 11.0.3.2
    EXPECT_EQ(rec.data[29], 2);
  }
  EXPECT_GE(frames, 20u);  // 20 KB in 1 KB packets
  EXPECT_FALSE(zero.next(rec));
}

TEST_F(FabricDualPlane, OnePlaneIsTheSameBytesAsNoKey) {
  // The same file name both times (summary.json and run.json name it).
  const fs::path file = base_ / "fabric.yaml";
  const std::string shipped =
      slurp(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_2x2_8h.yaml");
  const std::string wl = "type: poisson\ncdf: AliStorage2019\nload: 0.5\nduration: 60us\n";
  std::ofstream(file) << shipped;
  const fs::path a = run(load_topology_file(file.string()), wl, 3, 1, {"h3", "leaf0:4"}, true);
  std::ofstream(file) << shipped << "planes: 1\n";
  const fs::path b = run(load_topology_file(file.string()), wl, 3, 1, {"h3", "leaf0:4"}, true);
  expect_same(a, b);
  EXPECT_EQ(read_csv(fs::path(a) / "flows.csv")[0].size(), 12u);  // no plane column
}

TEST_F(FabricDualPlane, AnyNumberOfThreadsWritesTheSameBytes) {
  const Topology topo =
      load_topology_text(kDual, "dual.yaml", ".", {"groups.uplinks.mode=flowlet_random"});
  const std::string wl =
      "type: poisson\ncdf: AliStorage2019\nload: 0.6\nduration: 100us\npairs: inter_leaf\n";
  const fs::path one = run(topo, wl, 7, 1);
  expect_same(one, run(topo, wl, 7, 2));
  expect_same(one, run(topo, wl, 7, 3));
  const Json s = Json::parse(slurp(one / "summary.json"));
  EXPECT_EQ(s["cost"]["memory"]["hosts"]["count"].get<uint64_t>(), 8u);  // hosts, not ports
}

}  // namespace
}  // namespace rocelb
