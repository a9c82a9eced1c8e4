// SIGINT or SIGTERM during `rocelb-dp fabric` or `replay`: the run stops
// between two events, says so in one line, exits 128 + the signal, and
// leaves the output folder as it was: a folder the run made is gone, and no
// hidden .rocelb-replay.* folder stays behind (it did: a signal killed the
// process before any clean-up).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <thread>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using test::bin;
using test::src;

class RunInterrupt : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-interrupt-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs argv, sends `sig` after `after`, returns the exit code (128 + a
  // signal that killed it).
  int run_and_signal(std::vector<std::string> argv, int sig, std::chrono::milliseconds after) {
    const pid_t pid = fork();
    if (pid == 0) {
      const int out = open((dir_ / "out.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      const int err = open((dir_ / "err.txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      dup2(out, 1);
      dup2(err, 2);
      std::vector<char*> args;
      for (auto& a : argv) args.push_back(a.data());
      args.push_back(nullptr);
      execv(args[0], args.data());
      _exit(127);
    }
    std::this_thread::sleep_for(after);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string err() const { return test::read_file(dir_ / "err.txt"); }
  static long lines(const std::string& s) { return std::count(s.begin(), s.end(), '\n'); }
  // What is in `d`, hidden files included.
  static std::vector<std::string> listing(const fs::path& d) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(d)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
  }

  // A fabric run that takes seconds of wall time: 20 ms of Poisson arrivals
  // at 80 % load on the small fabric.
  // With `threads` > 1 (no timeline there: it needs one thread) the signal
  // reaches the shards at a window's end.
  std::vector<std::string> long_fabric(const fs::path& out, int threads = 1) {
    std::ofstream(dir_ / "w.yaml") << "type: poisson\ncdf: WebSearch\nload: 0.8\nduration: 20ms\n";
    std::vector<std::string> argv = {bin("dataplane/rocelb-dp"),
                                     "fabric",
                                     "--topology",
                                     src("configs/fabrics/leaf_spine_2x2_8h.yaml"),
                                     "--workload",
                                     (dir_ / "w.yaml").string(),
                                     "--out-dir",
                                     out.string()};
    if (threads == 1) {
      argv.push_back("--timeline");
      argv.push_back("10us");
    } else {
      argv.push_back("--threads");
      argv.push_back(std::to_string(threads));
    }
    return argv;
  }

  fs::path dir_;
};

TEST_F(RunInterrupt, SigintDuringAFabricRunRemovesTheFolderItMade) {
  const fs::path out = dir_ / "new" / "out";
  const int rc = run_and_signal(long_fabric(out), SIGINT, std::chrono::milliseconds(1500));
  EXPECT_EQ(rc, 130) << err();
  EXPECT_NE(err().find("interrupted by SIGINT"), std::string::npos) << err();
  EXPECT_EQ(lines(err()), 1) << err();
  EXPECT_FALSE(fs::exists(dir_ / "new"));
}

TEST_F(RunInterrupt, SigintStopsEveryThreadOfAThreadedFabricRun) {
  const fs::path out = dir_ / "new" / "out";
  const int rc = run_and_signal(long_fabric(out, 2), SIGINT, std::chrono::milliseconds(1500));
  EXPECT_EQ(rc, 130) << err();
  EXPECT_NE(err().find("interrupted by SIGINT"), std::string::npos) << err();
  EXPECT_EQ(lines(err()), 1) << err();
  EXPECT_FALSE(fs::exists(dir_ / "new"));
}

TEST_F(RunInterrupt, SigtermLeavesAnExistingFolderAsItWas) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  std::ofstream(out / "mine.txt") << "kept\n";
  const int rc = run_and_signal(long_fabric(out), SIGTERM, std::chrono::milliseconds(1500));
  EXPECT_EQ(rc, 143) << err();
  EXPECT_NE(err().find("interrupted by SIGTERM"), std::string::npos) << err();
  EXPECT_EQ(listing(out), std::vector<std::string>{"mine.txt"});
}

// A replay blocked reading a FIFO that nobody writes: the signal stops it.
TEST_F(RunInterrupt, SigintStopsAReplayWaitingOnAFifo) {
  const fs::path fifo = dir_ / "in.fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  const fs::path out = dir_ / "out";
  const int rc = run_and_signal({bin("dataplane/rocelb-dp"), "replay", "--in", "0=" + fifo.string(),
                                 "--out-dir", out.string()},
                                SIGINT, std::chrono::milliseconds(1000));
  EXPECT_EQ(rc, 130) << err();
  EXPECT_NE(err().find("interrupted by SIGINT"), std::string::npos) << err();
  EXPECT_EQ(lines(err()), 1) << err();
  EXPECT_FALSE(fs::exists(out));
}

}  // namespace
}  // namespace rocelb
