// The file rocelbd owns is read bounded: a FIFO, a device or an oversized
// file is refused at once with one line naming it (it used to block on the
// FIFO, or read /dev/zero until memory ran out), and last good stays.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

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
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.error, error);
    EXPECT_TRUE(r.text.empty());
  }
  fs::remove_all(dir);
}

// rocelbd sends its file in one request of at most 64 KiB, JSON-escaped: a
// valid config that cannot be sent whole is refused when read, with that
// reason, not sent and skipped by the switch ("request larger than 65536
// bytes: skipped to its end").
TEST(ConfigKeeperBounded, AConfigThatCannotBeOneRequestIsRefusedWhenRead) {
  const fs::path dir = fs::temp_directory_path() / ("rocelbd-request-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string path = (dir / "big.yaml").string();
  std::ifstream def(ROCELB_SOURCE_DIR "/configs/default.yaml");
  std::string text(std::istreambuf_iterator<char>(def), {});
  ASSERT_FALSE(text.empty());
  const std::string valid = text;
  while (text.size() < 70'000)
    text += "# padding that only makes the file longer xxxxxxxxxxxxxxxxx\n";
  std::ofstream(path) << text;
  const ConfigRead r = ConfigKeeper(path).read();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.rfind(path + ": " + std::to_string(text.size()) + " bytes, ", 0), 0u)
      << r.error;
  EXPECT_NE(r.error.find(" as a request: over the control protocol's 64 KiB per request"),
            std::string::npos)
      << r.error;
  std::ofstream(path) << valid;  // the same config, unpadded, is sent
  EXPECT_TRUE(ConfigKeeper(path).read().ok) << ConfigKeeper(path).read().error;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb
