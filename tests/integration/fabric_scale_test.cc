// Every fabric size the topology rules allow starts, or is refused before
// anything starts: 12 leaves x 16 hosts + 8 spines (192 hosts, 3,456 egress
// rings and pause inboxes) used to exit 1 mid-start ("cannot create egress
// queue ...: No space left on device", DPDK's RTE_MAX_MEMZONE). What limits
// a fabric now is memory, estimated from the topology and the workload and
// checked against --max-memory (default: the machine's) with one line and
// exit 2. The estimate counts whole only the egress rings of classes the
// workload's DSCPs map to, and stays within a stated factor of what a run
// takes.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::run_command;

class FabricScale : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-fabric-scale-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "fabric.yaml") << "leaves: 12\nspines: 8\nhosts_per_leaf: 16\n"
                                           "host_speed: 100G\nuplink_speed: 100G\n"
                                           "link_delay: 1us\n";
    // Across the fabric both ways, first leaf to last and back.
    std::ofstream(dir_ / "flows.yaml") << "flows:\n  - {src: h0, dst: h191, size: 256KB}\n"
                                          "  - {src: h190, dst: h1, size: 256KB}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }
  test::CommandResult fabric(const std::string& args, const std::string& fabric = "fabric.yaml",
                             const std::string& flows = "flows.yaml") {
    return run_command(bin("dataplane/rocelb-dp") + " fabric --topology " +
                           (dir_ / fabric).string() + " --workload " + (dir_ / flows).string() +
                           " " + args,
                       dir_);
  }
  // The estimate in bytes, from the refusal's "need about 130 MB (".
  double estimate(const std::string& fabric_file, const std::string& flows,
                  const std::string& more = "") {
    const auto r = fabric("--max-memory 1MB --out-dir " + (dir_ / "refused").string() + more,
                          fabric_file, flows);
    const size_t at = r.err.find("need about ");
    if (r.exit_code != 2 || at == std::string::npos) return -1;
    char* end = nullptr;
    const double v = std::strtod(r.err.c_str() + at + 11, &end);
    const std::string unit(end, end + 3);
    for (const auto& [u, scale] : {std::pair{" B ", 1.0}, std::pair{" KB", 1e3},
                                   std::pair{" MB", 1e6}, std::pair{" GB", 1e9}})
      if (unit == u) return v * scale;
    return -1;
  }
  fs::path dir_;
};

TEST_F(FabricScale, A192HostFabricStartsAndRuns) {
  const auto r = fabric("--out-dir " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows finished 2 of 2"), std::string::npos) << r.out;
  const auto s = nlohmann::json::parse(test::read_file(dir_ / "out" / "summary.json"));
  EXPECT_EQ(s["switches"]["drops_total"], 0);
  EXPECT_TRUE(fs::exists(dir_ / "out" / "spine7.counters.json"));
  EXPECT_TRUE(fs::exists(dir_ / "out" / "leaf11.counters.json"));
}

TEST_F(FabricScale, AFabricLargerThanMaxMemoryIsRefusedBeforeItStarts) {
  const auto r = fabric("--max-memory 500MB --out-dir " + (dir_ / "out").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  // 12 leaves of 24 ports and 8 spines of 12: 384 ports, 8 rings each; the
  // flows' DSCP (26) and the CNPs' (48) map to classes 3 and 6.
  for (const char* says :
       {"fabric.yaml: ", "20 switches", "route tables", "egress rings",
        "(768 of 3072 rings can carry traffic)", "packet pool", "more than --max-memory 500 MB"})
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  const auto bad = fabric("--max-memory lots --out-dir " + (dir_ / "out").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-memory lots"), std::string::npos) << bad.err;
}

// A flow naming a DSCP the switches map to a third class (10: unlisted,
// qos.default_tc 0) makes that class's rings count whole too.
TEST_F(FabricScale, TheRefusalCountsTheRingsOfTheClassesTheWorkloadsDscpsUse) {
  std::ofstream(dir_ / "dscp10.yaml") << "flows:\n  - {src: h0, dst: h191, size: 256KB}\n"
                                         "  - {src: h190, dst: h1, size: 256KB, dscp: 10}\n";
  const auto r =
      fabric("--max-memory 1MB --out-dir " + (dir_ / "out").string(), "fabric.yaml", "dscp10.yaml");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("(1152 of 3072 rings can carry traffic)"), std::string::npos) << r.err;
  EXPECT_GT(estimate("fabric.yaml", "dscp10.yaml"), estimate("fabric.yaml", "flows.yaml"));
}

// With --threads N each thread has a packet pool of its own: the estimate
// counts N pools (at most one thread per switch: 20 here).
TEST_F(FabricScale, TheEstimateCountsAPoolPerThread) {
  const double one = estimate("fabric.yaml", "flows.yaml");
  const double two = estimate("fabric.yaml", "flows.yaml", " --threads 2");
  const double many = estimate("fabric.yaml", "flows.yaml", " --threads 40");
  const double twenty = estimate("fabric.yaml", "flows.yaml", " --threads 20");
  ASSERT_GT(one, 0);
  EXPECT_GT(two, one);
  EXPECT_NEAR(twenty - one, 19 * (two - one), 0.02 * twenty);
  EXPECT_EQ(many, twenty);
}

// The estimate against a run's peak RSS (summary.json): one leaf of 63
// hosts and one spine, every host sending 1 MB to every other, for 3 ms:
// each host port's class-3 ring passes over 16,384 packets, so it goes
// round and is resident whole, as the estimate counts it. The peak is at
// most the estimate and 64 MiB (what it leaves out: the process and EAL,
// about 56 MiB before the first event, the NIC models, the flows), and the
// estimate at most 2.5 times the peak (measured: 130 MB against 70 MiB; its
// largest part is the packet pool at its most, 65,535 buffers, of which
// the run made 8,192).
TEST_F(FabricScale, TheEstimateIsWithinTwoAndAHalfTimesTheRunsPeakRss) {
  std::ofstream(dir_ / "leaf.yaml") << "leaves: 1\nspines: 1\nhosts_per_leaf: 63\n"
                                       "host_speed: 100G\nuplink_speed: 100G\nlink_delay: 1us\n";
  std::ofstream(dir_ / "all.yaml") << "type: all_to_all\nhosts: all\nsize: 1MB\nphases: 1\n";
  const double est = estimate("leaf.yaml", "all.yaml");
  ASSERT_GT(est, 0);
  const auto r =
      fabric("--until 3ms --quiet --out-dir " + (dir_ / "out").string(), "leaf.yaml", "all.yaml");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(test::read_file(dir_ / "out" / "summary.json"));
  const double peak = s["cost"]["peak_rss_mb"].get<double>() * 1024 * 1024;
  EXPECT_LE(peak, est + 64.0 * 1024 * 1024) << "estimate " << est << ", peak " << peak;
  EXPECT_LE(est, 2.5 * peak) << "estimate " << est << ", peak " << peak;
}

}  // namespace
}  // namespace rocelb
