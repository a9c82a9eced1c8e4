// Every program's command line (common/cli_app.h): a mistyped command or
// option is named with the nearest one (exit 2, nothing run), and
// --version names the build, the same text for every binary.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <utility>

#include "run_command.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;

TEST(CliNames, AMistypedNameGetsTheNearestOne) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-cli-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string dp = test::bin("dataplane/rocelb-dp");
  const std::string gen = test::bin("tools/rocelb-gen");
  const std::string ctl = test::bin("tools/rocelbctl");
  const std::pair<std::string, std::string> cases[] = {
      {dp + " repaly --in 0=x", "rocelb-dp: repaly: no such command; did you mean replay?"},
      {dp + " replay --timline 1us --in 0=x --out-dir y",
       "rocelb-dp: --timline: no such option; did you mean --timeline?"},
      {dp + " fabirc", "rocelb-dp: fabirc: no such command; did you mean fabric?"},
      {gen + " --presett ai-alltoall",
       "rocelb-gen: --presett: no such option; did you mean --preset?"},
      {ctl + " sho ports", "rocelbctl: sho: no such command; did you mean show?"},
      {test::bin("control/rocelbd") + " --confg x.yaml",
       "--confg: no such option; did you mean --config?"},
  };
  for (const auto& [cmd, want] : cases) {
    const auto r = test::run_command(cmd, dir);
    EXPECT_EQ(r.exit_code, 2) << cmd;
    EXPECT_NE(r.err.find(want), std::string::npos) << cmd << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(dir / "y"));
  std::string first;
  for (const std::string& prog : {dp, gen, ctl, test::bin("control/rocelbd")}) {
    const auto r = test::run_command(prog + " --version", dir);
    EXPECT_EQ(r.exit_code, 0) << prog << ": " << r.err;
    EXPECT_EQ(r.out.rfind("rocelb 0.1.0 (", 0), 0u) << prog << ": " << r.out;
    if (first.empty()) first = r.out;
    EXPECT_EQ(r.out, first) << prog;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb
