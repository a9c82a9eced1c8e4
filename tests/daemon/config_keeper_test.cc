// ConfigKeeper: a valid file is read as is; an invalid one is refused with
// the loader's message (file: key.path: value: rule) and never becomes last
// good; last good changes only through accept().
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "control/config_loader.h"
#include "control/daemon/config_keeper.h"
#include "control/default_config.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

class ConfigKeeperTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelbd-keeper-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    path_ = (dir_ / "rocelb.yaml").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& text) { std::ofstream(path_) << text; }

  fs::path dir_;
  std::string path_;
};

TEST_F(ConfigKeeperTest, AcceptsAValidFileAsWritten) {
  const std::string text(embedded_default_config());
  write(text);
  ConfigKeeper k(path_);
  const ConfigRead r = k.read();
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.text, text);
  EXPECT_FALSE(k.last_good());
  k.accept(r.text);
  EXPECT_EQ(k.last_good(), text);
}

TEST_F(ConfigKeeperTest, RefusesAnInvalidFileWithTheLoadersMessage) {
  std::string text(embedded_default_config());
  const auto at = text.find("mode: fixed");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, 11, "mode: sideways");
  write(text);
  ConfigKeeper k(path_);
  k.accept("previous");
  const ConfigRead r = k.read();
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.text.empty());
  // The message is exactly what load_config_file gives.
  std::string expected;
  try {
    load_config_text(text, path_);
  } catch (const ConfigError& e) {
    expected = e.what();
  }
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(r.error, expected);
  EXPECT_EQ(r.error.rfind(path_ + ": groups.uplinks.mode: ", 0), 0u) << r.error;
  EXPECT_NE(r.error.find("sideways"), std::string::npos) << r.error;
  EXPECT_EQ(k.last_good(), "previous");
}

TEST_F(ConfigKeeperTest, UnknownKeyNamesItsPath) {
  write(std::string(embedded_default_config()) + "\nnonsense_key: 1\n");
  const ConfigRead r = ConfigKeeper(path_).read();
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find(path_ + ": nonsense_key: "), std::string::npos) << r.error;
}

TEST_F(ConfigKeeperTest, MissingFileSaysSo) {
  const ConfigRead r = ConfigKeeper((dir_ / "absent.yaml").string()).read();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error, (dir_ / "absent.yaml").string() + ": cannot read: No such file or directory");
}

TEST_F(ConfigKeeperTest, BrokenYamlIsRefused) {
  write("ports: [\n");
  const ConfigRead r = ConfigKeeper(path_).read();
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.error.rfind(path_ + ":", 0), 0u) << r.error;
}

}  // namespace
}  // namespace rocelb
