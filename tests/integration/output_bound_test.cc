// What `fabric` and `replay` record is bounded (docs/reference/reliability.md):
// --timeline and --link-window have a floor of 1 us (--timeline 1ns wrote
// 4.2 GB for 1.3 ms of two flows); a fabric run whose estimated outputs pass
// --max-output is refused before it starts, naming the estimate and the
// option; a run that reaches the cap mid-way stops recording at a whole
// line, goes on to its end with its own outputs whole, says so in one line
// and in run.json, and its folder stays under the cap; a flow starting at
// 100 s makes no 100 s of empty links.csv windows (813 MB).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <sstream>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::bin;
using test::run_command;
using test::src;

class OutputBound : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-output-bound-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    std::ofstream(dir_ / "two.yaml") << "flows:\n  - {src: h0, dst: h4, size: 4MB}\n"
                                        "  - {src: h1, dst: h5, size: 4MB}\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  test::CommandResult fabric(const std::string& workload, const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " fabric --topology " +
                           src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
                           (dir_ / workload).string() + " " + args,
                       dir_);
  }
  test::CommandResult replay(const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " replay " + args, dir_);
  }
  // The incast scenario's three 4 MB pcaps, as --in options.
  std::string incast_inputs() {
    const auto g = run_command(bin("tools/rocelb-gen") + " --scenario " +
                                   src("configs/scenarios/incast.yaml") + " --out-dir " +
                                   (dir_ / "gen").string(),
                               dir_);
    EXPECT_EQ(g.exit_code, 0) << g.err;
    std::string in;
    for (int p = 0; p < 3; ++p)
      in += " --in " + std::to_string(p) + "=" + (dir_ / "gen").string() + "/port" +
            std::to_string(p) + ".pcap";
    return in;
  }
  static uint64_t folder_bytes(const fs::path& d) {
    uint64_t n = 0;
    for (const auto& e : fs::directory_iterator(d)) n += fs::file_size(e.path());
    return n;
  }
  static long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
  // Every line of an events file is whole JSON.
  static size_t json_lines(const fs::path& p) {
    std::ifstream f(p);
    size_t n = 0;
    for (std::string l; std::getline(f, l); ++n) EXPECT_TRUE(Json::accept(l)) << l;
    return n;
  }

  fs::path dir_;
};

TEST_F(OutputBound, IntervalsUnderTheirFloorAreRefused) {
  const std::string out = " --out-dir " + (dir_ / "o").string();
  for (const auto& [args, says] : std::vector<std::pair<std::string, std::string>>{
           {"--timeline 1ns", "--timeline 1ns: at least 1us"},
           {"--timeline 999ns", "--timeline 999ns: at least 1us"},
           {"--link-window 1ns", "--link-window 1ns: at least 1us"},
           {"--max-output 0", "--max-output 0: must be > 0"},
           {"--max-output lots", "--max-output lots"}}) {
    const auto r = fabric("two.yaml", args + out);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(r.err.rfind("rocelb-dp: " + says, 0), 0u) << r.err;
    EXPECT_EQ(lines(r.err), 1) << r.err;
  }
  const auto r = replay("--in 0=" + dir_.string() + "/none.pcap --timeline 500ns" + out);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--timeline 500ns: at least 1us"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

TEST_F(OutputBound, AFabricRunEstimatedPastTheCapIsRefusedBeforeItStarts) {
  // 7,814 data packets and their ACKs over three switches: about 34 MB of
  // events (35.6 MB measured).
  const auto r =
      fabric("two.yaml", "--events --max-output 10MB --out-dir " + (dir_ / "o").string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  for (const char* says : {"rocelb-dp: --events: the run would write about ", "events.jsonl 34",
                           "more than --max-output 10MB", "--events-filter"})
    EXPECT_NE(r.err.find(says), std::string::npos) << says << "\n" << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  // Less than the run's own outputs need: --max-output itself is named.
  const auto own = fabric("two.yaml", "--max-output 1KB --out-dir " + (dir_ / "o").string());
  EXPECT_EQ(own.exit_code, 2);
  EXPECT_EQ(own.err.rfind("rocelb-dp: --max-output 1KB: less than the run's own outputs need (", 0),
            0u)
      << own.err;
  // A filter keeps an unknown share: the run starts, bounded by the cap.
  const auto f = fabric("two.yaml",
                        "--events --events-filter qp=256 --max-output 10MB --quiet "
                        "--out-dir " +
                            (dir_ / "f").string());
  EXPECT_EQ(f.exit_code, 0) << f.err;
  EXPECT_LE(folder_bytes(dir_ / "f"), 10'000'000u);
}

TEST_F(OutputBound, AFabricRunThatReachesTheCapStopsRecordingAndFinishes) {
  // The estimate counts the 352 us the flows would take alone; sharing an
  // uplink they take 1.3 ms, and 1 us of timeline is 8.6 MB.
  const fs::path out = dir_ / "o";
  const auto r = fabric("two.yaml",
                        "--timeline 1us --events --events-filter qp=257 "
                        "--max-output 6MB --out-dir " +
                            out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("flows finished 2 of 2"), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_EQ(r.err.rfind("rocelb-dp: recording stopped at ", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("the outputs reached --max-output 6MB; timeline.csv, events.jsonl and "
                       "links.csv end there"),
            std::string::npos)
      << r.err;
  EXPECT_LE(folder_bytes(out), 6'000'000u);
  const Json run = Json::parse(test::read_file(out / "run.json"));
  ASSERT_TRUE(run.contains("recording_stopped")) << run.dump();
  const uint64_t stop = run["recording_stopped"]["t_ns"];
  EXPECT_EQ(run["recording_stopped"]["max_output_bytes"], 6'000'000);
  EXPECT_GT(stop, 100'000u);
  EXPECT_LT(stop, 1'300'000u);
  // The timeline ends with the last whole interval before the stop.
  std::ifstream t(out / "timeline.csv");
  std::string line, last;
  while (std::getline(t, line)) last = line;
  EXPECT_LE(std::stoull(last.substr(0, last.find(','))), stop);
  json_lines(out / "events.jsonl");
  // links.csv: windows that had ended by then.
  std::ifstream l(out / "links.csv");
  std::getline(l, line);
  while (std::getline(l, line)) {
    std::vector<std::string> c;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) c.push_back(x);
    ASSERT_EQ(c.size(), 5u) << line;
    EXPECT_LE(std::stoull(c[2]) + 100'000, stop) << line;
  }
  // The run itself is whole: both flows finished, the counters balance.
  const Json s = Json::parse(test::read_file(out / "summary.json"));
  EXPECT_EQ(s["flows"]["finished"], 2);
  EXPECT_EQ(s["run"]["simulated_ns"].get<uint64_t>() > stop, true);
}

TEST_F(OutputBound, AFlowStartingLateMakesNoEmptyLinkWindows) {
  std::ofstream(dir_ / "late.yaml") << "flows:\n  - {src: h0, dst: h4, size: 1MB, start: 100s}\n";
  const auto r = fabric("late.yaml", "--quiet --out-dir " + (dir_ / "o").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // A row per link direction (24) for the two windows the flow used and
  // the one the run ended in, at most: not 1,000,000 windows of nothing.
  EXPECT_LT(fs::file_size(dir_ / "o" / "links.csv"), 4096u);
  const std::string csv = test::read_file(dir_ / "o" / "links.csv");
  EXPECT_NE(csv.find("h0,leaf0:0,100000000000,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",0,0,0.0000\n"), std::string::npos) << csv;  // window 0: idle
}

TEST_F(OutputBound, AReplayStopsRecordingAtTheCapAndItsPcapsStayWhole) {
  const std::string in = incast_inputs();
  const auto whole = replay(in + " --quiet --out-dir " + (dir_ / "whole").string());
  ASSERT_EQ(whole.exit_code, 0) << whole.err;
  const auto r =
      replay(in + " --events --timeline 10us --max-output 18MB --out-dir " + (dir_ / "o").string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("rocelb-dp: recording stopped at "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("timeline.csv and events.jsonl end there"), std::string::npos) << r.err;
  EXPECT_LE(folder_bytes(dir_ / "o"), 18'000'000u);
  EXPECT_GT(json_lines(dir_ / "o" / "events.jsonl"), 1000u);
  EXPECT_EQ(test::read_file(dir_ / "o" / "port3.pcap"),
            test::read_file(dir_ / "whole" / "port3.pcap"));
  EXPECT_TRUE(Json::parse(test::read_file(dir_ / "o" / "run.json")).contains("recording_stopped"));
}

TEST_F(OutputBound, AReplayWhosePcapsPassTheCapFailsWithNothingWritten) {
  const std::string in = incast_inputs();
  // Too small even for the inputs' size: refused before the run.
  const auto before = replay(in + " --max-output 3MB --out-dir " + (dir_ / "o").string());
  EXPECT_EQ(before.exit_code, 2);
  EXPECT_EQ(before.err.rfind("rocelb-dp: --max-output 3MB: less than the port pcaps", 0), 0u)
      << before.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
  // From a pipe the size is unknown: the pcaps pass the cap mid-run.
  const auto mid = run_command(
      "sh -c 'cat " + (dir_ / "gen" / "port0.pcap").string() + " | " + bin("dataplane/rocelb-dp") +
          " replay --in 0=- --max-output 1MB --out-dir " + (dir_ / "o").string() + "'",
      dir_);
  EXPECT_EQ(mid.exit_code, 2) << mid.err;
  EXPECT_EQ(lines(mid.err), 1) << mid.err;
  EXPECT_NE(mid.err.find("the outputs passed --max-output 1MB at "), std::string::npos) << mid.err;
  EXPECT_NE(mid.err.find("nothing was written"), std::string::npos) << mid.err;
  EXPECT_FALSE(fs::exists(dir_ / "o"));
}

}  // namespace
}  // namespace rocelb
