// The `show` formatters (tools/ctl/show_format.h) against hand-written
// results that follow control/control-protocol.md: tests/ctl/golden/
// show_<target>.json in, show_<target>.txt out, byte for byte; plus the
// rules each screen must keep whatever the numbers.
#include "tools/ctl/show_format.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "golden.h"

namespace rocelb {
namespace {

using nlohmann::json;

class ShowGolden : public ::testing::TestWithParam<std::string_view> {};

TEST_P(ShowGolden, MatchesTheReviewedText) {
  const std::string what(GetParam());
  const json result = test::golden_json("show_" + what + ".json");
  test::expect_golden("show_" + what + ".txt", format_show(what, result));
}

INSTANTIATE_TEST_SUITE_P(EveryTarget, ShowGolden, ::testing::ValuesIn(kShowTargets),
                         [](const auto& info) { return std::string(info.param); });

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(ShowFormat, EveryScreenEndsInANewlineAndNoLineEndsInASpace) {
  for (std::string_view what : kShowTargets) {
    const std::string text =
        format_show(what, test::golden_json("show_" + std::string(what) + ".json"));
    ASSERT_FALSE(text.empty()) << what;
    EXPECT_EQ(text.back(), '\n') << what;
    for (const auto& l : lines(text))
      EXPECT_TRUE(l.empty() || l.back() != ' ') << what << ": " << l;
  }
}

TEST(ShowFormat, PortsShowHumanUnitsAndPfcState) {
  const std::string text = format_ports(test::golden_json("show_ports.json"));
  const auto ls = lines(text);
  ASSERT_EQ(ls.size(), 9u);  // header + 8 ports
  EXPECT_NE(ls[1].find("100G"), std::string::npos) << ls[1];
  EXPECT_NE(ls[1].find("1.35 GB"), std::string::npos) << ls[1];  // 1,352,500,000 rx bytes
  EXPECT_NE(ls[4].find("25G"), std::string::npos) << ls[4];
  EXPECT_NE(ls[7].find("1.23 MB"), std::string::npos) << ls[7];  // queued on spine2
  EXPECT_NE(ls[7].find("61.3 Gb/s"), std::string::npos) << ls[7];
  EXPECT_NE(ls[7].find("61.3%"), std::string::npos) << ls[7];
}

TEST(ShowFormat, PfcShowsLosslessPrioritiesAndAnyWithACounter) {
  json r = test::golden_json("show_pfc.json");
  std::string text = format_pfc(r);
  // 8 lossless rows (priority 3 of every port) and port 7's priority 0,
  // which received 3 pause frames although it is not lossless.
  EXPECT_EQ(count(text, "  lossless  "), 8u) << text;
  EXPECT_EQ(count(text, "  lossy  "), 1u) << text;
  // A lossy priority at rest stays hidden; one in any non-rest state shows.
  r["ports"][7]["priorities"][0]["rx_frames"] = 0;
  r["ports"][7]["priorities"][0]["rx_pause_us"] = 0;
  EXPECT_EQ(count(format_pfc(r), "  lossy  "), 0u);
  r["ports"][2]["priorities"][5]["watchdog_state"] = "storm";
  EXPECT_EQ(count(format_pfc(r), "  lossy  "), 1u);
  r["ports"][2]["priorities"][5]["watchdog_state"] = "normal";
  r["ports"][2]["priorities"][5]["asserted"] = true;
  EXPECT_NE(format_pfc(r).find("asserted"), std::string::npos);
}

TEST(ShowFormat, PfcOffAndDynamicThresholds) {
  json r = test::golden_json("show_pfc.json");
  r["pfc_enable"] = json::array();
  for (auto& p : r["ports"])
    for (auto& pr : p["priorities"]) {
      pr = json{{"priority", pr["priority"]},
                {"lossless", false},
                {"rx_frames", 0},
                {"rx_xon_frames", 0},
                {"rx_pause_us", 0},
                {"paused", false},
                {"tx_frames", 0},
                {"tx_xon_frames", 0},
                {"xoff_asserted_us", 0},
                {"asserted", false},
                {"held_bytes", 0},
                {"lossless_dropped", 0},
                {"watchdog_state", "normal"},
                {"storms_detected", 0},
                {"storms_restored", 0},
                {"watchdog_drops", 0}};
    }
  r["thresholds"]["mode"] = "dynamic";
  r["thresholds"]["dynamic_th"] = -2;
  r["thresholds"]["xon_offset_bytes"] = 64000;
  r["thresholds"]["xoff_now_bytes"] = 7500000;
  r["watchdog"]["enabled"] = false;
  const std::string text = format_pfc(r);
  EXPECT_NE(text.find("PFC: off (no lossless priority)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("thresholds: dynamic, dynamic_th -2, xon_offset 64.0 KB; now xoff 7.50 MB"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("watchdog: off\n"), std::string::npos) << text;
  EXPECT_NE(text.find("no lossless priority and no PFC activity"), std::string::npos) << text;
}

TEST(ShowFormat, EcnShowsProfilesThenQueues) {
  const std::string text = format_ecn(test::golden_json("show_ecn.json"));
  const auto profiles = text.find("profiles:");
  const auto queues = text.find("queues:");
  ASSERT_NE(profiles, std::string::npos);
  ASSERT_NE(queues, std::string::npos);
  EXPECT_LT(profiles, queues);
  EXPECT_NE(text.find("   3  150 KB  1.50 MB         100%  ecn_all\n"), std::string::npos) << text;
  json none = test::golden_json("show_ecn.json");
  none["profiles"] = json::array();
  none["queues"] = json::array();
  EXPECT_EQ(format_ecn(none), "ECN marking at enqueue\nno WRED/ECN profile: no class is marked\n");
}

TEST(ShowFormat, GroupSharesAddUpAndKnobsAreHuman) {
  const json r = test::golden_json("show_groups.json");
  const std::string text = format_groups(r);
  EXPECT_NE(text.find("idle_time 256 us"), std::string::npos) << text;
  EXPECT_NE(text.find("sampling_interval 16 us"), std::string::npos) << text;
  EXPECT_NE(text.find("queue_thresholds [16.0 KB, 32.0 KB"), std::string::npos) << text;
  EXPECT_NE(text.find("  quality: depth port, load_alpha 0.25,"), std::string::npos) << text;
  EXPECT_NE(text.find("  flowlets: 41210 created,"), std::string::npos) << text;
  EXPECT_EQ(text.find("  flowlets: 0 created"), std::string::npos) << text;  // not for wcmp
  EXPECT_NE(text.find("75.00%"), std::string::npos) << text;  // storage: weight 3 of 4
  EXPECT_NE(text.find("down"), std::string::npos) << text;
  double sum = 0;
  for (const auto& m : r["groups"][0]["members"]) sum += m["share"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-9);
}

TEST(ShowFormat, FlowletsListEntriesAndSayWhenTruncated) {
  json r = test::golden_json("show_flowlets.json");
  std::string text = format_flowlets(r);
  EXPECT_NE(text.find("850 ns"), std::string::npos) << text;
  EXPECT_NE(text.find("1.25 ms"), std::string::npos) << text;
  EXPECT_NE(text.find("group storage: wcmp, does not use flowlets"), std::string::npos) << text;
  EXPECT_EQ(text.find("youngest"), std::string::npos) << text;
  r["groups"][0]["truncated"] = true;
  EXPECT_NE(format_flowlets(r).find("(the 5 youngest entries; more are not shown)"),
            std::string::npos);
}

TEST(ShowFormat, CountersListDropReasonsAndTheConservationSum) {
  const std::string text = format_counters(test::golden_json("show_counters.json"));
  EXPECT_NE(text.find("no_route=10, ttl_expired=2"), std::string::npos) << text;
  EXPECT_NE(text.find("(balanced)"), std::string::npos) << text;
  EXPECT_NE(text.find("group uplinks (fixed)"), std::string::npos) << text;
}

TEST(ShowFormat, ConfigIsTheYamlUnderAComment) {
  const json r = test::golden_json("show_config.json");
  const std::string text = format_config(r);
  EXPECT_EQ(text.rfind("# generation 3 of configs/live-vdev.yaml, with 2 overrides:\n", 0), 0u);
  EXPECT_NE(text.find(r["yaml"].get<std::string>()), std::string::npos);
}

// The memory estimate: its items add up to its total (the fixture follows
// the switch's rule), each shows with the key that sizes it, all as YAML
// comments; a result without one (an older switch) shows none.
TEST(ShowFormat, ConfigShowsTheMemoryEstimateItemByItem) {
  json r = test::golden_json("show_config.json");
  uint64_t sum = 0;
  for (const auto& i : r["memory"]["items"]) sum += i["bytes"].get<uint64_t>();
  EXPECT_EQ(sum, r["memory"]["total_bytes"].get<uint64_t>());
  const std::string text = format_config(r);
  EXPECT_NE(text.find("# memory: about 201 MB of 4.00 GB (limits.max_memory); 2 workers"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("#   route_tables      101 MB  routes\n"), std::string::npos) << text;
  EXPECT_NE(text.find("#   packet_pool      79.0 MB  -\n"), std::string::npos) << text;
  EXPECT_NE(text.find(" 32767 mbufs, rings of 16384"), std::string::npos) << text;
  {
    json x = r;  // AF_XDP ports: their own pools are said
    x["memory"]["xdp_pools"] = 2;
    EXPECT_NE(format_config(x).find(" 32767 mbufs (+ 16383 per AF_XDP port), rings of"),
              std::string::npos)
        << format_config(x);
  }
  const auto yaml_at = text.find(r["yaml"].get<std::string>());
  ASSERT_NE(yaml_at, std::string::npos);
  for (const auto& l : lines(text.substr(0, yaml_at))) EXPECT_EQ(l.rfind("# ", 0), 0u) << l;
  r["memory"]["items"][0].erase("bytes");
  EXPECT_THROW(format_config(r), json::exception);
  r.erase("memory");
  EXPECT_EQ(format_config(r).find("memory"), std::string::npos);
}

TEST(ShowFormat, MissingFieldThrowsAJsonError) {
  json r = test::golden_json("show_ports.json");
  r["ports"][0].erase("load_bps");
  EXPECT_THROW(format_ports(r), json::exception);
  EXPECT_THROW(format_show("bogus", r), std::invalid_argument);
}

}  // namespace
}  // namespace rocelb
