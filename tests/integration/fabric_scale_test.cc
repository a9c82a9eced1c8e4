// Every fabric size the topology rules allow starts, or is refused before
// anything starts: 12 leaves x 16 hosts + 8 spines (192 hosts, 3,456 egress
// rings and pause inboxes) used to exit 1 mid-start ("cannot create egress
// queue ...: No space left on device", DPDK's RTE_MAX_MEMZONE). What limits
// a fabric now is memory, estimated from the topology and checked against
// --max-memory (default: the machine's) with one line and exit 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>

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
  test::CommandResult fabric(const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " fabric --topology " +
                           (dir_ / "fabric.yaml").string() + " --workload " +
                           (dir_ / "flows.yaml").string() + " " + args,
                       dir_);
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
  for (const char* says : {"fabric.yaml: ", "20 switches", "route tables", "egress rings",
                           "packet pool", "more than --max-memory 500 MB"})
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  const auto bad = fabric("--max-memory lots --out-dir " + (dir_ / "out").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--max-memory lots"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace rocelb
