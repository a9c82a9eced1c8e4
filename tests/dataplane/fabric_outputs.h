// What fabric tests compare: a file's bytes, and two run folders holding
// the same outputs (every file the same bytes, summary.json without its
// `cost`, the same file names in both); and where a test writes them.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocelb::test {

// An empty folder of the running test's own under the temp directory
// (`prefix`, the process and the test's name): the caller removes it.
inline std::filesystem::path fresh_test_dir(const std::string& prefix) {
  const auto dir = std::filesystem::temp_directory_path() /
                   (prefix + std::to_string(::getpid()) + "_" +
                    ::testing::UnitTest::GetInstance()->current_test_info()->name());
  std::filesystem::remove_all(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void expect_same_outputs(const std::filesystem::path& a, const std::filesystem::path& b) {
  namespace fs = std::filesystem;
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(a)) {
    const std::string name = e.path().filename().string();
    ++files;
    if (name == "summary.json") {
      nlohmann::json sa = nlohmann::json::parse(slurp(a / name));
      nlohmann::json sb = nlohmann::json::parse(slurp(b / name));
      sa.erase("cost");
      sb.erase("cost");
      EXPECT_EQ(sa, sb) << b;
    } else {
      EXPECT_TRUE(slurp(a / name) == slurp(b / name)) << name << " differs in " << b;
    }
  }
  size_t b_files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(b)) ++b_files;
  EXPECT_EQ(files, b_files) << a << " and " << b;
  EXPECT_GE(files, 8u);
}

}  // namespace rocelb::test
