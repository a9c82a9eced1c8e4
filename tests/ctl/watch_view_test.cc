// The `watch` screen (tools/ctl/watch_view.h): rates from two samples of
// the documented show results, one second of switch time apart.
#include "tools/ctl/watch_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "golden.h"

namespace rocelb {
namespace {

using nlohmann::json;

constexpr uint64_t kSecond = 1'000'000'000;

WatchSample fixture() {
  return {test::golden_json("show_ports.json"), test::golden_json("show_queues.json"),
          test::golden_json("show_pfc.json"), test::golden_json("show_groups.json")};
}

// The sample `seconds` later.
WatchSample later(WatchSample s, double seconds) {
  const auto dt = static_cast<uint64_t>(seconds * kSecond);
  for (json* r : {&s.ports, &s.queues, &s.pfc, &s.groups})
    (*r)["time_ns"] = (*r)["time_ns"].get<uint64_t>() + dt;
  return s;
}

void add(json& j, const char* key, uint64_t v) {
  j[key] = j[key].get<uint64_t>() + v;
}

// The line of `section` (the text from its first occurrence on) that
// contains `needle`.
std::string line_with(const std::string& text, const std::string& section,
                      const std::string& needle) {
  std::istringstream in(text.substr(text.find(section)));
  for (std::string l; std::getline(in, l);)
    if (l.find(needle) != std::string::npos) return l;
  return "(no line with \"" + needle + "\" after \"" + section + "\")";
}

TEST(WatchView, FirstScreenHasNoRates) {
  const WatchSample s = fixture();
  const std::string text = render_watch(nullptr, s);
  EXPECT_EQ(text.rfind("rocelb watch: first sample, rates from the next refresh\n", 0), 0u);
  const std::string row = line_with(text, "port", "host0");
  EXPECT_NE(row.find("   -"), std::string::npos) << row;
  EXPECT_EQ(row.find("pps"), std::string::npos) << row;
}

TEST(WatchView, PortRatesArePacketsAndBitsPerSecond) {
  const WatchSample prev = fixture();
  WatchSample cur = later(prev, 2.0);
  json& host0 = cur.ports["ports"][0];
  add(host0, "rx_packets", 2'000'000);            // 1 Mpps
  add(host0, "rx_bytes", 2'000'000ull * 1082);    // 8.656 Gb/s
  add(host0, "tx_packets", 5'000);                // 2.5 Kpps
  add(host0, "tx_bytes", 5'000ull * 78);          // 1.56 Mb/s
  add(cur.ports["ports"][3], "drops_total", 20);  // 10 drops/s
  const std::string text = render_watch(&prev, cur);
  EXPECT_EQ(text.rfind("rocelb watch: rates over the last 2.00 s\n", 0), 0u) << text;
  const std::string row = line_with(text, "port", "host0");
  EXPECT_NE(row.find("1.00 Mpps  8.66 Gb/s  2.50 Kpps  1.56 Mb/s"), std::string::npos) << row;
  EXPECT_NE(line_with(text, "port", "host3").find(" 10 "), std::string::npos) << text;
  // Ports with nothing new: zero rates, not "-".
  const std::string idle = line_with(text, "port", "spine0");
  EXPECT_NE(idle.find("  0 pps      0 b/s      0 pps      0 b/s        0"), std::string::npos)
      << idle;
}

TEST(WatchView, ACounterThatWentDownCountsFromZero) {
  WatchSample prev = fixture();
  WatchSample cur = later(prev, 1.0);
  cur.ports["ports"][0]["rx_packets"] = 500;  // counters cleared in between
  cur.ports["ports"][0]["rx_bytes"] = 500 * 1000;
  const std::string row = line_with(render_watch(&prev, cur), "port", "host0");
  EXPECT_NE(row.find("500 pps  4.00 Mb/s"), std::string::npos) << row;
}

TEST(WatchView, NoRatesWhenTheClockDidNotAdvance) {
  const WatchSample prev = fixture();
  const std::string text = render_watch(&prev, prev);
  EXPECT_EQ(text.rfind("rocelb watch: first sample", 0), 0u) << text;
}

TEST(WatchView, QueuesShowOnlyThoseHoldingPacketsOrPaused) {
  const WatchSample prev = fixture();
  WatchSample cur = later(prev, 1.0);
  add(cur.queues["queues"][6 * 8 + 3], "enqueued_packets", 100'000);
  add(cur.queues["queues"][6 * 8 + 3], "dropped_packets", 7);
  const std::string text = render_watch(&prev, cur);
  const std::string section = text.substr(text.find("queues holding packets:"));
  const std::string queues = section.substr(0, section.find("\n\n"));
  // spine1 tc3 (12 packets) and spine2 tc3 (paused, 1141 packets), nothing else.
  EXPECT_EQ(std::count(queues.begin(), queues.end(), '\n'), 3) << queues;
  const std::string row = line_with(queues, "port", "spine2");
  EXPECT_NE(row.find("paused  1.23 MB  1141"), std::string::npos) << row;
  EXPECT_NE(row.find("100 Kpps        7"), std::string::npos) << row;
  WatchSample idle = cur;
  for (auto& q : idle.queues["queues"]) {
    q["depth_bytes"] = 0;
    q["depth_packets"] = 0;
    q["paused"] = false;
  }
  EXPECT_NE(render_watch(&prev, idle).find("queues: all empty\n"), std::string::npos);
}

TEST(WatchView, PfcShowsStateAndPauseFrameRates) {
  const WatchSample prev = fixture();
  WatchSample cur = later(prev, 0.5);
  add(cur.pfc["ports"][6]["priorities"][3], "rx_frames", 150);  // 300/s
  add(cur.pfc["ports"][2]["priorities"][1], "tx_frames", 1);    // lossy, but sending: shown
  const std::string text = render_watch(&prev, cur);
  const std::string pfc = text.substr(text.find("PFC:\n"));
  EXPECT_NE(line_with(pfc, "PFC", "spine2").find("paused         300"), std::string::npos) << pfc;
  EXPECT_NE(line_with(pfc, "PFC", "host0").find("asserted"), std::string::npos) << pfc;
  EXPECT_NE(line_with(pfc, "PFC", "lossy").find("host2      1  lossy"), std::string::npos) << pfc;
}

TEST(WatchView, MemberSharesOverTheIntervalAndSinceStart) {
  const WatchSample prev = fixture();
  WatchSample cur = later(prev, 1.0);
  json& members = cur.groups["groups"][0]["members"];
  add(members[0], "bytes", 3'000'000);
  add(members[0], "packets", 3'000);
  add(members[2], "bytes", 1'000'000);
  add(members[2], "packets", 1'000);
  add(cur.groups["groups"][0], "decisions", 4'000);
  const std::string text = render_watch(&prev, cur);
  EXPECT_NE(text.find("group uplinks (flowlet_quality): 4000 decisions/s\n"), std::string::npos)
      << text;
  const std::string m0 = line_with(text, "group uplinks", "10.1.4.2");
  EXPECT_NE(m0.find("3.00 Kpps  24.0 Mb/s  75.00%       25.71%"), std::string::npos) << m0;
  const std::string m1 = line_with(text, "group uplinks", "10.1.5.2");
  EXPECT_NE(m1.find("0 pps      0 b/s   0.00%"), std::string::npos) << m1;
  const std::string m2 = line_with(text, "group uplinks", "10.1.6.2");
  EXPECT_NE(m2.find("25.00%"), std::string::npos) << m2;
  // A group whose members moved nothing: no interval share.
  EXPECT_NE(line_with(text, "group storage", "10.1.4.2").find("  -  "), std::string::npos) << text;
}

}  // namespace
}  // namespace rocelb
