// Prometheus' linter on what a running switch really serves: `rocelb-dp run`
// with two worker lcores (`-- --lcores 0@0,1@1,2@0`) on net_pcap, net_ring
// and net_null vdevs, idle workers sleeping (`--idle-sleep-max`), scraped
// through `rocelbctl show metrics` as a user (or rocelbd) reads it. The unit
// tests render a replay's counters, which have no lcores: the idle-sleep
// counters once reached /metrics as rocelb_lcore_sleep_ns_total, which
// promtool refuses ("metric names should not contain abbreviated units").
// Here the whole text passes `promtool check metrics`, and the time the
// workers slept is there in seconds, agreeing with `show lcores`' ns. The
// same on a switch shaped as tools/fabric-live runs them (an AF_XDP port
// with XDP steering), whose text adds the steering counters.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/pcap_file.h"
#include "live_run.h"
#include "run_command.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class LiveMetricsPromtool : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("rocelb-promtool-" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    run_.reset();  // killed if still running
    if (!HasFailure()) fs::remove_all(dir_);
  }

  // 64 RoCEv2 frames from host 0 to remote hosts (ECMP over the uplinks),
  // read once: then every worker goes idle and sleeps.
  std::string traffic() {
    const std::string in = (dir_ / "in0.pcap").string();
    PcapWriter w(in);
    for (int i = 0; i < 64; ++i) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, 0};
      s.src_ip = ipv4_bytes(10, 0, 0, 2);
      s.dst_ip = ipv4_bytes(10, 2, static_cast<uint8_t>(i % 4), 9);
      s.dscp = 26;
      s.sport = static_cast<uint16_t>(49152 + i);
      s.payload_len = 256;
      const auto f = build_frame(s);
      w.write(1'767'225'600'000'000'000ull + i * 1000, f.data(), static_cast<uint32_t>(f.size()));
    }
    w.close();
    return in;
  }

  test::CommandResult ctl(const std::string& args) {
    return test::run_command(
        test::bin("tools/rocelbctl") + " --socket " + run_->sock().string() + " " + args, dir_);
  }

  fs::path dir_;
  std::unique_ptr<test::LiveRun> run_;
};

// "name{labels} value" lines of the exposition text: series -> value.
std::map<std::string, double> samples(const std::string& text) {
  std::map<std::string, double> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto sp = line.rfind(' ');
    out[line.substr(0, sp)] = std::stod(line.substr(sp + 1));
  }
  return out;
}

TEST_F(LiveMetricsPromtool, TwoWorkersTextPassesPromtool) {
  ASSERT_EQ(access("/usr/bin/promtool", X_OK), 0) << "tools/setup installs promtool";
  // Port 0 reads the pcap once; ports 1-3 are rings (what they send comes
  // back), 4-7 drop what they are given.
  std::string sets = " --set 'ports[0].device=net_pcap0,rx_pcap=" + traffic() + "'";
  for (int p = 1; p < 4; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_ring" + std::to_string(p);
  for (int p = 4; p < 8; ++p)
    sets += " --set 'ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p) +
            ",no-rx=1'";
  run_ = std::make_unique<test::LiveRun>(dir_,
                                         sets + " --idle-sleep-max 200us -- --lcores 0@0,1@1,2@0");
  ASSERT_TRUE(run_->wait_ready()) << run_->err();

  // Both workers have forwarded or slept: the lcores show time in ns.
  json lcores;
  ASSERT_TRUE(run_->wait_until(
      [&] {
        const auto r = ctl("show lcores --json");
        if (r.exit_code != 0) return false;
        lcores = json::parse(r.out, nullptr, false);
        if (!lcores.is_object() || lcores["lcores"].size() != 2) return false;
        uint64_t rx = 0;
        for (const auto& l : lcores["lcores"]) {
          if (l.value("sleep_ns", uint64_t{0}) == 0) return false;
          rx += l.value("rx_packets", uint64_t{0});
        }
        return rx >= 64;
      },
      60))
      << lcores.dump() << run_->err();

  const auto shown = ctl("show metrics");
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const std::string& text = shown.out;
  const fs::path file = dir_ / "metrics.txt";
  std::ofstream(file) << text;
  // In its own shell: run_command ends the line with its own </dev/null,
  // which would win over a `< file` and lint an empty text.
  const auto lint =
      test::run_command("sh -c 'promtool check metrics < " + file.string() + "'", dir_);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out + lint.err, "");
  // The same way refuses what it should: the check can fail.
  const fs::path bad = dir_ / "bad.txt";
  std::ofstream(bad) << "# HELP x_sleep_ns_total t\n# TYPE x_sleep_ns_total counter\n"
                        "x_sleep_ns_total 1\n";
  const auto refused =
      test::run_command("sh -c 'promtool check metrics < " + bad.string() + "'", dir_);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE((refused.out + refused.err).find("abbreviated units"), std::string::npos)
      << refused.out << refused.err;

  // Every worker's sleep in seconds, at least what `show lcores` said in ns
  // before (counters only go up); no name keeps a ns/us/ms unit.
  const auto got = samples(text);
  for (const auto& l : lcores["lcores"]) {
    const std::string key = "rocelb_lcore_sleep_seconds_total{worker=\"" +
                            std::to_string(l["worker"].get<uint64_t>()) + "\",lcore=\"" +
                            std::to_string(l["lcore"].get<int64_t>()) + "\"}";
    ASSERT_TRUE(got.count(key)) << key << "\n" << text;
    EXPECT_GE(got.at(key) * 1e9 + 1, static_cast<double>(l["sleep_ns"].get<uint64_t>())) << key;
    EXPECT_GT(got.at(key), 0) << key;
  }
  for (const auto& [series, value] : got) {
    const std::string name = series.substr(0, series.find('{'));
    for (const char* unit : {"_ns", "_us", "_ms"})
      EXPECT_EQ(name.find(std::string(unit) + "_"), std::string::npos) << name;
  }
  EXPECT_GE(got.at("rocelb_port_rx_packets_total{port=\"0\"}"), 64);

  const auto r = run_->stop();
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// A switch as tools/fabric-live runs it: an AF_XDP port with rocelb's XDP
// steering (on a veth, in private network, mount and PID namespaces so it
// collides with nothing), the other ports net_null, two workers. Its text
// adds the XDP steering counters; promtool accepts the whole of it.
TEST_F(LiveMetricsPromtool, AfXdpSwitchTextPassesPromtool) {
  ASSERT_EQ(access("/usr/bin/promtool", X_OK), 0) << "tools/setup installs promtool";
  if (geteuid() != 0) GTEST_SKIP() << "needs root (veth, AF_XDP)";
  if (test::run_command("command -v unshare && command -v ip", dir_).exit_code != 0)
    GTEST_SKIP() << "needs unshare(1) and ip(8)";
  const std::string dp = test::bin("dataplane/rocelb-dp"), ctl = test::bin("tools/rocelbctl");
  const fs::path text_file = dir_ / "metrics.txt";
  std::string nulls;
  for (int p = 1; p < 8; ++p)
    nulls +=
        " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p) + ",no-rx=1";
  std::ofstream(dir_ / "run.sh")
      << "set -euo pipefail\n"
         "mount -t tmpfs rocelb-test /run\n"
         "ip link set lo up\n"
         "ip link add s0 type veth peer name h0\n"
         "ip link set s0 up; ip link set h0 up\n"
      << dp << " run --set ports[0].device=net_af_xdp0,iface=s0 --set ports[0].xdp_steering=roce"
      << nulls << " --idle-sleep-max 200us -- --lcores 0@0,1@1,2@0 &\n"
      << "sw=$!\n"
         "timeout 60 sh -c 'until "
      << ctl << " show ports >/dev/null 2>&1; do sleep 0.2; done'\n"
      << "ping -c 2 -W 1 -I h0 10.0.0.1 >/dev/null 2>&1 || true\n"  // frames for the program
      << ctl << " show metrics >" << text_file.string() << "\n"
      << "kill $sw; wait $sw\n";
  const auto r = test::run_command(
      "timeout -k 5 120 unshare --mount --net --pid --fork --kill-child --mount-proc "
      "--propagation private bash " +
          (dir_ / "run.sh").string(),
      dir_);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string text = test::read_file(text_file);
  EXPECT_NE(text.find("rocelb_port_xdp_frames_total{port=\"0\",to=\"switch\",reason=\"rocev2\"}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocelb_lcore_sleep_seconds_total{worker=\"1\""), std::string::npos);
  const auto lint =
      test::run_command("sh -c 'promtool check metrics < " + text_file.string() + "'", dir_);
  EXPECT_EQ(lint.exit_code, 0) << lint.out << lint.err;
  EXPECT_EQ(lint.out + lint.err, "");
}

}  // namespace
}  // namespace rocelb
