// The files rocelbctl reads itself (config apply FILE, --fabric FILE and the
// switch configs it names) are read bounded and explained in one line:
// a FIFO or a device is refused at once, a broken file names its key path,
// never a yaml-cpp internal message.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tools/ctl/ctl_commands.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

struct CtlRun {
  int code = -1;
  std::string err;
  double seconds = 0;
};

CtlRun ctl(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  const auto t0 = std::chrono::steady_clock::now();
  CtlRun r;
  r.code = run_ctl(args, CtlContext{out, err, false, ""});
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  r.err = err.str();
  return r;
}

class CtlFileInputs : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelbctl-inputs-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
    std::ofstream(dir_ / "big.yaml") << "";
    fs::resize_file(dir_ / "big.yaml", 17u << 20);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }
  // A usage error (exit 2), one line, at once.
  std::string refusal(const std::vector<std::string>& args) {
    const CtlRun r = ctl(args);
    EXPECT_EQ(r.code, kCtlExitUsage) << r.err;
    EXPECT_LT(r.seconds, 2.0);
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
    return r.err;
  }

  fs::path dir_;
};

TEST_F(CtlFileInputs, ConfigApplyReadsOnlyARegularFileOfAtMost16MiB) {
  const std::string sock = path("sock");
  EXPECT_EQ(refusal({"--socket", sock, "config", "apply", "/dev/zero"}),
            "rocelbctl: config apply /dev/zero: not a regular file (a character device)\n");
  EXPECT_EQ(refusal({"--socket", sock, "config", "apply", path("fifo")}),
            "rocelbctl: config apply " + path("fifo") + ": not a regular file (a FIFO)\n");
  EXPECT_EQ(refusal({"--socket", sock, "config", "apply", path("big.yaml")}),
            "rocelbctl: config apply " + path("big.yaml") +
                ": 17825792 bytes, over the limit of 16 MiB for this file\n");
}

// A config goes to the switch as one request line of at most 64 KiB, its
// text JSON-escaped: one that cannot be sent whole, or is not UTF-8, is a
// usage error naming the file, found before rocelbctl connects (no switch
// listens here), not a request the switch skips.
TEST_F(CtlFileInputs, ConfigApplyThatCannotBeOneRequestIsRefusedBeforeConnecting) {
  const std::string sock = path("sock");
  std::string big = "switch: {name: s1}\n";
  while (big.size() < 70'000)
    big += "# a comment line that only pads the file out xxxxxxxxxxxxxxxxx\n";
  write("big70k.yaml", big);
  const std::string over = refusal({"--socket", sock, "config", "apply", path("big70k.yaml")});
  EXPECT_EQ(over.rfind("rocelbctl: config apply " + path("big70k.yaml") + ": " +
                           std::to_string(big.size()) + " bytes, ",
                       0),
            0u)
      << over;
  const std::string tail =
      " as a request: over the control protocol's 64 KiB per request "
      "(control/control-protocol.md)\n";
  EXPECT_EQ(over.substr(over.size() - tail.size()), tail) << over;
  // Under 64 KiB as a file, over it once its quotes are escaped.
  std::string quoted = "switch: {name: s1}\n";
  while (quoted.size() < 50'000) quoted += "# \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\"\n";
  write("quoted.yaml", quoted);
  const std::string why = refusal({"--socket", sock, "config", "apply", path("quoted.yaml")});
  EXPECT_NE(why.find(": " + std::to_string(quoted.size()) + " bytes, "), std::string::npos) << why;
  EXPECT_NE(why.find("over the control protocol's 64 KiB per request"), std::string::npos) << why;
  write("latin1.yaml", "switch: {name: caf\xe9}\n");
  EXPECT_EQ(refusal({"--socket", sock, "config", "apply", path("latin1.yaml")}),
            "rocelbctl: config apply " + path("latin1.yaml") +
                ": not UTF-8 text (byte 0xe9 at offset 18): a config is UTF-8\n");
  // One that fits is sent: here nothing listens.
  write("small.yaml", "switch: {name: s1}\n");
  EXPECT_EQ(ctl({"--socket", sock, "config", "apply", path("small.yaml")}).code,
            kCtlExitCannotConnect);
}

TEST_F(CtlFileInputs, AFabricFileAndItsSwitchConfigsAreReadBoundedWithKeyPaths) {
  auto fabric_error = [&](const std::string& text) {
    write("fabric.yaml", text);
    return refusal({"--fabric", path("fabric.yaml"), "show", "ports"});
  };
  const std::string f = path("fabric.yaml");
  EXPECT_EQ(refusal({"--fabric", path("fifo"), "show", "ports"}),
            "rocelbctl: --fabric cannot read fabric file \"" + path("fifo") +
                "\": not a regular file (a FIFO)\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: fifo}\n"),
            "rocelbctl: --fabric " + f + ": switches.leaf0: cannot read config file \"" +
                path("fifo") + "\": not a regular file (a FIFO)\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: /dev/zero}\n"),
            "rocelbctl: --fabric " + f +
                ": switches.leaf0: cannot read config file \"/dev/zero\": not a regular file (a "
                "character device)\n");
  // yaml-cpp's own words ("operator[] call on a scalar", "bad conversion")
  // were printed for these.
  write("leaf0.yaml", "control: 5\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: leaf0.yaml}\n"),
            "rocelbctl: --fabric " + f + ": switches.leaf0: " + path("leaf0.yaml") +
                ": control: expected a map, found 5\n");
  write("leaf0.yaml", "control: {socket: [a]}\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: leaf0.yaml}\n"),
            "rocelbctl: --fabric " + f + ": switches.leaf0: " + path("leaf0.yaml") +
                ": control.socket: expected a socket path, found a list\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: [x]}\n"),
            "rocelbctl: --fabric " + f +
                ": switches.leaf0: expected the switch's config file, found a list\n");
  EXPECT_EQ(
      fabric_error("switches: {[a]: x.yaml}\n"),
      "rocelbctl: --fabric " + f + ": switches: keys must be strings, found a list as a key\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: a.yaml, leaf0: b.yaml}\n"),
            "rocelbctl: --fabric " + f + ":1:27: switches.leaf0: duplicate key\n");
  EXPECT_EQ(fabric_error("switches: {}\n"),
            "rocelbctl: --fabric " + f +
                ": switches: expected a map of switch name to config file, found an empty map: "
                "--fabric takes a fabric in the explicit form (switches: {NAME: CONFIG.yaml}; "
                "rocelb-dp fabric --export writes one)\n");
  EXPECT_EQ(fabric_error("switches: {leaf0: [\n").rfind("rocelbctl: --fabric " + f + ":2:1: ", 0),
            0u);
}

}  // namespace
}  // namespace rocelb
