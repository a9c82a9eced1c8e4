// docs/reference/counters.md as rocelb-docgen renders it: every row of every
// counter table is on it, each Prometheus name is the one the exporter
// writes, and every family the exporters write is on it.
#include "tools/docgen/counters_page.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "dataplane/forward/counters.h"
#include "dataplane/forward/lcore_stats.h"
#include "dataplane/record/counters_prometheus.h"
#include "dataplane/sim/roce_nic.h"
#include "lb/lb_counters.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"
#include "pfc/pfc_watchdog.h"
#include "pfc/wred.h"

namespace rocelb {
namespace {

const std::string& page() {
  static const std::string p = counters_page();
  return p;
}

bool has_row(std::string_view name) {
  return page().find("| `" + std::string(name) + "` |") != std::string::npos;
}

TEST(CountersPage, ListsEveryCounterOfEveryTable) {
  for (const CounterInfo& i : kPortCounterInfo) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (int k = 1; k < kNumDropReasons; ++k)
    EXPECT_TRUE(has_row(kDropInfo[k].name)) << kDropInfo[k].name;
  for (const QueueCounterInfo& i : kQueueCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const QueueGaugeInfo& i : kQueueGauges) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const WredCounterInfo& i : kWredCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const PfcRxCounterInfo& i : kPfcRxCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const PfcTxCounterInfo& i : kPfcTxCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const PfcWatchdogCounterInfo& i : kPfcWatchdogCounters)
    EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const LbCounterInfo& i : kLbCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const MemberCounterInfo& i : kMemberCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const LcoreCounterInfo& i : kLcoreCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  for (const NicCounterInfo& i : kNicCounters) EXPECT_TRUE(has_row(i.name)) << i.name;
  // The parser's verdict for a good frame is not a drop.
  EXPECT_FALSE(has_row(kDropInfo[0].name));
}

// Names the README and dashboards use, with the exporter's unit rules:
// `_total` on counters, _ns and _us kept in seconds, gauges without.
TEST(CountersPage, NamesThePrometheusMetricOfEachCounter) {
  for (const char* row : {
           "| `queue_full` | `rocelb_port_dropped_packets_total{port,reason=\"queue_full\"}` |",
           "| `parse_eth_truncated` | "
           "`rocelb_port_dropped_packets_total{port,reason=\"parse_eth_truncated\"}` |",
           "| `rx_packets` | `rocelb_port_rx_packets_total{port}` |",
           "| `pfc_tx_frames` | `rocelb_pfc_tx_frames_total{port,priority}` |",
           "| `pfc_rx_pause_us` | `rocelb_pfc_rx_pause_seconds_total{port,priority}` |",
           "| `sleep_ns` | `rocelb_lcore_sleep_seconds_total{worker,lcore}` |",
           "| `depth_bytes` | `rocelb_queue_depth_bytes{port,queue}` (gauge) |",
           "| `storm` | `rocelb_pfc_watchdog_storm{port,queue}` (gauge) |",
           "| `packets` | `rocelb_group_member_packets_total{group,member,port}` |",
           "| `decisions` | `rocelb_group_decisions_total{group}` |",
           "| `tx_frames` | frames sent: data, ACK/NAK, CNP |",  // the NICs: not exported
       })
    EXPECT_NE(page().find(row), std::string::npos) << row;
}

// Every family of a real replay's metrics (and of the control socket's and
// the XDP programs') is on the page, counter rows and others together.
TEST(CountersPage, ListsEveryFamilyTheExportersWrite) {
  std::ifstream f(std::string(ROCELB_SOURCE_DIR) + "/tests/ctl/golden/show_counters.json");
  ASSERT_TRUE(f) << "tests/ctl/golden/show_counters.json";
  const std::string text = counters_prometheus(Json::parse(f)) +
                           control_prometheus(ControlMetrics{}) + xdp_prometheus(Json::array());
  std::istringstream in(text);
  int families = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    const std::string name = line.substr(7, line.find(' ', 7) - 7);
    ++families;
    EXPECT_TRUE(page().find("`" + name + "`") != std::string::npos ||
                page().find("`" + name + "{") != std::string::npos)
        << name;
  }
  EXPECT_GT(families, 50);
}

TEST(CountersPage, HelpTextsAreTheTables) {
  EXPECT_NE(
      page().find("| `no_route` | `rocelb_port_dropped_packets_total{port,reason=\"no_route\"}` | "
                  "no route matches the destination |"),
      std::string::npos);
  // Markdown table cells: a "<n>" in a help text is not HTML.
  EXPECT_NE(page().find("SAI_PORT_STAT_PFC_&lt;n&gt;_RX_PKTS"), std::string::npos);
}

}  // namespace
}  // namespace rocelb
