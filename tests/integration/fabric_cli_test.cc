// rocelb-dp fabric and tools/fabric-sweep as a user runs them: the shipped
// fabrics and workloads load and run, outputs land, bad input is one line
// and exit 2 with nothing written, and the sweep prints its table.
#include <gtest/gtest.h>
#include <unistd.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::run_command;
using test::src;

class FabricCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-fabric-cli-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }
  test::CommandResult fabric(const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " fabric " + args, dir_);
  }

  fs::path dir_;
};

TEST_F(FabricCli, TheShippedIncastRunsAndPrintsItsSlowdowns) {
  const auto r =
      fabric("--topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
             src("configs/workloads/incast_7to1.yaml") + " --out-dir " + (dir_ / "out").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows finished 7 of 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("small"), std::string::npos) << r.out;
  for (const char* f :
       {"flows.csv", "summary.json", "links.csv", "leaf0.counters.json", "spine1.counters.json"})
    EXPECT_TRUE(fs::exists(dir_ / "out" / f)) << f;
  const auto s = nlohmann::json::parse(test::read_file(dir_ / "out" / "summary.json"));
  EXPECT_EQ(s["schema"], "rocelb.fabric.summary.v1");
  EXPECT_EQ(s["flows"]["finished"], 7);
  EXPECT_NE(s["run"]["command"].get<std::string>().find("incast_7to1.yaml"), std::string::npos);
}

// summary.json's run.command is a shell command: a --set holding spaces,
// braces or a quote is quoted so that the shell gives rocelb-dp the same
// words again.
TEST_F(FabricCli, TheRecordedCommandQuotesWhatTheShellWouldSplit) {
  const std::string set = "groups.uplinks.drill={d: 2, m: 1, memory: destination}";
  const auto r =
      fabric("--topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
             src("configs/workloads/incast_7to1.yaml") + " --out-dir " + (dir_ / "out").string() +
             " --set '" + set + "' --set \"qos.buffer.shared_size=9MiB\" --ideal ns3 --until 1us");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = nlohmann::json::parse(test::read_file(dir_ / "out" / "summary.json"));
  const std::string cmd = s["run"]["command"];
  EXPECT_NE(cmd.find("--set '" + set + "'"), std::string::npos) << cmd;
  EXPECT_NE(cmd.find("--set qos.buffer.shared_size=9MiB "), std::string::npos) << cmd;
  EXPECT_NE(cmd.find(" --ideal ns3"), std::string::npos) << cmd;
  EXPECT_EQ(s["slowdown"]["ideal_fct"], "ns3");
}

TEST_F(FabricCli, EveryShippedFabricAndWorkloadLoads) {
  // --until 1ns: load everything, simulate nothing worth waiting for.
  auto loads = [&](const std::string& topo, const std::string& wl) {
    const auto r =
        fabric("--topology " + src("configs/fabrics/" + topo + ".yaml") + " --workload " + wl +
               " --until 1ns --quiet --out-dir " + (dir_ / "o").string());
    EXPECT_EQ(r.exit_code, 0) << topo << " " << wl << ": " << r.err;
    fs::remove_all(dir_ / "o");
  };
  for (const auto& wl : fs::directory_iterator(src("configs/workloads")))
    if (wl.path().extension() == ".yaml") loads("leaf_spine_2x2_8h", wl.path().string());
  for (const char* topo : {"leaf_spine_32_100G_OS2", "leaf_spine_128_100G_OS2"})
    loads(topo, src("configs/workloads/alistorage_50.yaml"));
}

TEST_F(FabricCli, BadInputIsOneLineAndExitTwoWithNothingWritten) {
  const std::string topo = src("configs/fabrics/leaf_spine_2x2_8h.yaml");
  const std::string one = write("one.yaml", "flows:\n  - {src: h0, dst: h4, size: 8KB}\n");
  const std::string out = (dir_ / "never").string();
  struct Case {
    std::string args, says;
  };
  const std::vector<Case> cases = {
      {"--topology " + topo + " --workload " + write("w.yaml", "flows:\n  - {src: h0, dst: h9}\n"),
       "w.yaml: flows[0]"},
      {"--topology " + write("t.yaml", "leaves: 2\n") + " --workload " + one,
       "t.yaml: missing required key"},
      {"--topology " + topo + " --workload " + one + " --set nic.mtu=1000", "nic.mtu"},
      {"--topology " + topo + " --workload " + one + " --set leaf7:qos.pfc_enable=[]",
       "no such switch \"leaf7\""},
      {"--topology " + topo + " --workload " + one + " --set qos.nope=1", "qos.nope"},
      {"--topology " + topo + " --workload " + one + " --capture leaf0:99", "--capture leaf0:99"},
      {"--topology " + topo + " --workload " + one + " --until 5", "--until 5"},
      {"--topology " + topo + " --workload " + one + " --threads 2 --capture h0",
       "--threads 2: --capture, --events and --timeline need --threads 1"},
      {"--topology " + topo + " --workload " + one + " --threads 0", "--threads"},
      {"--topology " + topo + " --workload " + dir_.string() + "/missing.yaml", "missing.yaml"},
  };
  for (const Case& c : cases) {
    const auto r = fabric(c.args + " --out-dir " + out);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.args;
  }
}

// A disk that fills during the run (here a file size limit: writes fail
// with EFBIG as they would with ENOSPC): one line that says why, and
// nothing written.
TEST_F(FabricCli, AFullDiskSaysWhyAndLeavesNothing) {
  const std::string out = (dir_ / "full").string();
  const auto r = run_command(
      "sh -c 'trap \"\" XFSZ; ulimit -f 16; exec " + bin("dataplane/rocelb-dp") +
          " fabric --topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
          src("configs/workloads/incast_7to1.yaml") + " --timeline 10us --out-dir " + out + "'",
      dir_);
  EXPECT_NE(r.exit_code, 0);
  std::string ours;  // without EAL's notes on its own memory file
  std::istringstream lines(r.err);
  for (std::string l; std::getline(lines, l);)
    if (l.rfind("EAL:", 0) != 0) ours += l + "\n";
  EXPECT_EQ(std::count(ours.begin(), ours.end(), '\n'), 1) << r.err;
  EXPECT_NE(ours.find("rocelb-dp: cannot write "), std::string::npos) << r.err;
  EXPECT_NE(ours.find(": File too large"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out));
}

// --capture is checked against the topology before anything starts: before
// the memory check and DPDK (a 1 GB --max-memory would refuse this fabric).
TEST_F(FabricCli, ABadCaptureIsRefusedBeforeTheFabricStarts) {
  const std::string base = "--topology " + src("configs/fabrics/leaf_spine_128_100G_OS2.yaml") +
                           " --workload " + src("configs/workloads/alistorage_50.yaml") +
                           " --max-memory 1GB --out-dir " + (dir_ / "o").string();
  for (const char* cap : {"h999", "leaf0:63", "nope:1"}) {
    const auto r = fabric(base + " --capture " + cap);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.err.rfind(std::string("rocelb-dp: --capture ") + cap + ": ", 0), 0u) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

TEST_F(FabricCli, ExportWritesAnExplicitFabricThatRuns) {
  const std::string exp = (dir_ / "exp").string();
  const auto r =
      fabric("--topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --export " + exp +
             " --set 'leaf0:ports[5].speed=40G' --set 'spine1:ports[0].speed=40G'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* f : {"fabric.yaml", "leaf0.yaml", "leaf1.yaml", "spine0.yaml", "spine1.yaml"})
    EXPECT_TRUE(fs::exists(dir_ / "exp" / f)) << f;
  EXPECT_NE(test::read_file(dir_ / "exp" / "leaf0.yaml").find("speed: 40G"), std::string::npos);
  const auto run = fabric("--topology " + exp + "/fabric.yaml --workload " +
                          src("configs/workloads/two_flows.yaml") + " --quiet --out-dir " +
                          (dir_ / "out").string());
  EXPECT_EQ(run.exit_code, 0) << run.err;
  // An existing export is not overwritten piecemeal: a file in the way of
  // one output stops the export before anything is written.
  fs::create_directories(dir_ / "exp2" / "spine1.yaml");
  const auto again = fabric("--topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") +
                            " --export " + (dir_ / "exp2").string());
  EXPECT_EQ(again.exit_code, 2);
  EXPECT_FALSE(fs::exists(dir_ / "exp2" / "fabric.yaml"));
  const auto none = fabric("--topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml"));
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("--workload and --out-dir"), std::string::npos) << none.err;
}

TEST_F(FabricCli, TheSweepPrintsOneRowPerRun) {
  const auto r =
      run_command(src("tools/fabric-sweep") + " --rocelb-dp " + bin("dataplane/rocelb-dp") +
                      " --topology " + src("configs/fabrics/leaf_spine_2x2_8h.yaml") +
                      " --workloads " + src("configs/workloads/two_flows.yaml") +
                      " --modes fixed,per_packet_random --out-dir " + (dir_ / "sweep").string(),
                  dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* row :
       {"| two_flows | fixed | go_back_n |", "| two_flows | fixed | selective_repeat |",
        "| two_flows | per_packet_random | go_back_n |",
        "| two_flows | per_packet_random | selective_repeat |"})
    EXPECT_NE(r.out.find(row), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "sweep.md"));
  EXPECT_TRUE(fs::exists(dir_ / "sweep" / "two_flows" / "fixed-go_back_n" / "flows.csv"));
  const auto bad = run_command(
      src("tools/fabric-sweep") + " --rocelb-dp " + bin("dataplane/rocelb-dp") +
          " --modes nope --workloads " + src("configs/workloads/two_flows.yaml") + " --topology " +
          src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --out-dir " + (dir_ / "bad").string(),
      dir_);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("nope"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace rocelb
