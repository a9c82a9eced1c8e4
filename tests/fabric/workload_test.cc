// Workload files: explicit flows, Poisson arrivals (counts, load, pairs,
// determinism), incast and all_to_all expansion, the shipped examples, and
// one error line per rule naming the file, the key path and the rule.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <unistd.h>

#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/poisson_arrivals.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

// 2 leaves x 4 hosts at 100G (h0..h3 on leaf0, h4..h7 on leaf1).
const Topology& fabric() {
  static const Topology t = load_topology_text(
      "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
      "link_delay: 1us\n",
      "f.yaml", ".");
  return t;
}

const Topology& one_leaf() {
  static const Topology t = load_topology_text(
      "leaves: 1\nspines: 1\nhosts_per_leaf: 4\nhost_speed: 25G\nuplink_speed: 100G\n"
      "link_delay: 1us\n",
      "one.yaml", ".");
  return t;
}

Workload load(const std::string& text, uint64_t seed = 1, const Topology& t = fabric(),
              const std::string& base_dir = ".") {
  return load_workload_text(text, "w.yaml", base_dir, t, seed);
}

std::string error_of(const std::string& text, const Topology& t = fabric()) {
  try {
    load(text, 1, t);
  } catch (const WorkloadError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;  // one line
    return msg;
  }
  return "(loaded)";
}

bool same(const std::vector<FabricFlow>& a, const std::vector<FabricFlow>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].id != b[i].id || a[i].src != b[i].src || a[i].dst != b[i].dst ||
        a[i].size_bytes != b[i].size_bytes || a[i].start_ns != b[i].start_ns ||
        a[i].phase != b[i].phase)
      return false;
  return true;
}

// ---- explicit flows ----

TEST(Workload, ExplicitFlowsParseSizesTimesAndOptionalFields) {
  const Workload w = load(
      "flows:\n"
      "  - {src: h0, dst: h4, size: 1MB, start: 10us, qp: 0x11, sport: 49152, dscp: 26}\n"
      "  - {src: h1, dst: h5, size: 512KiB}\n"
      "  - {src: h2, dst: h3, size: 1500, start: 1.5us}\n"
      "  - {src: h7, dst: h0, size: 4MB, start: 0}\n");
  EXPECT_EQ(w.kind, "flows");
  EXPECT_EQ(w.source, "w.yaml");
  ASSERT_EQ(w.flows.size(), 4u);
  // Sorted by start; the two at 0 keep file order.
  const FabricFlow& a = w.flows[0];
  EXPECT_EQ(a.id, 0u);
  EXPECT_EQ(a.src, 1u);
  EXPECT_EQ(a.dst, 5u);
  EXPECT_EQ(a.size_bytes, 512u * 1024);
  EXPECT_EQ(a.start_ns, 0u);
  EXPECT_FALSE(a.qp);
  EXPECT_FALSE(a.sport);
  EXPECT_FALSE(a.dscp);
  EXPECT_EQ(w.flows[1].src, 7u);
  EXPECT_EQ(w.flows[1].dst, 0u);
  EXPECT_EQ(w.flows[1].size_bytes, 4'000'000u);
  EXPECT_EQ(w.flows[2].start_ns, 1500u);
  EXPECT_EQ(w.flows[2].size_bytes, 1500u);
  const FabricFlow& d = w.flows[3];
  EXPECT_EQ(d.id, 3u);
  EXPECT_EQ(d.src, 0u);
  EXPECT_EQ(d.dst, 4u);
  EXPECT_EQ(d.size_bytes, 1'000'000u);
  EXPECT_EQ(d.start_ns, 10'000u);
  EXPECT_EQ(d.qp, 0x11u);
  EXPECT_EQ(d.sport, 49152u);
  EXPECT_EQ(d.dscp, 26u);
  EXPECT_EQ(w.phases, 1u);
  EXPECT_EQ(w.description, "flows: 4 explicit, 5525788B in all");
}

TEST(Workload, ExplicitFlowErrorsNameTheFileKeyPathAndRule) {
  const std::string ok = "  - {src: h0, dst: h4, size: 1MB}\n";
  EXPECT_EQ(error_of("flows:\n" + ok + "  - {src: h1, dst: h99, size: 1MB}\n"),
            "w.yaml: flows[1].dst: \"h99\" is not a host of the topology (h0..h7)");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h1, size: 1MB}\n"),
            "w.yaml: flows[0].dst: \"h1\": dst must differ from src");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 0}\n"),
            "w.yaml: flows[0].size: 0: must be a byte size 1B .. 2GiB");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 12XB}\n"),
            "w.yaml: flows[0].size: \"12XB\": not a byte size (expected e.g. 4MB, 1.5MB, 512KiB "
            "or an integer in bytes)");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1MB, start: 5}\n"),
            "w.yaml: flows[0].start: 5: not a duration (expected a number with unit ns, us, ms "
            "or s, e.g. 256us)");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1MB, colour: red}\n"),
            "w.yaml: flows[0].colour: unknown key (known: src, dst, size, start, qp, sport, dscp)");
  EXPECT_EQ(error_of("flows:\n" + ok + "  - {src: h1, dst: h2}\n"),
            "w.yaml: flows[1]: missing required key \"size\"");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, src: h2, dst: h3, size: 1}\n"),
            "w.yaml:2:15: flows[0].src: duplicate key");
  EXPECT_EQ(error_of("flows: {src: h1}\n"), "w.yaml: flows: expected a list, found a map");
  EXPECT_EQ(error_of("flows: []\n"), "w.yaml: flows: empty: list at least one flow");
  EXPECT_EQ(error_of("flows:\n  - h1\n"), "w.yaml: flows[0]: \"h1\": expected a map");
  EXPECT_EQ(error_of("flows:\n  - {src: [h1], dst: h2, size: 1}\n"),
            "w.yaml: flows[0].src: expected a host name, found a list");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1, qp: 0x1000000}\n"),
            "w.yaml: flows[0].qp: 0x1000000: must be an integer 0..16777215");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1, sport: 0}\n"),
            "w.yaml: flows[0].sport: 0: must be an integer 1..65535");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1, dscp: 64}\n"),
            "w.yaml: flows[0].dscp: 64: must be an integer 0..63");
  EXPECT_EQ(error_of("flows:\n  - {src: h1, dst: h2, size: 1, dscp: -1}\n"),
            "w.yaml: flows[0].dscp: -1: must be an integer 0..63");
  EXPECT_EQ(error_of("flows:\n" + ok + "seed: 5\n"), "w.yaml: seed: unknown key (known: flows)");
}

TEST(Workload, AFileIsAMapOfKnownFormsAndYamlErrorsGiveTheLine) {
  EXPECT_EQ(error_of("- {src: h0, dst: h4, size: 1MB}\n"),
            "w.yaml: a workload file is a map: a top-level \"flows\" list, or \"type\" (poisson, "
            "incast or all_to_all) and its keys (found a list)");
  EXPECT_EQ(error_of(""),
            "w.yaml: a workload file is a map: a top-level \"flows\" list, or \"type\" (poisson, "
            "incast or all_to_all) and its keys (found null)");
  EXPECT_EQ(error_of("cdf: WebSearch\nload: 0.5\n"),
            "w.yaml: missing required key \"type\" (poisson, incast or all_to_all), or a "
            "top-level \"flows\" list");
  EXPECT_EQ(error_of("type: mesh\n"),
            "w.yaml: type: \"mesh\": must be one of poisson, incast, all_to_all");
  EXPECT_EQ(error_of("type: [poisson]\n"),
            "w.yaml: type: expected one of poisson, incast, all_to_all, found a list");
  EXPECT_EQ(error_of("flows: [{src: h0, dst: h4, size: 1}]\n---\ntype: incast\n"),
            "w.yaml: expected one YAML document, found more (separated by ---)");
  const std::string syntax = error_of("flows:\n  - {src: h0, dst: h4\n  - {src: h1}\n");
  EXPECT_EQ(syntax.rfind("w.yaml:3:", 0), 0u) << syntax;
  EXPECT_NE(syntax.find(": invalid YAML: "), std::string::npos) << syntax;
  try {
    load_workload_file("/nonexistent/w.yaml", fabric(), 1);
    ADD_FAILURE() << "loaded";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot read workload file \"/nonexistent/w.yaml\": No such file or directory");
  }
}

// ---- poisson ----

TEST(Workload, PoissonFlowCountIsWithinThreeSigmaOfTheRate) {
  const Workload w = load("type: poisson\ncdf: AliStorage2019\nload: 0.5\nduration: 20ms\n");
  const double mean = FlowSizeCdf::named("AliStorage2019")->mean_bytes();
  EXPECT_DOUBLE_EQ(w.cdf_mean_bytes, mean);
  // lambda = 100e9 * 0.5 / (8 * mean) flows/s per host, 8 hosts, 20 ms.
  const double expected = 100e9 * 0.5 / (8 * mean) * 0.020 * 8;
  EXPECT_NEAR(double(w.flows.size()), expected, 3 * std::sqrt(expected));
  EXPECT_GT(w.flows.size(), 10'000u);  // about 12,200
  EXPECT_EQ(w.kind, "poisson");
  EXPECT_EQ(w.duration_ns, 20'000'000u);
  EXPECT_EQ(w.description, "poisson AliStorage2019 load 0.5 of each host over 20ms, inter_leaf, " +
                               std::to_string(w.flows.size()) + " flows");
  // Each host's own count is Poisson too.
  std::vector<double> per_host(8);
  for (const FabricFlow& f : w.flows) per_host[f.src] += 1;
  for (double n : per_host) EXPECT_NEAR(n, expected / 8, 4 * std::sqrt(expected / 8));
}

// The test fabric is 2:1 oversubscribed (4 hosts × 100G over 2 × 100G
// uplinks per leaf): a network load of 0.5 is a host load of 0.25.
TEST(Workload, NetworkLoadIsTheHostLoadDividedByTheOversubscription) {
  const Workload w =
      load("type: poisson\ncdf: AliStorage2019\nload: 0.5\nload_of: network\nduration: 20ms\n");
  EXPECT_DOUBLE_EQ(w.load, 0.25);
  const double expected = 100e9 * 0.25 / (8 * w.cdf_mean_bytes) * 0.020 * 8;
  EXPECT_NEAR(double(w.flows.size()), expected, 3 * std::sqrt(expected));
  EXPECT_NE(w.description.find("(network load 0.5)"), std::string::npos) << w.description;
  EXPECT_EQ(error_of("type: poisson\ncdf: WebSearch\nload: 0.5\nload_of: core\nduration: 1ms\n"),
            "w.yaml: load_of: \"core\": must be one of hosts, network");
}

TEST(Workload, PoissonCountsOverManySeedsHaveThePoissonMeanAndSpread) {
  // websearch_80 on the test fabric: about 467 flows per run.
  const std::string text = "type: poisson\ncdf: WebSearch\nload: 0.8\nduration: 10ms\n";
  constexpr int kRuns = 300;
  double sum = 0, sum2 = 0, expected = 0;
  for (int seed = 1; seed <= kRuns; ++seed) {
    const Workload w = load(text, uint64_t(seed));
    expected = 100e9 * 0.8 / (8 * w.cdf_mean_bytes) * 0.010 * 8;
    sum += double(w.flows.size());
    sum2 += double(w.flows.size()) * double(w.flows.size());
  }
  const double mean = sum / kRuns, sd = std::sqrt(sum2 / kRuns - mean * mean);
  // A Poisson count's variance is its mean: the mean within 4 standard
  // errors, the spread within 15 % (the sample sd's error is about 4 %).
  EXPECT_NEAR(mean, expected, 4 * std::sqrt(expected / kRuns));
  EXPECT_NEAR(sd, std::sqrt(expected), 0.15 * std::sqrt(expected));
}

TEST(Workload, PoissonAchievesTheRequestedLoadOverALongRun) {
  struct Case {
    const char* cdf;
    const char* load;
    double want;
    const char* duration;
    double seconds;
  };
  // Long enough that the size sum's standard error is about 1 %.
  for (const Case& c : {Case{"AliStorage2019", "0.5", 0.5, "250ms", 0.25},
                        Case{"AliStorage2019", "80%", 0.8, "150ms", 0.15},
                        Case{"WebSearch", "0.5", 0.5, "2s", 2.0}}) {
    SCOPED_TRACE(std::string(c.cdf) + " " + c.load);
    const Workload w = load(std::string("type: poisson\ncdf: ") + c.cdf + "\nload: \"" + c.load +
                            "\"\nduration: " + c.duration + "\n");
    double bytes = 0;
    for (const FabricFlow& f : w.flows) bytes += double(f.size_bytes);
    const double achieved = bytes * 8 / (c.seconds * 8 * 100e9);
    EXPECT_NEAR(achieved, c.want, c.want * 0.05);
    EXPECT_DOUBLE_EQ(w.load, c.want);
  }
}

TEST(Workload, PoissonFlowsAreSortedInsideTheDurationBetweenAllowedPairs) {
  const Workload w = load("type: poisson\ncdf: GoogleRPC2008\nload: 0.3\nduration: 1ms\n");
  ASSERT_FALSE(w.flows.empty());
  std::set<uint32_t> sources;
  for (size_t i = 0; i < w.flows.size(); ++i) {
    const FabricFlow& f = w.flows[i];
    EXPECT_EQ(f.id, i);
    EXPECT_LT(f.start_ns, 1'000'000u);
    EXPECT_GE(f.size_bytes, 1u);
    EXPECT_NE(fabric().hosts[f.src].sw, fabric().hosts[f.dst].sw) << i;  // inter_leaf
    if (i) {
      EXPECT_LE(w.flows[i - 1].start_ns, f.start_ns);
    }
    sources.insert(f.src);
  }
  EXPECT_EQ(sources.size(), 8u);
  // pairs: any draws leaf mates too, never the source itself.
  const Workload any =
      load("type: poisson\ncdf: GoogleRPC2008\nload: 0.3\nduration: 1ms\npairs: any\n");
  size_t same_leaf = 0;
  for (const FabricFlow& f : any.flows) {
    EXPECT_NE(f.src, f.dst);
    same_leaf += fabric().hosts[f.src].sw == fabric().hosts[f.dst].sw;
  }
  // 3 of each host's 7 destinations share its leaf.
  EXPECT_NEAR(double(same_leaf) / double(any.flows.size()), 3.0 / 7, 0.02);
  EXPECT_EQ(poisson_destinations(fabric(), 5, true), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(poisson_destinations(fabric(), 5, false), (std::vector<uint32_t>{0, 1, 2, 3, 4, 6, 7}));
}

TEST(Workload, SameSeedGivesTheSameFlowsAnotherSeedOthers) {
  const std::string text = "type: poisson\ncdf: FbHdp2015\nload: 0.5\nduration: 2ms\n";
  const Workload a = load(text, 42), b = load(text, 42), c = load(text, 43);
  EXPECT_TRUE(same(a.flows, b.flows));
  EXPECT_FALSE(same(a.flows, c.flows));
  EXPECT_EQ(a.description, b.description);
  // Arrival times do not depend on the destination rule: each flow takes one
  // draw for its destination either way.
  const Workload d = load(text + "pairs: any\n", 42);
  std::vector<uint64_t> ta, td;
  for (const FabricFlow& f : a.flows)
    if (f.src == 0) ta.push_back(f.start_ns);
  for (const FabricFlow& f : d.flows)
    if (f.src == 0) td.push_back(f.start_ns);
  EXPECT_EQ(ta, td);
}

TEST(Workload, PoissonTakesACdfFileRelativeToTheWorkloadFile) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rocelb_wl_test." + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "cdf");
  std::ofstream(dir / "cdf" / "fixed.txt") << "999 0\n1000 1\n";
  std::ofstream(dir / "cdf" / "bad.txt") << "0 0\n10 50\n10 100\n";
  std::ofstream(dir / "w.yaml") << "type: poisson\ncdf: cdf/fixed.txt\nload: 0.5\nduration: 1ms\n";
  const Workload w = load_workload_file((dir / "w.yaml").string(), fabric(), 1);
  ASSERT_FALSE(w.flows.empty());
  for (const FabricFlow& f : w.flows) EXPECT_EQ(f.size_bytes, 999u);
  EXPECT_DOUBLE_EQ(w.cdf_mean_bytes, 999.5);
  try {
    load("type: poisson\ncdf: cdf/bad.txt\nload: 0.5\nduration: 1ms\n", 1, fabric(), dir.string());
    ADD_FAILURE() << "loaded";
  } catch (const WorkloadError& e) {
    EXPECT_EQ(std::string(e.what()), "w.yaml: cdf: " + (dir / "cdf/bad.txt").string() +
                                         ":3: size 10 does not increase (line 2 has 10): sizes "
                                         "must increase strictly");
  }
  std::filesystem::remove_all(dir);
}

TEST(Workload, PoissonErrors) {
  const std::string base = "type: poisson\ncdf: WebSearch\n";
  EXPECT_EQ(error_of(base + "load: 0\nduration: 1ms\n"),
            "w.yaml: load: 0: load must be a fraction of the host link speed, 0 < load <= 1, or "
            "a percentage (e.g. 0.5 or 50%)");
  EXPECT_EQ(error_of(base + "load: 1.5\nduration: 1ms\n"),
            "w.yaml: load: 1.5: load must be a fraction of the host link speed, 0 < load <= 1, "
            "or a percentage (e.g. 0.5 or 50%)");
  EXPECT_EQ(error_of(base + "load: 120%\nduration: 1ms\n").substr(0, 21),
            "w.yaml: load: \"120%\":");
  EXPECT_EQ(error_of(base + "load: 0.5\nduration: 0\n"),
            "w.yaml: duration: 0: must be a duration 1ns .. 3600s");
  EXPECT_EQ(error_of(base + "load: 0.5\n"), "w.yaml: missing required key \"duration\"");
  EXPECT_EQ(error_of(base + "load: 0.5\nduration: 1ms\npairs: intra_leaf\n"),
            "w.yaml: pairs: \"intra_leaf\": did you mean \"inter_leaf\"? must be one of "
            "inter_leaf, any");
  EXPECT_EQ(
      error_of(base + "load: 0.5\nduration: 1ms\nhosts: all\n"),
      "w.yaml: hosts: unknown key (known: type, cdf, load, load_of, duration, pairs, max_flows)");
  EXPECT_EQ(error_of(base + "load: 0.5\nduration: 1s\nmax_flows: 100\n"),
            "w.yaml: max_flows: more than 100 flows: raise max_flows or shorten the duration");
  EXPECT_EQ(error_of("type: poisson\ncdf: Websearch\nload: 0.5\nduration: 1ms\n"),
            "w.yaml: cdf: \"Websearch\": not a named distribution (AliStorage2019, WebSearch, "
            "FbHdp2015, GoogleRPC2008) nor a file (no \"./Websearch\")");
  EXPECT_EQ(error_of(base + "load: 0.5\nduration: 1ms\n", one_leaf()),
            "w.yaml: pairs: inter_leaf needs at least two leaves; the topology has 1 (use pairs: "
            "any)");
  // One leaf works with pairs: any, at that topology's 25G host speed.
  const Workload w = load(
      "type: poisson\ncdf: AliStorage2019\nload: 0.5\nduration: 10ms\npairs: any\n", 1, one_leaf());
  const double expected = 25e9 * 0.5 / (8 * w.cdf_mean_bytes) * 0.010 * 4;
  EXPECT_NEAR(double(w.flows.size()), expected, 3 * std::sqrt(expected));
}

// ---- incast ----

TEST(Workload, IncastSendersFromOtherLeavesFirstOrAList) {
  const Workload w = load("type: incast\nreceiver: h0\nsenders: 7\nsize: 256KB\n");
  EXPECT_EQ(w.kind, "incast");
  ASSERT_EQ(w.flows.size(), 7u);
  const std::vector<uint32_t> order = {4, 5, 6, 7, 1, 2, 3};
  for (size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(w.flows[i].src, order[i]);
    EXPECT_EQ(w.flows[i].dst, 0u);
    EXPECT_EQ(w.flows[i].size_bytes, 256'000u);
    EXPECT_EQ(w.flows[i].start_ns, 0u);
    EXPECT_EQ(w.flows[i].id, i);
  }
  EXPECT_EQ(w.description, "incast 7 -> h0, 256KB each, 1 round, 7 flows");
  const Workload two = load("type: incast\nreceiver: h5\nsenders: 2\nsize: 1MB\nstart: 3us\n");
  ASSERT_EQ(two.flows.size(), 2u);
  EXPECT_EQ(two.flows[0].src, 0u);  // leaf0 first
  EXPECT_EQ(two.flows[1].src, 1u);
  EXPECT_EQ(two.flows[0].start_ns, 3000u);
  const Workload list = load(
      "type: incast\nreceiver: h3\nsenders: [h2, h6]\nsize: 4KiB\nrepeat: 3\n"
      "interval: 10us\n");
  ASSERT_EQ(list.flows.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(list.flows[i].src, i % 2 ? 6u : 2u);
    EXPECT_EQ(list.flows[i].dst, 3u);
    EXPECT_EQ(list.flows[i].size_bytes, 4096u);
    EXPECT_EQ(list.flows[i].start_ns, (i / 2) * 10'000);
  }
}

TEST(Workload, IncastErrors) {
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: 8\nsize: 1MB\n"),
            "w.yaml: senders: 8: must be an integer 1..7");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: [h1, h0]\nsize: 1MB\n"),
            "w.yaml: senders[1]: \"h0\": is the receiver");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: [h1, h1]\nsize: 1MB\n"),
            "w.yaml: senders[1]: \"h1\": listed twice");
  EXPECT_EQ(error_of("type: incast\nreceiver: h8\nsenders: 2\nsize: 1MB\n"),
            "w.yaml: receiver: \"h8\" is not a host of the topology (h0..h7)");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: {a: 1}\nsize: 1MB\n"),
            "w.yaml: senders: expected a list of hosts or a count, found a map");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: 2\nsize: 1MB\nrepeat: 2\n"),
            "w.yaml: missing required key \"interval\" (repeat is 2)");
  EXPECT_EQ(error_of("type: incast\nreceiver: h0\nsenders: 2\n"),
            "w.yaml: missing required key \"size\"");
}

// ---- all_to_all ----

TEST(Workload, AllToAllMakesEveryPairInEveryPhase) {
  const Workload w =
      load("type: all_to_all\nhosts: all\nsize: 64KB\nphases: 4\ngap: 2us\nstart: 1us\n");
  EXPECT_EQ(w.kind, "all_to_all");
  EXPECT_EQ(w.phases, 4u);
  EXPECT_EQ(w.phase_gap_ns, 2000u);
  ASSERT_EQ(w.flows.size(), 4u * 8 * 7);
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> pairs(4);
  for (size_t i = 0; i < w.flows.size(); ++i) {
    const FabricFlow& f = w.flows[i];
    EXPECT_EQ(f.id, i);
    EXPECT_EQ(f.phase, i / 56);
    EXPECT_EQ(f.start_ns, f.phase == 0 ? 1000u : 0u);
    EXPECT_EQ(f.size_bytes, 64'000u);
    EXPECT_NE(f.src, f.dst);
    pairs[f.phase].insert({f.src, f.dst});
  }
  for (const auto& p : pairs) EXPECT_EQ(p.size(), 56u);
  EXPECT_EQ(w.description, "all_to_all 8 hosts, 64KB per pair, 4 phases, gap 2us, 224 flows");
  const Workload sub = load("type: all_to_all\nhosts: [h0, h5, h6]\nsize: 1MB\n");
  ASSERT_EQ(sub.flows.size(), 6u);
  EXPECT_EQ(sub.phases, 1u);
  EXPECT_EQ(sub.phase_gap_ns, 0u);
  for (const FabricFlow& f : sub.flows) {
    EXPECT_TRUE(f.src == 0 || f.src == 5 || f.src == 6);
    EXPECT_TRUE(f.dst == 0 || f.dst == 5 || f.dst == 6);
  }
}

TEST(Workload, AllToAllErrors) {
  EXPECT_EQ(error_of("type: all_to_all\nhosts: [h0]\nsize: 1MB\n"),
            "w.yaml: hosts: all_to_all needs at least two hosts");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: some\nsize: 1MB\n"),
            "w.yaml: hosts: \"some\": expected all or a list of hosts");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: all\nsize: 1MB\nphases: 0\n"),
            "w.yaml: phases: 0: must be an integer 1..10000");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: all\nsize: 1MB\nphases: 10\nmax_flows: 500\n"),
            "w.yaml: max_flows: 560 flows: more than max_flows (500)");
  EXPECT_EQ(error_of("type: all_to_all\nhosts: all\nsize: 1MB\nreceiver: h0\n"),
            "w.yaml: receiver: unknown key (known: type, hosts, size, phases, gap, start, "
            "max_flows)");
}

// ---- the shipped examples ----

TEST(Workload, ShippedExamplesLoadOnTheTestFabric) {
  const std::string dir = std::string(ROCELB_SOURCE_DIR) + "/configs/";
  const Topology topo = load_topology_file(dir + "fabrics/leaf_spine_2x2_8h.yaml");
  auto wl = [&](const char* name) {
    return load_workload_file(dir + "workloads/" + name, topo, 1);
  };
  const Workload incast = wl("incast_7to1.yaml");
  EXPECT_EQ(incast.flows.size(), 7u);
  for (const FabricFlow& f : incast.flows) {
    EXPECT_EQ(f.dst, 0u);
    EXPECT_EQ(f.size_bytes, 256'000u);
  }
  const Workload a2a = wl("all_to_all_8.yaml");
  EXPECT_EQ(a2a.flows.size(), 224u);
  EXPECT_EQ(a2a.phases, 4u);
  EXPECT_EQ(a2a.phase_gap_ns, 2000u);
  const Workload two = wl("two_flows.yaml");
  ASSERT_EQ(two.flows.size(), 2u);
  EXPECT_EQ(two.flows[0].src, 0u);
  EXPECT_EQ(two.flows[0].dst, 4u);
  EXPECT_EQ(two.flows[1].src, 1u);
  EXPECT_EQ(two.flows[1].dst, 5u);
  EXPECT_EQ(two.flows[1].size_bytes, 4'000'000u);
  for (const char* name :
       {"alistorage_50.yaml", "alistorage_80.yaml", "websearch_50.yaml", "websearch_80.yaml"}) {
    SCOPED_TRACE(name);
    const Workload w = wl(name);
    EXPECT_EQ(w.kind, "poisson");
    EXPECT_EQ(w.duration_ns, 10'000'000u);
    // 4 sigma: four draws (seed 1 puts websearch_80 at +3.2 sigma).
    const double expected = 100e9 * w.load / (8 * w.cdf_mean_bytes) * 0.010 * 8;
    EXPECT_NEAR(double(w.flows.size()), expected, 4 * std::sqrt(expected));
  }
}

}  // namespace
}  // namespace rocelb
