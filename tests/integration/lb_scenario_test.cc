// Issue 3's replay scenario, through the real binaries: rocelb-gen renders
// configs/scenarios/elephants-collide.yaml (four elephants that collide under
// ECMP), rocelb-dp replays it under each load-balancing mode, and the uplink
// balance (max/mean bytes) and the reordering the NICs would see are read
// from counters.json.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

struct Result {
  double imbalance = 0;  // max / mean bytes over the uplinks
  uint64_t reordered = 0;
  uint64_t drops = 0;
  nlohmann::json counters;
};

class LbScenario : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("rocelb-lb-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    const auto r = test::run_command(test::bin("tools/rocelb-gen") + " --scenario " +
                                         test::src("configs/scenarios/elephants-collide.yaml") +
                                         " --out-dir " + (dir_ / "in").string(),
                                     dir_);
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static Result replay(const std::string& sets) {
    std::string cmd = test::bin("dataplane/rocelb-dp") + " replay --quiet";
    for (int p = 0; p < 4; ++p)
      cmd += " --in " + std::to_string(p) + "=" + (dir_ / "in").string() + "/port" +
             std::to_string(p) + ".pcap";
    const fs::path out = dir_ / ("out" + std::to_string(runs_++));
    cmd += " --out-dir " + out.string() + " " + sets;
    const auto r = test::run_command(cmd, dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    Result res;
    res.counters = nlohmann::json::parse(test::read_file(out / "counters.json"));
    const auto& members = res.counters["groups"][0]["members"];
    double total = 0, max = 0;
    for (const auto& m : members) {
      const double b = m["bytes"].get<double>();
      total += b;
      max = std::max(max, b);
    }
    res.imbalance = max / (total / static_cast<double>(members.size()));
    res.reordered = res.counters["reordering"]["reordered_packets"].get<uint64_t>();
    for (const auto& p : res.counters["ports"]) res.drops += p["drops_total"].get<uint64_t>();
    EXPECT_EQ(res.counters["totals"]["conserved"], true);
    return res;
  }

  static inline fs::path dir_;
  static inline int runs_ = 0;
};

TEST_F(LbScenario, FixedEcmpCollides) {
  const Result r = replay("--set groups.uplinks.mode=fixed");
  EXPECT_GE(r.imbalance, 1.5);
  EXPECT_EQ(r.reordered, 0u);
}

TEST_F(LbScenario, DlbBalancesFlowletsWithoutReordering) {
  const Result r = replay(
      "--set groups.uplinks.mode=flowlet_quality --set groups.uplinks.idle_time=10us "
      "--set groups.uplinks.sampling_interval=2us --set groups.uplinks.quality.load_weight=100");
  EXPECT_LE(r.imbalance, 1.05);
  EXPECT_EQ(r.reordered, 0u);
  EXPECT_EQ(r.counters["groups"][0]["flowlets_created"], 64);  // 4 flows × 16 messages
}

TEST_F(LbScenario, AdaptiveRoutingBalancesPerPacket) {
  const Result r = replay("--set groups.uplinks.mode=per_packet_quality");
  EXPECT_LE(r.imbalance, 1.05);
}

TEST_F(LbScenario, SprayingReordersPackets) {
  const Result r = replay("--set groups.uplinks.mode=per_packet_random");
  EXPECT_GT(r.reordered, 0u);
  EXPECT_GT(r.counters["reordering"]["max_psn_gap"].get<uint64_t>(), 0u);
}

TEST_F(LbScenario, FlowletModesWithIdleTimeAboveTheDelayDifferenceDoNotReorder) {
  for (const char* mode : {"flowlet_random", "flowlet_quality"}) {
    SCOPED_TRACE(mode);
    const Result r = replay(std::string("--set groups.uplinks.mode=") + mode +
                            " --set groups.uplinks.idle_time=10us");
    EXPECT_EQ(r.reordered, 0u);
    EXPECT_EQ(r.drops, 0u);
  }
}

TEST_F(LbScenario, TraceExplainsEveryDecision) {
  std::string cmd = test::bin("dataplane/rocelb-dp") + " replay --quiet --trace";
  for (int p = 0; p < 4; ++p)
    cmd += " --in " + std::to_string(p) + "=" + (dir_ / "in").string() + "/port" +
           std::to_string(p) + ".pcap";
  cmd += " --out-dir " + (dir_ / "traced").string() +
         " --set groups.uplinks.mode=flowlet_quality --set groups.uplinks.idle_time=10us";
  ASSERT_EQ(test::run_command(cmd, dir_).exit_code, 0);
  std::istringstream lines(test::read_file(dir_ / "traced" / "trace.jsonl"));
  std::string line;
  uint64_t n = 0, new_flowlets = 0;
  while (std::getline(lines, line)) {
    const auto j = nlohmann::json::parse(line);
    ++n;
    EXPECT_EQ(j["group"], "uplinks");
    EXPECT_EQ(j["mode"], "flowlet_quality");
    EXPECT_GE(j["port"].get<int>(), 4);
    EXPECT_LE(j["port"].get<int>(), 7);
    if (j["new_flowlet"].get<bool>()) {
      ++new_flowlets;
      EXPECT_EQ(j["compared"], "bands");
      EXPECT_EQ(j["candidates"].size(), 4u);
    }
  }
  EXPECT_EQ(n, 4u * 16 * 125);  // every packet: 128 KB / 1024 B = 125 per message
  EXPECT_EQ(new_flowlets, 64u);
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

TEST_F(LbScenario, AnAdminDownMemberGetsNothingInEveryMode) {
  for (const char* mode : {"fixed", "wcmp", "resilient", "flowlet_random", "flowlet_quality",
                           "per_packet_quality", "per_packet_random", "drill"}) {
    SCOPED_TRACE(mode);
    const Result r = replay(std::string("--set groups.uplinks.mode=") + mode +
                            " --set ports[6].admin_status=down");
    const auto& members = r.counters["groups"][0]["members"];
    EXPECT_EQ(members[2]["port"], 6);
    EXPECT_EQ(members[2]["packets"], 0);
    EXPECT_EQ(r.counters["ports"][6]["tx_packets"], 0);
    uint64_t up = 0;
    for (int p : {4, 5, 7}) up += r.counters["ports"][p]["tx_packets"].get<uint64_t>();
    EXPECT_EQ(up, 8000u);  // 4 flows × 16 messages × 125 packets, none lost
  }
}

}  // namespace
}  // namespace rocelb
