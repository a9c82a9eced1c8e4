// The Prometheus rendering of a counters JSON: every line in the text
// exposition format, one HELP and TYPE per family, `_total` exactly on
// counters, base units, and the names a dashboard would look for.
#include "dataplane/record/counters_prometheus.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <utility>

#include "dataplane/forward/lcore_stats.h"

namespace rocelb {
namespace {

Json fixture() {
  // A real replay's counters.json (with drops, ECN marks and PFC frames).
  std::ifstream f(std::string(ROCELB_SOURCE_DIR) + "/tests/ctl/golden/show_counters.json");
  return Json::parse(f);
}

// The same with what a live run adds: two worker lcores (one has slept, the
// idle-sleep counters in ns) and the TSC rate.
Json live_fixture() {
  Json c = fixture();
  Json lcores = Json::array();
  for (uint64_t w = 0; w < 2; ++w) {
    Json l;
    l["worker"] = w;
    l["lcore"] = static_cast<int64_t>(w + 1);
    for (const LcoreCounterInfo& info : kLcoreCounters) l[std::string(info.name)] = 100 * w;
    l["sleeps"] = 7 * w;
    l["sleep_ns"] = w ? 1234567890123ull : 0ull;
    lcores.push_back(l);
  }
  c["lcores"] = lcores;
  c["tsc_hz"] = 2100000000ull;
  return c;
}

// Prometheus' linter on `text`: its output ("" when it finds nothing) and exit status.
std::pair<std::string, int> promtool(const std::string& text) {
  const std::string path = testing::TempDir() + "rocelb-metrics-" + std::to_string(getpid());
  {
    std::ofstream f(path);
    f << text;
  }
  const std::string cmd = "promtool check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return {"cannot run " + cmd, -1};
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  std::remove(path.c_str());
  return {out, status};
}

TEST(CountersPrometheus, EveryLineIsExpositionFormat) {
  const std::string text = counters_prometheus(fixture());
  const std::regex help(R"(# HELP ([a-zA-Z_:][a-zA-Z0-9_:]*) \S.*)");
  const std::regex type(R"(# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge))");
  const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*"(,[a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\.)*")*)\})? (-?[0-9]+(\.[0-9]+)?(e[+-]?[0-9]+)?))");
  std::map<std::string, std::string> types;
  std::set<std::string> helps, series;
  std::istringstream in(text);
  std::string line;
  size_t samples = 0;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, help)) {
      EXPECT_TRUE(helps.insert(m[1]).second) << "HELP twice: " << line;
    } else if (std::regex_match(line, m, type)) {
      EXPECT_TRUE(types.emplace(m[1], m[2]).second) << "TYPE twice: " << line;
      const bool total = std::string(m[1]).ends_with("_total");
      EXPECT_EQ(total, m[2] == "counter") << line;
    } else {
      ASSERT_TRUE(std::regex_match(line, m, sample)) << "not exposition format: " << line;
      EXPECT_TRUE(types.count(m[1])) << "sample before its TYPE: " << line;
      const std::string key = line.substr(0, line.rfind(' '));
      EXPECT_TRUE(series.insert(key).second) << "series twice: " << key;
      ++samples;
    }
  }
  EXPECT_EQ(helps.size(), types.size());
  EXPECT_GT(samples, 1000u);
}

TEST(CountersPrometheus, NamesUnitsAndLabels) {
  const std::string text = counters_prometheus(fixture());
  for (const char* want : {
           "rocelb_port_info{port=\"0\",name=\"host0\"} 1\n",
           "rocelb_port_rx_packets_total{port=\"0\"} ",
           "rocelb_port_dropped_packets_total{port=\"3\",reason=\"queue_full\"} ",
           "rocelb_queue_depth_bytes{port=\"3\",queue=\"3\"} ",
           "rocelb_queue_wred_ecn_marked_packets_total{port=\"3\",queue=\"3\"} ",
           "rocelb_pfc_tx_frames_total{port=\"0\",priority=\"3\"} 2\n",
           "rocelb_pfc_rx_pause_seconds_total{port=\"0\",priority=\"3\"} 0.000000\n",
           "rocelb_pfc_xoff_asserted_seconds_total{port=\"0\",priority=\"3\"} ",
           "rocelb_pfc_watchdog_storm{port=\"0\",queue=\"3\"} 0\n",
           "rocelb_group_decisions_total{group=\"uplinks\"} ",
           "rocelb_group_member_bytes_total{group=\"uplinks\",member=\"10.1.4.2\",port=\"4\"} ",
           "rocelb_conserved 1\n",
       })
    EXPECT_NE(text.find(want), std::string::npos) << want;
  EXPECT_EQ(text.find("_us"), std::string::npos);      // seconds, not microseconds
  EXPECT_EQ(text.find("pfc_pfc"), std::string::npos);  // the scope once
}

TEST(CountersPrometheus, LabelValuesAreEscaped) {
  Json c = fixture();
  c["ports"][0]["name"] = "a\"b\\c\nd";
  const std::string text = counters_prometheus(c);
  EXPECT_NE(text.find("rocelb_port_info{port=\"0\",name=\"a\\\"b\\\\c\\nd\"} 1\n"),
            std::string::npos);
}

// Prometheus' own linter accepts the text: exposition format, naming
// conventions, base units (tools/setup installs promtool).
TEST(CountersPrometheus, PromtoolCheckMetricsFindsNothing) {
  const auto [out, status] = promtool(counters_prometheus(fixture()));
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "");
}

// A live switch's text has the worker lcores: their idle-sleep time is in
// ns in counters.json and in seconds here (promtool refused
// rocelb_lcore_sleep_ns_total: "metric names should not contain abbreviated
// units"), exact to the nanosecond, with a help text that says seconds.
TEST(CountersPrometheus, LcoreCountersInBaseUnits) {
  const std::string text = counters_prometheus(live_fixture());
  EXPECT_NE(text.find("rocelb_lcore_sleep_seconds_total{worker=\"1\",lcore=\"2\"} "
                      "1234.567890123\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocelb_lcore_sleep_seconds_total{worker=\"0\",lcore=\"1\"} 0.000000000\n"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP rocelb_lcore_sleep_seconds_total seconds the worker slept"),
            std::string::npos);
  EXPECT_NE(text.find("rocelb_lcore_sleeps_total{worker=\"1\",lcore=\"2\"} 7\n"),
            std::string::npos);
  EXPECT_NE(text.find("rocelb_lcore_busy_cycles_total{worker=\"1\",lcore=\"2\"} 100\n"),
            std::string::npos);
  // No name keeps a unit promtool calls abbreviated.
  for (const char* unit : {"_ns", "_us", "_ms"}) {
    EXPECT_EQ(text.find(std::string(unit) + "_total"), std::string::npos) << unit;
    EXPECT_EQ(text.find(std::string(unit) + "{"), std::string::npos) << unit;
  }
  const auto [out, status] = promtool(text);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "");
}

// What `show metrics` serves on a fabric-live switch: the counters with
// lcores, the control socket's figures and AF_XDP ports' steering counters,
// one text: promtool accepts it whole (names unique across the parts).
TEST(CountersPrometheus, WholeLiveTextWithXdpPassesPromtool) {
  ControlMetrics m;
  m.limits.client_timeout_ns = 5'000'000'000;
  m.limits.idle_timeout_ns = 30'000'000'000;
  Json ports = Json::array();
  for (uint64_t id : {0u, 4u}) {
    auto pb = [](uint64_t n) { return Json{{"packets", n}, {"bytes", n * 1000}}; };
    Json x;
    x["to_switch"] = {{"rocev2", pb(40)},  {"rocev1", pb(0)},      {"mac_ctrl", pb(1)},
                      {"neighbor", pb(2)}, {"own_address", pb(3)}, {"all", pb(0)}};
    x["to_kernel"] = pb(8);
    x["no_socket"] = pb(0);
    ports.push_back({{"id", id}, {"xdp", x}});
  }
  const std::string text =
      counters_prometheus(live_fixture()) + control_prometheus(m) + xdp_prometheus(ports);
  EXPECT_NE(text.find("rocelb_port_xdp_frames_total{port=\"4\",to=\"switch\",reason=\"rocev2\"} "
                      "40\n"),
            std::string::npos);
  const auto [out, status] = promtool(text);
  EXPECT_EQ(status, 0) << out;
  EXPECT_EQ(out, "");
}

// The microsecond PFC counters: seconds, exact to the microsecond.
TEST(CountersPrometheus, PfcMicrosecondsAsSeconds) {
  Json c = fixture();
  c["ports"][0]["pfc"]["xoff_asserted_us"][3] = 13870;
  c["ports"][0]["pfc"]["pfc_rx_pause_us"][3] = 2000001;
  const std::string text = counters_prometheus(c);
  EXPECT_NE(text.find("rocelb_pfc_xoff_asserted_seconds_total{port=\"0\",priority=\"3\"} "
                      "0.013870\n"),
            std::string::npos);
  EXPECT_NE(text.find("rocelb_pfc_rx_pause_seconds_total{port=\"0\",priority=\"3\"} "
                      "2.000001\n"),
            std::string::npos);
  EXPECT_NE(text.find("# HELP rocelb_pfc_rx_pause_seconds_total seconds this priority"),
            std::string::npos);
}

}  // namespace
}  // namespace rocelb
