// Switches of more than 64 ports (kMaxPorts is 256; port sets are
// common/port_set.h): a leaf of 130 ports forwards to and from every one
// of them, PFC pauses hosts on ports past 63 and a spine on port 129, and
// --threads 2 writes the same bytes as one thread. Until port masks were
// wider than one word such a leaf was refused ("at most 64 ports").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "dataplane/run/fabric_run.h"
#include "fabric_outputs.h"
#include "test_support.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

// Two leaves of 128 hosts (ports 0..127) and two uplinks (ports 128, 129).
constexpr const char* kWideTopology =
    "leaves: 2\nspines: 2\nhosts_per_leaf: 128\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\n";

class FabricWideSwitch : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    base_ = test::fresh_test_dir("rocelb_wide_");
  }
  void TearDown() override { fs::remove_all(base_); }

  fs::path run(const std::string& workload, uint32_t threads, const std::string& name,
               const std::vector<std::string>& sets = {}) {
    Topology topo = load_topology_text(kWideTopology, "wide.yaml", ".", sets);
    Workload wl = load_workload_text(workload, "w.yaml", ".", topo, 5);
    const NicParams nic = topo.nic;
    FabricRun engine(std::move(topo), nic, std::move(wl), 5);
    FabricRunOptions opt;
    opt.out_dir = (base_ / name).string();
    opt.threads = threads;
    opt.link_window_ns = 10'000;
    const FabricResult r = engine.run(opt);
    EXPECT_TRUE(r.conserved);
    return opt.out_dir;
  }

  // Port id -> that port's block of `sw`.counters.json.
  static std::map<int, Json> ports_of(const fs::path& dir, const std::string& sw) {
    const Json c = Json::parse(test::slurp(dir / (sw + ".counters.json")));
    std::map<int, Json> out;
    for (const Json& p : c["ports"]) out[p["id"].get<int>()] = p;
    return out;
  }

  fs::path base_;
};

TEST_F(FabricWideSwitch, ALeafOf130PortsForwardsOnEveryPort) {
  // Each host of leaf0 sends to its mirror on leaf1, and back: every host
  // port sends and receives, both uplinks carry traffic.
  std::string wl = "flows:\n";
  for (int i = 0; i < 128; ++i) {
    std::string a("h"), b("h");
    a += std::to_string(i);
    b += std::to_string(128 + i);
    wl += "  - {src: " + a + ", dst: " + b + ", size: 20KB, start: 0}\n";
    wl += "  - {src: " + b + ", dst: " + a + ", size: 20KB, start: 0}\n";
  }
  const fs::path out = run(wl, 1, "one");
  const Json summary = Json::parse(test::slurp(out / "summary.json"));
  EXPECT_EQ(summary["flows"]["finished"], 256);
  EXPECT_EQ(summary["switches"]["drops_total"], 0);
  const std::map<int, Json> leaf0 = ports_of(out, "leaf0");
  ASSERT_EQ(leaf0.size(), 130u);
  for (int id = 0; id < 130; ++id) {
    EXPECT_GT(leaf0.at(id)["tx_packets"].get<uint64_t>(), 0u) << "leaf0 port " << id;
    EXPECT_GT(leaf0.at(id)["rx_packets"].get<uint64_t>(), 0u) << "leaf0 port " << id;
  }
  // Each uplink took a share of the 128 flows leaving the leaf.
  const uint64_t up0 = leaf0.at(128)["tx_packets"], up1 = leaf0.at(129)["tx_packets"];
  EXPECT_GT(std::min(up0, up1) * 4, std::max(up0, up1));
}

TEST_F(FabricWideSwitch, PfcPausesPortsPastTheFirstWord) {
  // Hosts on leaf0 ports 64..127 send at once to h200 (leaf1 port 72): its
  // link congests, leaf1 pauses the spines, the spines pause leaf0's
  // uplinks, leaf0 pauses its hosts on ports past 63.
  std::string wl = "type: incast\nreceiver: h200\nsenders: [";
  for (int i = 64; i < 128; ++i) {
    wl += i > 64 ? ", h" : "h";
    wl += std::to_string(i);
  }
  wl += "]\nsize: 128KB\n";
  const fs::path out =
      run(wl, 1, "one", {"nic.dcqcn.enabled=false", "qos.pfc.xoff=16KB", "qos.pfc.xon=8KB"});
  const Json summary = Json::parse(test::slurp(out / "summary.json"));
  EXPECT_EQ(summary["flows"]["finished"], 64);
  EXPECT_EQ(summary["switches"]["drops_total"], 0);
  const std::map<int, Json> leaf0 = ports_of(out, "leaf0");
  uint64_t paused_hosts = 0;
  for (int id = 64; id < 128; ++id)
    paused_hosts += leaf0.at(id)["generated_pfc_frames"].get<uint64_t>() > 0;
  EXPECT_GT(paused_hosts, 32u);
  uint64_t uplink_pauses_in = 0;
  for (int id : {128, 129}) uplink_pauses_in += leaf0.at(id)["rx_pfc_frames"].get<uint64_t>();
  EXPECT_GT(uplink_pauses_in, 0u);
  // The hosts on ports 0..63 sent nothing: leaf0 had no reason to pause them.
  for (int id = 0; id < 64; ++id) EXPECT_EQ(leaf0.at(id)["generated_pfc_frames"], 0) << id;
}

TEST_F(FabricWideSwitch, TwoThreadsWriteTheSameBytes) {
  const std::string wl =
      "type: poisson\ncdf: AliStorage2019\nload: 0.5\nduration: 30us\npairs: inter_leaf\n";
  const fs::path a = run(wl, 1, "one");
  const fs::path b = run(wl, 2, "two");
  test::expect_same_outputs(a, b);
}

}  // namespace
}  // namespace rocelb
