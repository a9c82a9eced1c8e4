// Runs the project's real binaries from tests: a command line through
// /bin/sh with stdout and stderr captured apart, and its exit code.
#pragma once

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace rocelb::test {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline CommandResult run_command(const std::string& cmd, const std::filesystem::path& scratch) {
  const auto out = scratch / "cmd.stdout";
  const auto err = scratch / "cmd.stderr";
  const std::string full = cmd + " >" + out.string() + " 2>" + err.string() + " </dev/null";
  const int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = read_file(out);
  r.err = read_file(err);
  return r;
}

inline std::string bin(const std::string& rel) {
  return std::string(ROCELB_BINARY_DIR) + "/" + rel;
}
inline std::string src(const std::string& rel) {
  return std::string(ROCELB_SOURCE_DIR) + "/" + rel;
}

}  // namespace rocelb::test
