// The lab testbed tutorial's live `net_tap` walk-through, run as a reader
// pastes it: the ```sh block after the marker
// `<!-- test: readme-tap-walkthrough -->` in docs/tutorials/lab-testbed.md
// (kPage), taken from the file itself (only `build/` becomes this build's
// folder, as tests/labs/run_labs.py does), run as root with bash under
// `set -euo pipefail`, bounded in time. It must start the switch, wait for
// its taps, ping through it with TTL 63, and tear down cleanly: the switch
// exits 0 with no mbuf in use, and no tap or namespace is left.
//
// So that it collides with nothing (a switch started by hand, another test,
// the default control socket /run/rocelb/rocelb.sock and the names rl0..rl7,
// h0 and h3), the block runs inside new network, mount and PID namespaces
// with a private /run: whatever it leaves dies with them. Needs root and
// unshare(1) (skipped otherwise, as tests/integration/live_netns_test.cc).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "run_command.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPage = "docs/tutorials/lab-testbed.md";
constexpr const char* kMarker = "<!-- test: readme-tap-walkthrough -->";

// The ```sh block following the marker line, or "" (why in *why).
std::string walkthrough_block(const std::string& readme, std::string* why) {
  const auto at = readme.find(kMarker);
  if (at == std::string::npos) return *why = std::string(kPage) + " has no marker " + kMarker, "";
  const auto fence = readme.find("```sh\n", at);
  if (fence == std::string::npos || readme.find("\n\n", at) < fence)
    return *why = "no ```sh block right after the marker", "";
  const auto start = fence + 6;
  const auto end = readme.find("\n```", start - 1);
  if (end == std::string::npos) return *why = "the ```sh block never closes", "";
  return readme.substr(start, end + 1 - start);
}

// `build/` at the start of a command word -> this build's folder.
std::string rewrite_build(const std::string& block) {
  static const std::regex word(R"((^|[\s;|&('"`])build/)");
  return std::regex_replace(block, word, "$1" + std::string(ROCELB_BINARY_DIR) + "/");
}

class ReadmeTapWalkthrough : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelb-readme-tap-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path dir_;
};

TEST_F(ReadmeTapWalkthrough, RunsAsPastedForwardsAndTearsDown) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (taps, network namespaces)";
  if (test::run_command("command -v unshare && command -v ip", dir_).exit_code != 0)
    GTEST_SKIP() << "needs unshare(1) and ip(8)";

  std::string why;
  const std::string block = walkthrough_block(test::read_file(test::src(kPage)), &why);
  ASSERT_FALSE(block.empty()) << why;
  // What the walk-through promises, said in the block itself.
  EXPECT_NE(block.find("rocelb-dp run --config configs/live-vdev.yaml &"), std::string::npos);
  EXPECT_NE(block.find("ip netns del"), std::string::npos) << "no teardown:\n" << block;

  const fs::path script = dir_ / "walkthrough.sh";
  std::ofstream(script) << "set -euo pipefail\n"
                           "mount -t tmpfs rocelb-test /run\n"
                           "ip link set lo up\n"
                        << rewrite_build(block)
                        << "echo '--- after the block'\n"
                           "ip -o link show | grep -E ' rl[0-7][@:]' && exit 90\n"
                           "[ -z \"$(ip netns list)\" ] || exit 91\n"
                           "echo WALKTHROUGH-DONE\n";
  const auto r = test::run_command("cd " + std::string(ROCELB_SOURCE_DIR) +
                                       " && timeout -k 5 120 unshare --mount --net --pid --fork "
                                       "--kill-child --mount-proc --propagation private bash " +
                                       script.string(),
                                   dir_);
  const std::string all = r.out + r.err;
  EXPECT_EQ(r.exit_code, 0) << "the block, as run:\n" << rewrite_build(block) << "\n" << all;
  EXPECT_NE(r.out.find("ttl=63"), std::string::npos) << all;  // routed by the switch
  EXPECT_EQ(all.find("Cannot find device"), std::string::npos) << all;
  EXPECT_NE(all.find("stopped; mbufs still in use: 0"), std::string::npos) << all;
  EXPECT_NE(r.out.find("WALKTHROUGH-DONE"), std::string::npos) << all;
}

}  // namespace
}  // namespace rocelb
