// The file rocelbd owns is read bounded: a FIFO, a device or an oversized
// file is refused at once with one line naming it (it used to block on the
// FIFO, or read /dev/zero until memory ran out), and last good stays.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "control/daemon/config_keeper.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

TEST(ConfigKeeperBounded, OnlyARegularFileOfAtMost16MiBIsRead) {
  const fs::path dir = fs::temp_directory_path() / ("rocelbd-bounded-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = (dir / "big.yaml").string();
  std::ofstream(big) << "";
  fs::resize_file(big, 17u << 20);
  const std::pair<std::string, std::string> cases[] = {
      {"/dev/zero", "/dev/zero: cannot read: not a regular file (a character device)"},
      {fifo, fifo + ": cannot read: not a regular file (a FIFO)"},
      {big, big + ": cannot read: 17825792 bytes, over the limit of 16 MiB for this file"},
  };
  for (const auto& [path, error] : cases) {
    const auto t0 = std::chrono::steady_clock::now();
    const ConfigRead r = ConfigKeeper(path).read();
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, error);
    EXPECT_TRUE(r.text.empty());
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb
