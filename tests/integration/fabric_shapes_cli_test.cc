// rocelb-dp fabric on the shapes beyond the leaf-spine, as a user runs it:
// an ns-3 topology and flow file (tests/fabric/ns3/) run unchanged, the fat
// tree presets run, and a malformed ns-3 line is one line naming FILE:LINE,
// exit 2, nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::run_command;
using test::src;

class FabricShapesCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-fabric-shapes-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  test::CommandResult fabric(const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " fabric " + args, dir_);
  }
  fs::path dir_;
};

TEST_F(FabricShapesCli, AnNs3TopologyAndFlowFileRunUnchanged) {
  const auto r =
      fabric("--topology " + src("tests/fabric/ns3/four_hosts.txt") + " --workload " +
             src("tests/fabric/ns3/five_flows.txt") + " --out-dir " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows finished 5 of 5"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "out" / "sw4.counters.json"));
}

TEST_F(FabricShapesCli, AFatTreeCarriesFlowsAcrossItsCores) {
  std::ofstream(dir_ / "w.yaml") << "flows:\n  - {src: h0, dst: h31, size: 256KB}\n"
                                    "  - {src: h8, dst: h1, size: 256KB}\n";
  const auto r =
      fabric("--topology " + src("configs/fabrics/fat_k4_100G_OS2.yaml") + " --workload " +
             (dir_ / "w.yaml").string() + " --out-dir " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows finished 2 of 2"), std::string::npos) << r.out;
}

TEST_F(FabricShapesCli, AMalformedNs3LineIsOneLineWithFileAndLine) {
  std::ofstream(dir_ / "bad.txt") << "4 2 3\n2 3\n0 2 100Gbps 1000ns 0\n1 3 100Gbps 1000ns 0\n"
                                     "2 3 100Gbps 1000ns 0.5\n";
  const auto r =
      fabric("--topology " + (dir_ / "bad.txt").string() + " --workload " +
             src("tests/fabric/ns3/five_flows.txt") + " --out-dir " + (dir_ / "never").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.txt:5: error rate 0.5: must be 0"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "never"));
}

}  // namespace
}  // namespace rocelb
