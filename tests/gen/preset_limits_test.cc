// rocelb-gen within its limits: a preset asked for more than a scenario can
// hold (kMaxScenarioFlows flows, kMaxPfcFrames frames per PFC source) is
// refused before anything is built, naming the parameter and the limit
// (nvmeof with ios=30000 and 1 MiB I/Os took 5 GB and produced nothing in
// 300 s); and a scenario file is read bounded.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>

#include "gen_test_util.h"
#include "tools/gen/presets.h"

namespace rocelb {
namespace {

using test::default_config;

// The one-line refusal of `f`, and that it came at once.
template <typename Error>
std::string quick_error(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string msg = "(no error)";
  try {
    f();
  } catch (const Error& e) {
    msg = e.what();
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0)
      << msg;
  EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  return msg;
}

std::string preset_error(const std::string& name, const std::vector<std::string>& params) {
  return quick_error<PresetError>([&] { run_preset(name, params, default_config(), 1); });
}

TEST(PresetLimits, NvmeofRefusesMoreI0sThanAScenarioHoldsUpFront) {
  EXPECT_EQ(preset_error("nvmeof", {"ios=30000", "io_min=1MiB", "io_max=1MiB"}),
            "--param ios=30000: 480000 flows (up to 4 per I/O, 30000 I/Os x 4 initiators): a "
            "scenario holds at most 50000 (preset nvmeof)");
  EXPECT_EQ(preset_error("nvmeof", {"ios=3126"}),
            "--param ios=3126: 50016 flows (up to 4 per I/O, 3126 I/Os x 4 initiators): a "
            "scenario holds at most 50000 (preset nvmeof)");
  const PresetResult r = run_preset("nvmeof", {"ios=500"}, default_config(), 1);
  EXPECT_GE(r.scenario.flows.size(), 500u * 4 * 3);
  EXPECT_LE(r.scenario.flows.size(), 500u * 4 * 4);
}

TEST(PresetLimits, MultitenantCdfAndPfcStormRefuseWhatTheyCannotHold) {
  EXPECT_EQ(preset_error("multitenant", {"tenants=8", "mice=100000"}),
            "--param mice=100000: mice must be 1..50000 (preset multitenant)");
  EXPECT_EQ(preset_error("multitenant", {"tenants=8", "mice=10000"}),
            "--param mice=10000: 70004 flows (4 elephants + 7 tenants x 10000 mice): a scenario "
            "holds at most 50000 (preset multitenant)");
  EXPECT_EQ(preset_error("cdf", {"cdf=GoogleRPC2008", "duration=10s", "load=1", "remotes=250"}),
            "--param duration=10s: more than 50000 flows, what a scenario holds: lower duration "
            "or load (preset cdf)");
  EXPECT_EQ(preset_error("pfc-storm", {"duration=3600s", "interval=1ns"}),
            "--param interval=1ns: duration / interval is 3600000000000 PFC frames: a PFC source "
            "sends at most 10000000 (preset pfc-storm)");
}

TEST(PresetLimits, TheCdfPresetDrawsOnlyItsSendersFlows) {
  // The receivers' draws were made and thrown away: with 250 remotes they
  // filled the flow limit before the senders' flows did.
  const PresetResult few = run_preset("cdf", {"duration=1ms", "remotes=1"}, default_config(), 7);
  const PresetResult many = run_preset("cdf", {"duration=1ms", "remotes=250"}, default_config(), 7);
  ASSERT_EQ(few.scenario.flows.size(), many.scenario.flows.size());
  for (size_t i = 0; i < few.scenario.flows.size(); ++i) {
    EXPECT_EQ(few.scenario.flows[i].start_ns, many.scenario.flows[i].start_ns);
    EXPECT_EQ(few.scenario.flows[i].message_bytes, many.scenario.flows[i].message_bytes);
  }
}

TEST(ScenarioLimits, AScenarioHoldsAtMost50000Flows) {
  std::string text = "flows:\n";
  for (uint64_t i = 0; i <= kMaxScenarioFlows; ++i)
    text += "- {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n";
  EXPECT_EQ(test::scenario_error(text),
            "scenario.yaml: flows: 50001 flows: a scenario holds at most 50000 (use messages and "
            "copies for more traffic per flow)");
}

TEST(ScenarioLimits, AScenarioFileIsARegularFileOfAtMost16MiB) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("rocelb-scenario-reads-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string fifo = (dir / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string big = (dir / "big.yaml").string();
  std::ofstream(big) << "";
  std::filesystem::resize_file(big, 17u << 20);
  auto error = [&](const std::string& path) {
    return quick_error<ScenarioError>([&] { load_scenario_file(path, default_config()); });
  };
  EXPECT_EQ(error("/dev/zero"),
            "cannot read scenario file \"/dev/zero\": not a regular file (a character device)");
  EXPECT_EQ(error(fifo), "cannot read scenario file \"" + fifo + "\": not a regular file (a FIFO)");
  EXPECT_EQ(error(big), "cannot read scenario file \"" + big +
                            "\": 17825792 bytes, over the limit of 16 MiB for this file");
  std::filesystem::remove_all(dir);
  // And a key given twice, with its line.
  EXPECT_EQ(test::scenario_error("seed: 1\nseed: 2\nflows: [{in_port: 0, src: 10.0.0.2, dst: "
                                 "10.2.0.2}]\n"),
            "scenario.yaml:2:1: seed: duplicate key");
}

}  // namespace
}  // namespace rocelb
