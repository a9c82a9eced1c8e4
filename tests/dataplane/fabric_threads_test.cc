// A fabric run split over threads (fabric_shard.h, --threads N) writes the
// same bytes as one thread, for every N, on runs that exercise what crosses
// threads: frames on every uplink, PFC pauses, flowlet state, all_to_all
// phases that start the moment the last flow finished, a run cut short
// with frames on wires, and links.csv stopped by --max-output. Also the
// partition: hosts stay with their leaf, work is balanced, N is capped.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "dataplane/run/fabric_partition.h"
#include "dataplane/run/fabric_run.h"
#include "fabric_outputs.h"
#include "test_support.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

using test::slurp;

std::string topo_path(const std::string& name) {
  return std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/" + name;
}

class FabricThreads : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    base_ = test::fresh_test_dir("rocelb_threads_");
  }
  void TearDown() override { fs::remove_all(base_); }

  // Runs the workload with `threads`; returns its folder.
  fs::path run(const std::string& workload_yaml, uint32_t threads,
               const std::vector<std::string>& sets = {}, uint64_t until_ns = 0,
               uint64_t max_output = 0, FabricResult* result = nullptr,
               const std::string& topology = "leaf_spine_2x2_8h.yaml") {
    Topology topo = load_topology_file(topo_path(topology), sets);
    Workload wl = load_workload_text(workload_yaml, "test.yaml", ".", topo, 3);
    const NicParams nic = topo.nic;
    FabricRun engine(std::move(topo), nic, std::move(wl), 3);
    FabricRunOptions opt;
    opt.out_dir =
        (base_ / ("t" + std::to_string(threads) + "_" + std::to_string(++runs_))).string();
    opt.until_ns = until_ns;
    opt.threads = threads;
    opt.link_window_ns = 10'000;
    if (max_output) opt.record.max_output = max_output;
    const FabricResult r = engine.run(opt);
    if (result) *result = r;
    EXPECT_EQ(r.threads, std::min<uint32_t>(threads, 4));
    return opt.out_dir;
  }

  static void expect_same(const fs::path& a, const fs::path& b) { test::expect_same_outputs(a, b); }

  fs::path base_;
  int runs_ = 0;
};

TEST_F(FabricThreads, AnyNumberOfThreadsWritesTheSameBytes) {
  const std::string wl =
      "type: poisson\ncdf: AliStorage2019\nload: 0.6\nduration: 200us\npairs: inter_leaf\n";
  const std::vector<std::string> sets = {"groups.uplinks.mode=flowlet_random"};
  FabricResult one, two;
  const fs::path a = run(wl, 1, sets, 0, 0, &one);
  const fs::path b = run(wl, 2, sets, 0, 0, &two);
  expect_same(a, b);
  expect_same(a, run(wl, 3, sets));
  expect_same(a, run(wl, 4, sets));
  expect_same(a, run(wl, 9, sets));  // capped at one thread per switch
  EXPECT_GT(one.flows_finished, 10u);
  EXPECT_EQ(one.events, two.events);
  const Json s2 = Json::parse(slurp(b / "summary.json"));
  EXPECT_GT(s2["cost"]["frames_between_threads"].get<uint64_t>(), 1000u);
  EXPECT_EQ(s2["cost"]["threads"].get<uint32_t>(), 2u);
  EXPECT_EQ(Json::parse(slurp(a / "summary.json"))["cost"]["frames_between_threads"], 0);
}

TEST_F(FabricThreads, PausesCrossThreadsTheSame) {
  // Incast onto h4 across the spines, lossless: leaf1 pauses the spines,
  // which pause leaf0 (another thread).
  const std::string wl = "type: incast\nsenders: 7\nreceiver: h4\nsize: 256KB\n";
  const std::vector<std::string> sets = {"nic.dcqcn.enabled=false", "qos.pfc.xoff=40KB",
                                         "qos.pfc.xon=20KB"};
  const fs::path a = run(wl, 1, sets);
  expect_same(a, run(wl, 2, sets));
  const Json s = Json::parse(slurp(a / "summary.json"));
  EXPECT_GT(s["switches"]["pfc_frames_sent"].get<uint64_t>(), 0u) << s["switches"].dump();
}

TEST_F(FabricThreads, PhasesThatStartWhenTheLastFlowFinishesAreTheSame) {
  const std::string wl = "type: all_to_all\nhosts: [h0, h1, h4, h5]\nsize: 64KB\nphases: 3\n";
  const fs::path a = run(wl, 1);
  expect_same(a, run(wl, 2));
  expect_same(a, run(wl, 4));
}

TEST_F(FabricThreads, ARunCutShortLeavesTheSameFramesOnWires) {
  const std::string wl =
      "type: poisson\ncdf: WebSearch\nload: 0.8\nduration: 200us\npairs: inter_leaf\n";
  const fs::path a = run(wl, 1, {}, 120'000);
  expect_same(a, run(wl, 2, {}, 120'000));
  const Json s = Json::parse(slurp(a / "summary.json"));
  EXPECT_GT(s["frames_on_wires_at_end"].get<uint64_t>(), 0u);
  EXPECT_GT(s["flows"]["unfinished"].get<uint64_t>(), 0u);
}

TEST_F(FabricThreads, LinksCsvStoppedByMaxOutputStopsAtTheSamePlace) {
  const std::string wl =
      "type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 300us\npairs: inter_leaf\n";
  // A cap under which the run's own outputs fit and links.csv's 10 us
  // windows do not all: cut by a quarter from 1.5 MB until recording stops
  // (about 0.8 MB here; below the run's own outputs the run is refused).
  FabricResult full;
  const fs::path whole = run(wl, 1, {}, 0, 0, &full);
  const uint64_t links = fs::file_size(whole / "links.csv");
  ASSERT_GT(links, 20'000u);
  uint64_t cap = 1536u << 10;
  FabricResult one;
  fs::path a;
  for (; cap > 64 * 1024; cap = cap * 3 / 4) {
    try {
      a = run(wl, 1, {}, 0, cap, &one);
    } catch (const FabricError&) {
      break;
    }
    if (one.recording_stopped) break;
  }
  ASSERT_TRUE(one.recording_stopped) << "no cap stopped links.csv alone";
  FabricResult two;
  const fs::path b = run(wl, 2, {}, 0, cap, &two);
  EXPECT_TRUE(two.recording_stopped);
  EXPECT_EQ(one.recording_stopped_ns, two.recording_stopped_ns);
  EXPECT_LT(fs::file_size(a / "links.csv"), links);
  expect_same(a, b);
}

TEST(FabricPartition, HostsStayWithTheirLeafAndWorkIsBalanced) {
  const Topology topo = load_topology_file(topo_path("leaf_spine_128_100G_OS2.yaml"), {});
  for (uint32_t n : {1u, 2u, 3u, 5u}) {
    const FabricPartition p = partition_fabric(topo, n);
    ASSERT_EQ(p.shards, n);
    for (size_t h = 0; h < topo.hosts.size(); ++h)
      EXPECT_EQ(p.host_shard[h], p.switch_shard[topo.hosts[h].sw]);
    std::set<uint32_t> used(p.switch_shard.begin(), p.switch_shard.end());
    EXPECT_EQ(used.size(), n);
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint64_t w : p.work) {
      lo = std::min(lo, w);
      hi = std::max(hi, w);
    }
    EXPECT_LE(hi, lo + lo / 3) << n << " shards";
  }
  EXPECT_EQ(partition_fabric(topo, 10'000).shards, topo.switches.size());
}

}  // namespace
}  // namespace rocelb
