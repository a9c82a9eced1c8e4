// What a run shows besides its outputs, as a user runs it: `--timeline`,
// `--events` (with `--events-filter`), `--pcapng` and run.json, from replay
// and fabric. The figures must agree with what the switch counted and sent:
// the deepest a queue got in the timeline is its watermark, the bytes the
// timeline says a port sent add up to its tx_bytes, every dequeue event is a
// frame of the port's pcap at the same time, and tshark reads the pcapng
// with one annotation per frame.
#include <gtest/gtest.h>
#include <unistd.h>

#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "dataplane/wire/pcap_file.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using Json = nlohmann::json;
using test::bin;
using test::run_command;
using test::src;

struct TimelineRow {
  uint64_t t_ns;
  std::string sw;
  int port;
  int cls;  // -1: per port
  std::string metric;
  uint64_t value;
};

std::vector<TimelineRow> read_timeline(const fs::path& p) {
  std::ifstream f(p);
  std::string line;
  std::getline(f, line);
  EXPECT_EQ(line, "t_ns,switch,port,class,metric,value");
  std::vector<TimelineRow> rows;
  while (std::getline(f, line)) {
    std::stringstream ss(line);
    std::string t, sw, port, cls, metric, value;
    std::getline(ss, t, ',');
    std::getline(ss, sw, ',');
    std::getline(ss, port, ',');
    std::getline(ss, cls, ',');
    std::getline(ss, metric, ',');
    std::getline(ss, value, ',');
    rows.push_back({std::stoull(t), sw, std::stoi(port), cls.empty() ? -1 : std::stoi(cls), metric,
                    std::stoull(value)});
  }
  return rows;
}

std::vector<Json> read_events(const fs::path& p) {
  std::ifstream f(p);
  std::vector<Json> ev;
  std::string line;
  while (std::getline(f, line)) ev.push_back(Json::parse(line));
  return ev;
}

std::vector<uint64_t> pcap_times(const fs::path& p) {
  PcapReader r(p.string());
  std::vector<uint64_t> t;
  PcapRecord rec;
  while (r.next(rec)) t.push_back(rec.ts_ns);
  return t;
}

class ObserveCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-observe-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The scenario's pcaps as --in arguments.
  std::string generate(const std::string& scenario) {
    const fs::path in = dir_ / "in";
    const auto r =
        run_command(bin("tools/rocelb-gen") + " --scenario " +
                        src("configs/scenarios/" + scenario) + " --out-dir " + in.string(),
                    dir_);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::string args;
    for (const auto& e : fs::directory_iterator(in)) {
      const std::string stem = e.path().stem().string();  // port<N>
      args += " --in " + stem.substr(4) + "=" + e.path().string();
    }
    return args;
  }
  test::CommandResult replay(const std::string& args) {
    return run_command(bin("dataplane/rocelb-dp") + " replay --quiet " + args, dir_);
  }
  static Json read_json(const fs::path& p) { return Json::parse(test::read_file(p)); }

  fs::path dir_;
};

TEST_F(ObserveCli, TimelineAgreesWithTheCounters) {
  const fs::path out = dir_ / "out";
  const auto r = replay(generate("incast.yaml") + " --timeline 10us --out-dir " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json c = read_json(out / "counters.json");
  const Json run = read_json(out / "run.json");
  EXPECT_EQ(run["kind"], "replay");
  EXPECT_EQ(run["interval_ns"], 10'000);
  const uint64_t t0 = run["t0_ns"], end = run["end_ns"];
  const auto rows = read_timeline(out / "timeline.csv");
  ASSERT_FALSE(rows.empty());

  std::map<int, uint64_t> tx, rx;
  std::map<std::pair<int, int>, uint64_t> peak;
  std::set<uint64_t> times;
  uint64_t marks = 0, paused_rows = 0, xoff_rows = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row.sw, "leaf1");
    times.insert(row.t_ns);
    if (row.metric == "tx_bytes") tx[row.port] += row.value;
    if (row.metric == "rx_bytes") rx[row.port] += row.value;
    if (row.metric == "queue_peak_bytes")
      peak[{row.port, row.cls}] = std::max(peak[{row.port, row.cls}], row.value);
    if (row.metric == "ecn_marks") marks += row.value;
    if (row.metric == "pfc_xoff") xoff_rows += row.value;
    if (row.metric == "pfc_paused") paused_rows += row.value;
  }
  // Every interval boundary from the first to the last, then the run's end.
  std::vector<uint64_t> t(times.begin(), times.end());
  for (size_t i = 0; i + 1 < t.size(); ++i) EXPECT_EQ(t[i], t0 + (i + 1) * 10'000);
  EXPECT_EQ(t.back(), end);

  uint64_t ecn_counted = 0;
  for (const auto& p : c["ports"]) {
    const int id = p["id"];
    EXPECT_EQ(tx[id], p["tx_bytes"].get<uint64_t>()) << "port " << id;
    EXPECT_EQ(rx[id], p["rx_bytes"].get<uint64_t>()) << "port " << id;
    for (const auto& q : p["queues"]) {
      const int cls = q["tc"];
      EXPECT_EQ((peak[{id, cls}]), q["watermark_bytes"].get<uint64_t>())
          << "port " << id << " class " << cls;
      ecn_counted += q["wred_ecn_marked_packets"].get<uint64_t>();
    }
  }
  EXPECT_GT((peak[{3, 3}]), 1'000'000u);  // the incast queue built up
  EXPECT_EQ(marks, ecn_counted);
  EXPECT_GT(marks, 0u);
  EXPECT_GT(xoff_rows, 0u);  // ports 0-2 asserted XOFF for a while
}

TEST_F(ObserveCli, EventsAgreeWithThePcapsAndTheFilterKeepsOnePort) {
  const std::string in = generate("demo.yaml");
  const fs::path out = dir_ / "out";
  auto r =
      replay(in + " --events --set groups.uplinks.mode=flowlet_quality --out-dir " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json c = read_json(out / "counters.json");
  const auto ev = read_events(out / "events.jsonl");
  std::map<int, std::vector<uint64_t>> dequeued;
  std::map<std::string, uint64_t> kinds;
  uint64_t last = 0;
  for (const auto& e : ev) {
    const std::string k = e["ev"];
    ++kinds[k];
    EXPECT_GE(e["t_ns"].get<uint64_t>() + 1'000'000, last);  // roughly in time order
    last = std::max(last, e["t_ns"].get<uint64_t>());
    if (k == "dequeue") {
      dequeued[e["port"].get<int>()].push_back(e["t_ns"]);
      EXPECT_TRUE(e.contains("sojourn_ns"));
      EXPECT_TRUE(e.contains("qp"));
    }
    if (k == "lb") {
      EXPECT_EQ(e["mode"], "flowlet_quality");
    }
  }
  uint64_t rx = 0, tx = 0;
  for (const auto& p : c["ports"]) {
    const int id = p["id"];
    rx += p["rx_packets"].get<uint64_t>();
    tx += p["tx_packets"].get<uint64_t>();
    EXPECT_EQ(dequeued[id], pcap_times(out / ("port" + std::to_string(id) + ".pcap")))
        << "port " << id;
  }
  EXPECT_EQ(kinds["arrive"], rx);
  EXPECT_EQ(kinds["dequeue"], tx);
  EXPECT_EQ(kinds["enqueue"], tx);
  EXPECT_GT(kinds["lb"], 0u);

  const fs::path one = dir_ / "one";
  r = replay(in + " --events --events-filter port=5 --set groups.uplinks.mode=flowlet_quality " +
             "--out-dir " + one.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto filtered = read_events(one / "events.jsonl");
  ASSERT_FALSE(filtered.empty());
  for (const auto& e : filtered)
    EXPECT_TRUE(e["port"] == 5 || (e.contains("in_port") && e["in_port"] == 5)) << e.dump();
  EXPECT_EQ(std::count_if(filtered.begin(), filtered.end(),
                          [](const Json& e) { return e["ev"] == "dequeue"; }),
            static_cast<long>(dequeued[5].size()));
}

TEST_F(ObserveCli, PcapngCarriesWhatTheSwitchDidPerPacket) {
  const fs::path out = dir_ / "out";
  const auto r =
      replay(generate("demo.yaml") +
             " --pcapng --set groups.uplinks.mode=flowlet_quality --out-dir " + out.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(out / "port4.pcap"));
  ASSERT_TRUE(fs::exists(out / "port4.pcapng"));
  const Json c = read_json(out / "counters.json");
  const auto t = run_command("tshark -r " + (out / "port4.pcapng").string() +
                                 " -T fields -e frame.time_epoch -e frame.comment",
                             dir_);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  std::stringstream ss(t.out);
  std::string line;
  uint64_t frames = 0, flowlet = 0, band = 0;
  while (std::getline(ss, line)) {
    ++frames;
    EXPECT_NE(line.find("in port "), std::string::npos) << line;
    EXPECT_NE(line.find("out port 4 class 3, queue "), std::string::npos) << line;
    EXPECT_NE(line.find("sojourn"), std::string::npos) << line;
    EXPECT_NE(line.find("member "), std::string::npos) << line;
    flowlet += line.find("flowlet new") != std::string::npos;
    band += line.find(" by band ") != std::string::npos;
  }
  EXPECT_EQ(frames, c["ports"][4]["tx_packets"].get<uint64_t>());
  EXPECT_GT(flowlet, 0u);
  EXPECT_GT(band, 0u);
}

TEST_F(ObserveCli, SameInputsGiveTheSameEventsAndTimeline) {
  const std::string in = generate("incast.yaml");
  std::string files[2][2];
  for (int i = 0; i < 2; ++i) {
    const fs::path out = dir_ / ("out" + std::to_string(i));
    const auto r = replay(in + " --events --timeline 20us --out-dir " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    files[i][0] = test::read_file(out / "events.jsonl");
    files[i][1] = test::read_file(out / "timeline.csv");
  }
  EXPECT_FALSE(files[0][0].empty());
  EXPECT_TRUE(files[0][0] == files[1][0]);
  EXPECT_TRUE(files[0][1] == files[1][1]);
}

TEST_F(ObserveCli, BadRecordingOptionsAreRefusedAndWriteNothing) {
  const std::string in = generate("incast.yaml");
  const fs::path out = dir_ / "out";
  const std::pair<std::string, std::string> cases[] = {
      {"--timeline 0us", "--timeline 0us: must be > 0"},
      {"--timeline fast", "--timeline fast"},
      {"--events --events-filter colour=3", "\"colour\": unknown key"},
      {"--events --events-filter port=99", "\"port=99\": not a number from 0 to 63"},
      {"--events --events-filter src=10.0.0", "not an IPv4 or IPv6 address"},
      {"--events-filter port=1", "--events-filter needs --events"},
  };
  for (const auto& [args, message] : cases) {
    const auto r = replay(in + " " + args + " --out-dir " + out.string());
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(fs::exists(out)) << args;
  }
}

TEST_F(ObserveCli, FabricRunsRecordEverySwitch) {
  const fs::path out = dir_ / "out";
  const auto r = run_command(bin("dataplane/rocelb-dp") + " fabric --quiet --topology " +
                                 src("configs/fabrics/leaf_spine_2x2_8h.yaml") + " --workload " +
                                 src("configs/workloads/incast_7to1.yaml") +
                                 " --timeline 10us --events --events-filter class=3 --pcapng "
                                 "--capture spine0:0 --out-dir " +
                                 out.string(),
                             dir_);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Json run = read_json(out / "run.json");
  EXPECT_EQ(run["kind"], "fabric");
  ASSERT_EQ(run["switches"].size(), 4u);
  std::map<std::string, std::map<int, uint64_t>> tx;
  uint64_t nic_tx = 0, nic_cnps = 0;
  for (const auto& row : read_timeline(out / "timeline.csv")) {
    if (row.metric == "tx_bytes") tx[row.sw][row.port] += row.value;
    if (row.metric == "nic.tx_bytes") nic_tx += row.value;
    if (row.metric == "nic.cnps_received") nic_cnps += row.value;
  }
  const Json summary = read_json(out / "summary.json");
  EXPECT_EQ(nic_tx, summary["nics"]["tx_bytes"].get<uint64_t>());
  EXPECT_EQ(nic_cnps, summary["nics"]["cnps_received"].get<uint64_t>());
  for (const auto& s : run["switches"]) {
    const std::string name = s["name"];
    const Json c = read_json(out / (name + ".counters.json"));
    for (const auto& p : c["ports"])
      EXPECT_EQ(tx[name][p["id"].get<int>()], p["tx_bytes"].get<uint64_t>())
          << name << " port " << p["id"];
  }
  std::set<std::string> switches;
  for (const auto& e : read_events(out / "events.jsonl")) {
    switches.insert(e["switch"].get<std::string>());
    if (e.contains("class")) {
      EXPECT_EQ(e["class"], 3);
    }
  }
  EXPECT_GE(switches.size(), 2u);
  const auto t = run_command(
      "tshark -r " + (out / "capture-spine0-0.pcapng").string() + " -T fields -e frame.comment",
      dir_);
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("out port 0 class 3"), std::string::npos) << t.out.substr(0, 500);
}

TEST_F(ObserveCli, AnalyzerComparesTwoEnginesFromRealRuns) {
  const std::string in = generate("demo.yaml");
  std::string dirs;
  for (const char* mode : {"fixed", "drill"}) {
    const fs::path out = dir_ / mode;
    const auto r = replay(in + " --timeline 10us --events --set groups.uplinks.mode=" + mode +
                          " --out-dir " + out.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    dirs += ' ';
    dirs += out.string();
  }
  const fs::path page = dir_ / "cmp.html";
  const auto a = run_command(
      test::src("tools/rocelb-analyze") + dirs + " --table --out " + page.string(), dir_);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_NE(a.out.find("fixed "), std::string::npos) << a.out;
  EXPECT_NE(a.out.find("drill "), std::string::npos) << a.out;
  EXPECT_NE(a.out.rfind(page.string()), std::string::npos) << a.out;
  const std::string html = test::read_file(page);
  for (const char* id : {"plot-compare-imbalance", "plot-compare-sojourn", "plot-throughput-fixed",
                         "plot-queue-drill", "plot-sojourn-fixed", "plot-imbalance-drill"})
    EXPECT_NE(html.find("id=\"" + std::string(id) + '"'), std::string::npos) << id;
  // The analyzer's figures are the switch's: the same ECN marks as counters.json.
  const Json summary = read_json(dir_ / "cmp_data" / "summary.json");
  const Json counters = read_json(dir_ / "fixed" / "counters.json");
  uint64_t marks = 0;
  for (const auto& p : counters["ports"])
    for (const auto& q : p["queues"]) marks += q["wred_ecn_marked_packets"].get<uint64_t>();
  EXPECT_EQ(summary["runs"][0]["ecn_marks"].get<uint64_t>(), marks);
  EXPECT_EQ(summary["runs"][0]["reordering"]["reordered_packets"],
            counters["reordering"]["reordered_packets"]);
}

}  // namespace
}  // namespace rocelb
