// The daemon's own metrics are valid exposition text with HELP and TYPE for
// each; and the test's exposition reader refuses what Prometheus refuses.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "control/daemon/prometheus_text.h"
#include "prometheus_validator.h"

namespace rocelb {
namespace {

TEST(DaemonMetricsText, ValidWithHelpAndTypeForEveryMetric) {
  DaemonMetrics m;
  m.dataplane_connected = true;
  m.config_applies = 3;
  m.config_apply_failures = 1;
  m.config_reloads = 4;
  m.last_apply_success_unix_s = 1767225600.125;
  const std::string text = format_daemon_metrics(m);
  const auto p = test::parse_prometheus_text(text);
  ASSERT_TRUE(p.ok) << p.error << "\n" << text;
  const std::map<std::string, double> expected = {
      {"rocelb_daemon_up", 1},
      {"rocelb_daemon_dataplane_connected", 1},
      {"rocelb_daemon_config_applies_total", 3},
      {"rocelb_daemon_config_apply_failures_total", 1},
      {"rocelb_daemon_config_reloads_total", 4},
      {"rocelb_daemon_last_apply_success_timestamp_seconds", 1767225600.125}};
  EXPECT_EQ(p.samples, expected);
  for (const auto& [name, value] : expected) {
    EXPECT_TRUE(p.helps.count(name)) << name;
    ASSERT_TRUE(p.types.count(name)) << name;
    const bool total = name.ends_with("_total");
    EXPECT_EQ(p.types.at(name), total ? "counter" : "gauge") << name;
  }
  EXPECT_NE(text.find("\nrocelb_daemon_last_apply_success_timestamp_seconds 1767225600.125\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\nrocelb_daemon_config_applies_total 3\n"), std::string::npos) << text;
}

TEST(DaemonMetricsText, NeverAppliedIsZero) {
  const std::string text = format_daemon_metrics({});
  EXPECT_NE(text.find("\nrocelb_daemon_dataplane_connected 0\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nrocelb_daemon_last_apply_success_timestamp_seconds 0\n"),
            std::string::npos)
      << text;
  EXPECT_TRUE(test::parse_prometheus_text(text).ok);
}

// Prometheus' own linter finds nothing in the daemon's part of /metrics
// (names, units, _total on counters only).
TEST(DaemonMetricsText, PromtoolCheckMetricsFindsNothing) {
  DaemonMetrics m;
  m.config_applies = 2;
  m.last_apply_success_unix_s = 1767225600.5;
  const std::string path = testing::TempDir() + "rocelbd-metrics-" + std::to_string(getpid());
  std::ofstream(path) << format_daemon_metrics(m);
  const std::string cmd = "promtool check metrics < " + path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[512];
  while (size_t n = std::fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(out, "");
  std::remove(path.c_str());
}

TEST(PrometheusValidator, AcceptsTheFormat) {
  const std::string text =
      "# HELP a_total Some help with \\\\ and \\n escapes.\n"
      "# TYPE a_total counter\n"
      "a_total{port=\"0\",name=\"x \\\"y\\\" \\\\ \\n\"} 1\n"
      "a_total{port=\"1\"} 2.5e3 1767225600000\n"
      "\n"
      "# a plain comment\n"
      "b:c_ratio NaN\n"
      "d +Inf\n"
      "e -1.5\n"
      "# TYPE h histogram\n"
      "h_bucket{le=\"+Inf\"} 3\n"
      "h_sum 4\n"
      "h_count 3\n";
  const auto p = test::parse_prometheus_text(text);
  EXPECT_TRUE(p.ok) << p.error;
  EXPECT_EQ(p.samples.size(), 8u);
  EXPECT_EQ(p.samples.at("a_total{port=\"1\"}"), 2500);
}

TEST(PrometheusValidator, RefusesWhatIsNotTheFormat) {
  for (const char* bad : {
           "1abc 1\n",                                 // name starts with a digit
           "a-b 1\n",                                  // '-' in a name
           "a 1",                                      // no final newline
           "a one\n",                                  // value not a number
           "a 0x10\n",                                 // hex
           "a inf\n",                                  // lower-case inf
           "a 1 1.5\n",                                // timestamp not an integer
           "a 1 2 3\n",                                // trailing text
           "a{port=0} 1\n",                            // unquoted label value
           "a{port=\"0\" 1\n",                         // unterminated label set
           "a{port=\"\\t\"} 1\n",                      // bad escape
           "a{0port=\"0\"} 1\n",                       // bad label name
           "a{p=\"0\",p=\"1\"} 1\n",                   // label twice
           "a 1\na 2\n",                               // same series twice
           "# TYPE a counter\n# TYPE a gauge\na 1\n",  // second TYPE
           "# TYPE a sometype\na 1\n",                 // unknown type
           "a 1\n# TYPE a counter\n",                  // TYPE after samples
           "a{x=\"1\"} 1\nb 1\na{x=\"2\"} 1\n",        // family split in two groups
           "# HELP a x\n# HELP a y\na 1\n",            // second HELP
       }) {
    EXPECT_FALSE(test::parse_prometheus_text(bad).ok) << bad;
  }
}

}  // namespace
}  // namespace rocelb
