// Unsigned integer options refuse what does not fit instead of saturating
// (CLI11 alone turns 2^64, 1e23 or -1 into 2^64-1): rocelb-dp's fabric
// --seed, run --mbufs and --idle-polls, rocelb-gen's --seed. One line naming
// the option, exit 2, nothing written.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::run_command;
using test::src;

class UintOption : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-uint-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `cmd` must exit 2 with one line on stderr that names `option` and `value`.
  void refused(const std::string& cmd, const std::string& option, const std::string& value) {
    const auto r = run_command(cmd, dir_);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(option + ": " + value + ": must be an integer"), std::string::npos)
        << cmd << "\n"
        << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }

  fs::path dir_;
};

TEST_F(UintOption, FabricSeedOutOfRangeIsRefused) {
  const std::string fabric = bin("dataplane/rocelb-dp") + " fabric --topology " +
                             src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
                             src("configs/workloads/two_flows.yaml") + " --until 1ns --out-dir " +
                             (dir_ / "out").string();
  for (const char* v : {"18446744073709551616", "1e23", "-1", "99999999999999999999999", "12x"})
    refused(fabric + " --seed=" + v, "--seed", v);
  EXPECT_FALSE(fs::exists(dir_ / "out"));
  // The largest seed that fits still runs.
  const auto r = run_command(fabric + " --quiet --seed 18446744073709551615", dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST_F(UintOption, RunCountsOutOfRangeAreRefused) {
  refused(bin("dataplane/rocelb-dp") + " run --mbufs 4294967296", "--mbufs", "4294967296");
  refused(bin("dataplane/rocelb-dp") + " run --idle-polls=-1", "--idle-polls", "-1");
}

TEST_F(UintOption, GeneratorSeedOutOfRangeIsRefused) {
  const std::string gen = bin("tools/rocelb-gen") + " --scenario " +
                          src("configs/scenarios/demo.yaml") + " --out-dir " +
                          (dir_ / "gen").string();
  for (const char* v : {"18446744073709551616", "1e23", "-1"})
    refused(gen + " --seed=" + v, "--seed", v);
  EXPECT_FALSE(fs::exists(dir_ / "gen"));
  const auto r = run_command(gen + " --seed 0x10", dir_);
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

}  // namespace
}  // namespace rocelb
