// Golden files of the rocelbctl tests: tests/ctl/golden/NAME, compared byte
// for byte; with ROCELB_UPDATE_GOLDEN=1 in the environment they are written
// instead (review the diff before committing them).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace rocelb::test {

inline std::string golden_path(const std::string& name) {
  return std::string(ROCELB_SOURCE_DIR) + "/tests/ctl/golden/" + name;
}

inline std::string read_golden(const std::string& name) {
  std::ifstream f(golden_path(name), std::ios::binary);
  EXPECT_TRUE(f.good()) << golden_path(name) << ": cannot read it";
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline nlohmann::json golden_json(const std::string& name) {
  return nlohmann::json::parse(read_golden(name));
}

inline bool updating_goldens() {
  const char* v = std::getenv("ROCELB_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

inline void expect_golden(const std::string& name, const std::string& actual) {
  if (updating_goldens()) {
    std::ofstream f(golden_path(name), std::ios::binary | std::ios::trunc);
    f << actual;
    ASSERT_TRUE(f.good()) << golden_path(name) << ": cannot write it";
    return;
  }
  EXPECT_EQ(read_golden(name), actual)
      << "differs from " << golden_path(name)
      << " (if the change is intended: ROCELB_UPDATE_GOLDEN=1, then review the file)";
}

}  // namespace rocelb::test
