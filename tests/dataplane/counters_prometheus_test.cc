// The Prometheus rendering of a counters JSON: every line in the text
// exposition format, one HELP and TYPE per family, `_total` exactly on
// counters, base units, and the names a dashboard would look for.
#include "dataplane/mgmt/counters_prometheus.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace rocelb {
namespace {

Json fixture() {
  // A real replay's counters.json (with drops, ECN marks and PFC frames).
  std::ifstream f(std::string(ROCELB_SOURCE_DIR) + "/tests/ctl/golden/show_counters.json");
  return Json::parse(f);
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
  const std::string path = testing::TempDir() + "rocelb-metrics.txt";
  {
    std::ofstream f(path);
    f << counters_prometheus(fixture());
  }
  const std::string cmd = "promtool check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  EXPECT_EQ(status, 0) << cmd << ":\n" << out;
  EXPECT_EQ(out, "") << cmd;
  std::remove(path.c_str());
}

}  // namespace
}  // namespace rocelb
