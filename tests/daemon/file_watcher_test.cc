// FileWatcher: sees a file written in place, renamed over (the way editors
// and config tools replace a file), and created; ignores other files in the
// directory; reports a burst once, after the debounce.
#include <gtest/gtest.h>
#include <poll.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "control/daemon/file_watcher.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using namespace std::chrono_literals;

class FileWatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelbd-watch-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "rocelb.yaml").string();
    std::ofstream(path_) << "first\n";
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Runs the watcher as the daemon's loop does, for up to `limit`; true as
  // soon as changed() is.
  static bool wait_changed(FileWatcher& w, std::chrono::milliseconds limit = 2000ms) {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      int timeout = w.timeout_ms();
      if (timeout < 0 || timeout > 50) timeout = 50;
      pollfd p{w.fd(), POLLIN, 0};
      if (::poll(&p, 1, timeout) > 0) w.on_readable();
      if (w.changed()) return true;
    }
    return false;
  }

  fs::path dir_;
  std::string path_;
};

TEST_F(FileWatcherTest, SeesAWriteInPlace) {
  FileWatcher w(path_, 20ms);
  EXPECT_FALSE(wait_changed(w, 100ms));
  std::ofstream(path_) << "second\n";
  EXPECT_TRUE(wait_changed(w));
  EXPECT_FALSE(wait_changed(w, 100ms)) << "one burst, one change";
}

TEST_F(FileWatcherTest, SeesARenameOver) {
  FileWatcher w(path_, 20ms);
  const std::string tmp = (dir_ / ".rocelb.yaml.swp").string();
  std::ofstream(tmp) << "second\n";
  EXPECT_FALSE(wait_changed(w, 100ms)) << "another file: not ours";
  ASSERT_EQ(std::rename(tmp.c_str(), path_.c_str()), 0);
  EXPECT_TRUE(wait_changed(w));
  // The watch is on the directory: the new inode is seen as well.
  std::ofstream(path_) << "third\n";
  EXPECT_TRUE(wait_changed(w));
}

TEST_F(FileWatcherTest, SeesTheFileCreatedAgain) {
  FileWatcher w(path_, 20ms);
  fs::remove(path_);
  EXPECT_FALSE(wait_changed(w, 100ms));
  std::ofstream(path_) << "back\n";
  EXPECT_TRUE(wait_changed(w));
}

TEST_F(FileWatcherTest, IgnoresOtherFilesInTheDirectory) {
  FileWatcher w(path_, 20ms);
  std::ofstream((dir_ / "rocelb.yaml.bak").string()) << "x\n";
  std::ofstream((dir_ / "other.yaml").string()) << "x\n";
  EXPECT_FALSE(wait_changed(w, 200ms));
}

TEST_F(FileWatcherTest, DebouncesABurstIntoOneChange) {
  FileWatcher w(path_, 150ms);
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 5; ++i) {
    std::ofstream(path_) << "write " << i << "\n";
    pollfd p{w.fd(), POLLIN, 0};
    ::poll(&p, 1, 20);
    w.on_readable();
    EXPECT_FALSE(w.changed()) << "still inside the burst";
  }
  EXPECT_GE(w.timeout_ms(), 0);
  EXPECT_TRUE(wait_changed(w));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
  EXPECT_FALSE(wait_changed(w, 300ms));
  EXPECT_EQ(w.timeout_ms(), -1);
}

TEST_F(FileWatcherTest, MissingDirectoryThrows) {
  EXPECT_THROW(FileWatcher((dir_ / "absent" / "x.yaml").string()), std::system_error);
}

}  // namespace
}  // namespace rocelb
