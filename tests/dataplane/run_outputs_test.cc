// RunOutputs (dataplane/record/run_outputs.h): the one output path replay
// and fabric share. Its errors come out as the driver's own error type, its
// own outputs are set aside first, run.json gets the interval, the outputs
// and where recording stopped, and without a commit nothing lands.
#include "dataplane/record/run_outputs.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocelb {
namespace {
namespace fs = std::filesystem;

// The driver's error type, as ReplayError and FabricError are.
struct DriverError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
void fail(const std::string& what) {
  throw DriverError(what);
}

class RunOutputsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() /
            ("rocelb-runoutputs-" + std::to_string(getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
  }
  void TearDown() override { fs::remove_all(root_); }
  static std::string slurp(const fs::path& p) {
    std::ifstream f(p);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
  }
  fs::path root_;
};

TEST_F(RunOutputsTest, OwnOutputsLargerThanMaxOutputAreRefusedWithTheDriversError) {
  RecordOptions rec;
  rec.max_output = 1000;
  RunOutputs outs(rec, fail);
  try {
    outs.reserve(1001, [] { return std::string("--max-output 1000B: less than 1001 B"); });
    FAIL() << "no error";
  } catch (const DriverError& e) {
    EXPECT_STREQ(e.what(), "--max-output 1000B: less than 1001 B");
  }
  RunOutputs fits(rec, fail);
  EXPECT_NO_THROW(fits.reserve(1000, [] { return std::string("never asked"); }));
}

TEST_F(RunOutputsTest, ADirectoryInTheWayIsFoundBeforeTheRun) {
  fs::create_directories(root_ / "counters.json");
  RunOutputs outs(RecordOptions{}, fail);
  outs.open(root_.string());
  EXPECT_THROW(outs.check({"counters.json", "run.json"}), DriverError);
}

TEST_F(RunOutputsTest, CommitWritesRunJsonWithWhereRecordingStoppedAndMovesEverything) {
  RecordOptions rec;
  rec.timeline_ns = 5000;
  rec.max_output = 10'000;
  RunOutputs outs(rec, fail);
  outs.reserve(100, [] { return std::string(); });
  const std::vector<std::string> names = {"a.txt", "run.json"};
  outs.open(root_.string());
  outs.check(names);
  ASSERT_FALSE(outs.budget().room(1'000'000, 42));  // a recording asks too much: it stops at 42 ns
  ASSERT_TRUE(outs.recording_stopped());
  EXPECT_EQ(outs.recording_stopped_ns(), 42u);
  outs.write("a.txt", "hello\n");
  EXPECT_FALSE(fs::exists(root_ / "a.txt"));  // staged, not yet in place
  RunManifest m;
  m.kind = "replay";
  m.t0_ns = 1000;
  m.end_ns = 2000;
  m.extra["inputs"] = Json::array();
  outs.commit(m, names);
  EXPECT_EQ(slurp(root_ / "a.txt"), "hello\n");
  const Json j = Json::parse(slurp(root_ / "run.json"));
  EXPECT_EQ(j["kind"], "replay");
  EXPECT_EQ(j["interval_ns"], 5000);
  EXPECT_EQ(j["outputs"], Json(names));
  EXPECT_EQ(j["recording_stopped"]["t_ns"], 1042);  // on the outputs' clock: t0 + 42
  EXPECT_EQ(j["recording_stopped"]["max_output_bytes"], 10'000);
}

TEST_F(RunOutputsTest, NoRecorderWithoutARecording) {
  RunOutputs outs(RecordOptions{}, fail);
  outs.open(root_.string());
  EXPECT_EQ(outs.start_recorder(0), nullptr);
  EXPECT_EQ(outs.recorder(), nullptr);
  EXPECT_NO_THROW(outs.finish_recorder(0));
}

TEST_F(RunOutputsTest, WithoutACommitNothingLands) {
  {
    RunOutputs outs(RecordOptions{}, fail);
    outs.open(root_.string());
    outs.check({"a.txt"});
    outs.write("a.txt", "x");
  }
  EXPECT_FALSE(fs::exists(root_));  // the folder the run made is gone too
}

}  // namespace
}  // namespace rocelb
