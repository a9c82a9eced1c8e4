// rocelbctl against a real switch: `rocelb-dp run` on eight net_null ports
// with its control socket in a scratch directory; every show target, a
// set, a refused set, a config apply, a clear and a short watch, each
// through the real rocelbctl binary and its exit code.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "live_run.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using nlohmann::json;

class CtlCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelb-ctl-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  test::CommandResult ctl(const std::string& args) {
    return test::run_command(test::bin("tools/rocelbctl") + " " + args, dir_);
  }

  fs::path dir_;
};

TEST_F(CtlCli, OperatesALiveSwitchOverItsSocket) {
  std::string sets;
  for (int p = 0; p < 8; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
  test::LiveRun sw(dir_, sets);
  ASSERT_TRUE(sw.wait_ready()) << sw.err();
  const fs::path sock = sw.sock();
  const std::string on = "--socket " + sock.string() + " ";

  // Every target, as text and as the documented JSON.
  const std::map<std::string, std::vector<std::string>> keys = {
      {"ports", {"time_ns", "ports"}},
      {"queues", {"time_ns", "queues"}},
      {"pfc", {"time_ns", "pfc_enable", "pause_time", "thresholds", "watchdog", "ports"}},
      {"ecn", {"time_ns", "mark_point", "profiles", "queues"}},
      {"groups", {"time_ns", "groups"}},
      {"flowlets", {"time_ns", "groups"}},
      {"counters", {"time_ns", "schema", "ports", "groups", "totals"}},
      {"config", {"generation", "source", "overrides", "yaml"}},
      {"metrics", {"content_type", "text"}}};
  for (const auto& [what, expected] : keys) {
    const auto text = ctl(on + "show " + what);
    EXPECT_EQ(text.exit_code, 0) << what << ": " << text.err;
    EXPECT_FALSE(text.out.empty()) << what;
    const auto raw = ctl(on + "show " + what + " --json");
    ASSERT_EQ(raw.exit_code, 0) << what << ": " << raw.err;
    const json j = json::parse(raw.out, nullptr, false);
    ASSERT_TRUE(j.is_object()) << what << ": " << raw.out.substr(0, 400);
    for (const auto& k : expected) EXPECT_TRUE(j.contains(k)) << what << " has no \"" << k << "\"";
  }
  const auto ports = ctl(on + "show ports");
  EXPECT_NE(ports.out.find("net_null7"), std::string::npos) << ports.out;
  EXPECT_NE(ports.out.find("100G"), std::string::npos) << ports.out;

  // The socket from the environment.
  const auto env = test::run_command(
      "ROCELB_SOCKET=" + sock.string() + " " + test::bin("tools/rocelbctl") + " show groups", dir_);
  EXPECT_EQ(env.exit_code, 0) << env.err;
  EXPECT_NE(env.out.find("group uplinks: fixed"), std::string::npos) << env.out;

  // set: accepted, then visible.
  const auto set = ctl(on + "set groups.uplinks.mode drill");
  EXPECT_EQ(set.exit_code, 0) << set.err;
  EXPECT_NE(set.out.find("set groups.uplinks.mode=\"drill\": generation "), std::string::npos)
      << set.out;
  const json groups = json::parse(ctl(on + "show groups --json").out, nullptr, false);
  ASSERT_TRUE(groups.is_object());
  EXPECT_EQ(groups["groups"][0]["mode"], "drill") << groups.dump(2);

  // set: refused with the loader's words, nothing changes.
  auto generation = [&] {
    const json c = json::parse(ctl(on + "show config --json").out, nullptr, false);
    return c.is_object() ? c["generation"].get<uint64_t>() : 0;
  };
  const uint64_t before = generation();
  const auto bad = ctl(on + "set qos.wred.3.green_min_threshold 2MB");
  EXPECT_EQ(bad.exit_code, 1) << bad.out << bad.err;
  // The loader's message, naming the override and the rule.
  EXPECT_EQ(bad.err.rfind(
                "rocelbctl: rocelbctl set qos.wred.3.green_min_threshold=\"2MB\": qos.wred.3", 0),
            0u)
      << bad.err;
  EXPECT_NE(bad.err.find("green_max_threshold"), std::string::npos) << bad.err;
  EXPECT_TRUE(bad.out.empty()) << bad.out;
  EXPECT_EQ(generation(), before);

  // config apply: the effective config (the live devices included) goes back in.
  const json config = json::parse(ctl(on + "show config --json").out, nullptr, false);
  ASSERT_TRUE(config.is_object());
  EXPECT_NE(config["overrides"].dump().find("drill"), std::string::npos) << config.dump(2);
  const fs::path yaml = dir_ / "effective.yaml";
  std::ofstream(yaml) << config["yaml"].get<std::string>();
  const auto applied = ctl(on + "config apply " + yaml.string());
  EXPECT_EQ(applied.exit_code, 0) << applied.err;
  EXPECT_EQ(applied.out.rfind("applied: generation ", 0), 0u) << applied.out;
  const json after = json::parse(ctl(on + "show config --json").out, nullptr, false);
  ASSERT_TRUE(after.is_object());
  EXPECT_GT(after["generation"].get<uint64_t>(), config["generation"].get<uint64_t>());
  const fs::path broken = dir_ / "broken.yaml";
  std::ofstream(broken) << config["yaml"].get<std::string>() << "\nnonsense_key: 1\n";
  const auto refused = ctl(on + "config apply " + broken.string());
  EXPECT_EQ(refused.exit_code, 1) << refused.out << refused.err;
  EXPECT_NE(refused.err.find("nonsense_key"), std::string::npos) << refused.err;

  const auto cleared = ctl(on + "clear counters");
  EXPECT_EQ(cleared.exit_code, 0) << cleared.err;
  EXPECT_EQ(cleared.out.rfind("cleared: counters", 0), 0u) << cleared.out;

  const auto watch = ctl(on + "watch --count 2 --interval 0.2");
  EXPECT_EQ(watch.exit_code, 0) << watch.err;
  EXPECT_NE(watch.out.find("rocelb watch: first sample"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("rocelb watch: rates over the last"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("port  name"), std::string::npos) << watch.out;
  EXPECT_NE(watch.out.find("spine3"), std::string::npos) << watch.out;
  EXPECT_EQ(watch.out.find("\x1b[2J"), std::string::npos);  // not a terminal: no clearing

  const auto r = sw.stop();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out << r.err;
}

TEST_F(CtlCli, ExitCodesWithoutASwitch) {
  const fs::path sock = dir_ / "none.sock";
  const auto r = ctl("--socket " + sock.string() + " show ports");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, "rocelbctl: cannot connect to the switch at " + sock.string() +
                       ": No such file or directory\n");
  EXPECT_EQ(ctl("show bogus").exit_code, 2);
  EXPECT_EQ(ctl("--socket " + sock.string() + " config apply " + (dir_ / "missing.yaml").string())
                .exit_code,
            2);
}

}  // namespace
}  // namespace rocelb
