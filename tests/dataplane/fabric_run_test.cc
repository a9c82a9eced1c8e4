// The closed-loop fabric on the small test fabric (2 leaves × 4 hosts at
// 100G, 2 spines): what the issue says must hold — a lone flow at its ideal
// time, two flows hashed onto one uplink sharing it, incast with and
// without PFC, the cost of spraying under go-back-N and selective repeat,
// conservation and byte-identical reruns.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "dataplane/run/fabric_run.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/conweave_shim.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "dataplane/wire/roce.h"
#include "fabric_outputs.h"
#include "test_support.h"

namespace rocelb {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

struct Flow {
  std::string src, dst;
  uint64_t size = 0, start_ns = 0, ideal_ns = 0, packets = 0, retransmitted = 0, cnps = 0;
  bool finished = false;
  uint64_t finish_ns = 0, fct_ns = 0;
  double slowdown = 0;
};

struct Outcome {
  FabricResult result;
  std::vector<Flow> flows;
  Json summary;
  std::string dir;
  uint64_t last_finish_ns() const {
    uint64_t t = 0;
    for (const Flow& f : flows) t = std::max(t, f.finish_ns);
    return t;
  }
};

using test::slurp;

std::vector<Flow> read_flows(const fs::path& csv) {
  std::vector<Flow> out;
  std::istringstream in(slurp(csv));
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> c;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) c.push_back(cell);
    if (line.back() == ',') c.push_back("");
    EXPECT_EQ(c.size(), 12u) << line;
    if (c.size() != 12) continue;
    Flow f;
    f.src = c[1];
    f.dst = c[2];
    f.size = std::stoull(c[3]);
    f.start_ns = std::stoull(c[4]);
    f.finished = !c[5].empty();
    if (f.finished) {
      f.finish_ns = std::stoull(c[5]);
      f.fct_ns = std::stoull(c[6]);
      f.slowdown = std::stod(c[8]);
    }
    f.ideal_ns = std::stoull(c[7]);
    f.packets = std::stoull(c[9]);
    f.retransmitted = std::stoull(c[10]);
    f.cnps = std::stoull(c[11]);
    out.push_back(f);
  }
  return out;
}

class FabricRunTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_THROW(test::start_eal());
    base_ = test::fresh_test_dir("rocelb_fabric_");
  }
  void TearDown() override { fs::remove_all(base_); }

  Outcome run(const std::string& workload_yaml, const std::vector<std::string>& sets = {},
              uint64_t seed = 1, const std::string& name = "out", uint64_t until_ns = 0,
              uint32_t pool_mbufs = 0, const std::vector<std::string>& captures = {}) {
    const std::string topo_file =
        std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_2x2_8h.yaml";
    Topology topo = load_topology_file(topo_file, sets);
    Workload wl = load_workload_text(workload_yaml, "test.yaml", ".", topo, seed);
    const NicParams nic = topo.nic;
    FabricRun engine(std::move(topo), nic, std::move(wl), seed, pool_mbufs);
    FabricRunOptions opt;
    opt.out_dir = (base_ / name).string();
    opt.until_ns = until_ns;
    opt.fct_txt = fct_txt_;
    opt.ns3_ideal = ns3_ideal_;
    opt.captures = captures;
    Outcome r;
    r.result = engine.run(opt);
    r.dir = opt.out_dir;
    r.flows = read_flows(base_ / name / "flows.csv");
    r.summary = Json::parse(slurp(base_ / name / "summary.json"));
    return r;
  }

  fs::path base_;
  bool fct_txt_ = false;
  bool ns3_ideal_ = false;
};

TEST_F(FabricRunTest, OneFlowAloneFinishesAtItsIdealTime) {
  for (const char* dst : {"h4", "h1"}) {  // across the spines, and under one leaf
    const Outcome r = run(std::string("flows:\n  - {src: h0, dst: ") + dst + ", size: 1MB}\n");
    ASSERT_EQ(r.flows.size(), 1u);
    const Flow& f = r.flows[0];
    ASSERT_TRUE(f.finished) << dst;
    EXPECT_NEAR(f.slowdown, 1.0, 0.02) << dst << ": fct " << f.fct_ns << " ideal " << f.ideal_ns;
    EXPECT_EQ(f.packets, (1'000'000 + 1023) / 1024);
    EXPECT_EQ(f.retransmitted, 0u);
    EXPECT_TRUE(r.result.conserved);
    EXPECT_EQ(r.summary["switches"]["drops_total"], 0);
  }
}

// nic.framing ns3 with nic.mtu 1000: packets of 1,000 payload bytes, each
// holding every wire for as long as ns-3 holds it (1,036 bytes, no
// preamble or gap; the ACK 48 bytes), so a lone flow's ideal and its FCT are
// ns-3's arithmetic. Ethernet framing refuses a payload of 1,000. --ideal
// ns3 divides the same FCT by ns-3's standalone_fct.
TEST_F(FabricRunTest, Ns3FramingCountsFramesAsNs3Does) {
  const Outcome r =
      run("flows:\n  - {src: h0, dst: h4, size: 1MB}\n", {"nic.framing=ns3", "nic.mtu=1000"});
  ASSERT_EQ(r.flows.size(), 1u);
  const Flow& f = r.flows[0];
  ASSERT_TRUE(f.finished);
  EXPECT_EQ(f.packets, 1000u);
  // Four 100G links of 1 us: 1,000 packets of 1,036 B on the first, the
  // last one again on each of the other three, the last ACK (48 B) on all
  // four, 8 us of propagation (80 ps a byte at 100G).
  const uint64_t want_ps = (1000 * 1036 + 3 * 1036 + 4 * 48) * 80 + 8'000'000;
  EXPECT_EQ(f.ideal_ns, want_ps / 1000);
  EXPECT_NEAR(f.slowdown, 1.0, 0.02) << "fct " << f.fct_ns << " ideal " << f.ideal_ns;
  EXPECT_TRUE(r.result.conserved);
  // links.csv meters the same wire bytes: the host's wire carried the
  // flow's packets at 1,036 B each.
  std::istringstream links(slurp(fs::path(r.dir) / "links.csv"));
  uint64_t h0_bytes = 0;
  for (std::string line; std::getline(links, line);) {
    if (line.rfind("h0,", 0) != 0) continue;
    std::vector<std::string> c;
    std::stringstream ls(line);
    for (std::string cell; std::getline(ls, cell, ',');) c.push_back(cell);
    ASSERT_EQ(c.size(), 5u) << line;
    h0_bytes += std::stoull(c[3]);
  }
  EXPECT_EQ(h0_bytes, 1000u * 1036);
  EXPECT_EQ(r.summary["slowdown"]["ideal_fct"], "rocelb");
  // --ideal ns3: the slowdown over ConWeave's standalone_fct, 2 × 4 us +
  // 4 × 80 ns + (1,000,000 + 1,000 × 48) B × 0.08 ns; the FCT is the same.
  ns3_ideal_ = true;
  const Outcome n = run("flows:\n  - {src: h0, dst: h4, size: 1MB}\n",
                        {"nic.framing=ns3", "nic.mtu=1000"}, 1, "ns3_ideal");
  ASSERT_EQ(n.flows.size(), 1u);
  EXPECT_EQ(n.flows[0].ideal_ns, 8000u + 320 + 83'840);
  EXPECT_EQ(n.flows[0].fct_ns, f.fct_ns);
  EXPECT_EQ(n.summary["slowdown"]["ideal_fct"], "ns3");
  EXPECT_THROW(
      load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_2x2_8h.yaml",
                         {"nic.mtu=1000"}),
      std::exception);
}

// --fct-txt: out_fct.txt as ConWeave's and HPCC's ns-3 write it, a line per
// finished flow in the order they finished: the hosts' indices, the UDP
// ports, size, start, FCT and the ideal FCT, the same numbers as flows.csv.
TEST_F(FabricRunTest, FctTxtHasALinePerFinishedFlowInFinishOrder) {
  fct_txt_ = true;
  const Outcome r =
      run("type: incast\nreceiver: h0\nsenders: [h1, h2, h5, h6]\nsize: 200KB\n", {}, 1, "fct", 0);
  std::istringstream in(slurp(fs::path(r.dir) / "out_fct.txt"));
  std::string line;
  uint64_t lines = 0, last_finish = 0;
  while (std::getline(in, line)) {
    std::istringstream ls(line);
    uint64_t src, dst, sport, dport, size, start, fct, ideal;
    ASSERT_TRUE(ls >> src >> dst >> sport >> dport >> size >> start >> fct >> ideal) << line;
    std::string rest;
    EXPECT_FALSE(ls >> rest) << line;
    EXPECT_EQ(dst, 0u);
    EXPECT_EQ(dport, 4791u);
    EXPECT_GE(sport, 0xC000u);
    const auto it = std::find_if(r.flows.begin(), r.flows.end(),
                                 [&](const Flow& f) { return f.src == "h" + std::to_string(src); });
    ASSERT_NE(it, r.flows.end()) << line;
    EXPECT_EQ(size, it->size);
    EXPECT_EQ(start, it->start_ns);
    EXPECT_EQ(fct, it->fct_ns);
    EXPECT_EQ(ideal, it->ideal_ns);
    EXPECT_GE(start + fct, last_finish) << "not in finish order: " << line;
    last_finish = start + fct;
    ++lines;
  }
  EXPECT_EQ(lines, 4u);
  fct_txt_ = false;
  const Outcome plain =
      run("type: incast\nreceiver: h0\nsenders: [h1]\nsize: 20KB\n", {}, 1, "plain", 0);
  EXPECT_FALSE(fs::exists(fs::path(plain.dir) / "out_fct.txt"));
}

// A flow the run stops before it finishes still says what it sent: its
// packets, retransmissions and CNPs so far (they were 0).
TEST_F(FabricRunTest, AnUnfinishedFlowReportsWhatItSentSoFar) {
  const Outcome r =
      run("flows:\n  - {src: h0, dst: h4, size: 4MB}\n  - {src: h1, dst: h5, size: 4MB}\n"
          "  - {src: h2, dst: h6, size: 4MB, start: 1ms}\n",
          {"groups.uplinks.hash_fields=[dst_port]", "qos.pfc_enable=[]"}, 1, "out", 200'000);
  ASSERT_EQ(r.flows.size(), 3u);
  uint64_t sent = 0, retx = 0, cnps = 0;
  for (size_t i = 0; i < 2; ++i) {
    const Flow& f = r.flows[i];
    EXPECT_FALSE(f.finished) << f.src;
    // 200 us at up to 100G, cut by DCQCN: hundreds of 1 KB packets.
    EXPECT_GT(f.packets, 100u) << f.src;
    sent += f.packets;
    retx += f.retransmitted;
    cnps += f.cnps;
  }
  // Not started: nothing.
  EXPECT_EQ(r.flows[2].packets, 0u);
  // The rows add up to what the NICs counted.
  EXPECT_EQ(sent, r.summary["nics"]["data_packets_sent"].get<uint64_t>());
  EXPECT_EQ(retx, r.summary["nics"]["retransmitted_packets"].get<uint64_t>());
  EXPECT_EQ(cnps, r.summary["nics"]["cnps_received"].get<uint64_t>());
  EXPECT_GT(cnps, 0u);  // two flows on one uplink without PFC: marked, CNPs back
}

// Every flow hashes to the same uplink when only the UDP destination port
// (4791 for all RoCEv2) is hashed.
TEST_F(FabricRunTest, TwoFlowsHashedOntoOneUplinkShareItAndSprayingSplitsThem) {
  const std::string two =
      "flows:\n  - {src: h0, dst: h4, size: 4MB}\n"
      "  - {src: h1, dst: h5, size: 4MB}\n";
  // DCQCN off: the two flows share the queue, PFC keeps it lossless, and
  // FIFO service splits the link (DCQCN's own dynamics are the incast
  // tests' business).
  const Outcome fixed =
      run(two, {"groups.uplinks.hash_fields=[dst_port]", "nic.dcqcn.enabled=false"});
  ASSERT_EQ(fixed.flows.size(), 2u);
  for (const Flow& f : fixed.flows) {
    ASSERT_TRUE(f.finished);
    EXPECT_GT(f.slowdown, 1.7) << f.src;
    EXPECT_LT(f.slowdown, 2.4) << f.src;
  }
  // leaf0 sent every data packet on one uplink (port 4 or 5).
  const Json leaf0 = Json::parse(slurp(fs::path(fixed.dir) / "leaf0.counters.json"));
  uint64_t up4 = 0, up5 = 0;
  for (const Json& p : leaf0["ports"]) {
    if (p["id"] == 4) up4 = p["tx_packets"];
    if (p["id"] == 5) up5 = p["tx_packets"];
  }
  EXPECT_GT(std::max(up4, up5), 7000u);
  EXPECT_LT(std::min(up4, up5), 100u);

  // Sprayed over both uplinks they finish near ideal. At this load random
  // spraying lets one uplink's queue run ahead of the other's for tens of
  // microseconds: go-back-N pays for every such reordering, selective
  // repeat for few (a hole outlasting sr_nak_delay).
  const Outcome sprayed =
      run(two, {"groups.uplinks.mode=per_packet_random", "nic.loss_recovery=selective_repeat"}, 1,
          "sprayed");
  const Outcome sprayed_gbn = run(two, {"groups.uplinks.mode=per_packet_random"}, 1, "gbn");
  uint64_t sr_retx = 0, gbn_retx = 0;
  for (const Flow& f : sprayed.flows) {
    ASSERT_TRUE(f.finished);
    EXPECT_LT(f.slowdown, 1.25) << f.src;
    sr_retx += f.retransmitted;
  }
  for (const Flow& f : sprayed_gbn.flows) gbn_retx += f.retransmitted;
  EXPECT_LT(sr_retx * 10, gbn_retx);
}

// --pool-mbufs: a pool smaller than what the switches would queue runs
// dry; every frame that found no buffer is a no_buffer drop of the switch
// it reached, the run conserves frames, and go-back-N still delivers.
TEST_F(FabricRunTest, APoolTooSmallDropsNoBufferAndSaysSo) {
  const std::string wl = "type: incast\nreceiver: h0\nsenders: 7\nsize: 256KB\n";
  const Outcome small = run(wl, {}, 1, "small", 0, 1024);
  EXPECT_TRUE(small.result.conserved);
  EXPECT_EQ(small.summary["cost"]["memory"]["packet_pool"]["max_mbufs"], 1024);
  uint64_t no_buffer = 0;
  for (const char* sw : {"leaf0", "leaf1", "spine0", "spine1"}) {
    const Json c = Json::parse(slurp(fs::path(small.dir) / (std::string(sw) + ".counters.json")));
    for (const Json& p : c["ports"]) no_buffer += p["drops"]["no_buffer"].get<uint64_t>();
  }
  EXPECT_GT(no_buffer, 0u);
  EXPECT_EQ(small.summary["switches"]["drops_total"], no_buffer);
  for (const Flow& f : small.flows) EXPECT_TRUE(f.finished) << f.src;
  // The default pool holds the whole incast: nothing dropped.
  const Outcome full = run(wl, {}, 1, "full");
  EXPECT_EQ(full.summary["switches"]["drops_total"], 0);
  EXPECT_GT(full.summary["cost"]["memory"]["packet_pool"]["max_mbufs"].get<uint64_t>(), 1024u);
}

TEST_F(FabricRunTest, IncastWithPfcDropsNothingAndEndsAtTheReceiversLineRate) {
  std::string wl = "type: incast\nreceiver: h0\nsenders: 7\nsize: 256KB\n";
  const Outcome r = run(wl);
  ASSERT_EQ(r.flows.size(), 7u);
  for (const Flow& f : r.flows) EXPECT_TRUE(f.finished) << f.src;
  EXPECT_EQ(r.summary["switches"]["drops_total"], 0);
  EXPECT_TRUE(r.result.conserved);
  // 7 × 256 KB through h0's 100G link: the last flow ends at about 7 × its
  // own serialization (frames with headers, and one RTT).
  const double bottleneck_ns = 7.0 * 256'000 * 8 / 100.0 * (1102.0 / 1024.0);
  EXPECT_GT(r.last_finish_ns(), bottleneck_ns * 0.98);
  EXPECT_LT(r.last_finish_ns(), bottleneck_ns * 1.3);
  // The receiver's leaf paused someone, or ECN slowed the senders.
  EXPECT_GT(r.summary["switches"]["pfc_frames_sent"].get<uint64_t>() +
                r.summary["switches"]["ecn_marked_packets"].get<uint64_t>(),
            0u);
}

TEST_F(FabricRunTest, IncastWithoutPfcMarksAndDcqcnCutsThenRecovers) {
  std::string wl = "type: incast\nreceiver: h0\nsenders: 7\nsize: 1MB\n";
  const Outcome r = run(wl, {"qos.pfc_enable=[]", "nic.local_ack_timeout=6"});
  ASSERT_EQ(r.flows.size(), 7u);
  for (const Flow& f : r.flows) EXPECT_TRUE(f.finished) << f.src;
  const Json& nics = r.summary["nics"];
  EXPECT_GT(r.summary["switches"]["ecn_marked_packets"].get<uint64_t>() +
                r.summary["switches"]["drops_total"].get<uint64_t>(),
            0u);
  EXPECT_GT(nics["cnps_sent"].get<uint64_t>(), 0u);
  EXPECT_GT(nics["cnps_received"].get<uint64_t>(), 0u);
  EXPECT_GT(nics["rate_cuts"].get<uint64_t>(), 0u);
  EXPECT_EQ(r.summary["switches"]["pfc_frames_sent"], 0);
  EXPECT_TRUE(r.result.conserved);
}

// leaf0's uplink to spine1 at 60G: sprayed packets of one flow take paths of
// unequal speed (the slow one, given half the packets of a 100G flow, queues
// a few of them now and then) and arrive out of order, by microseconds.
TEST_F(FabricRunTest, SprayingOnUnequalPathsCostsGoBackNRetransmissionsButNotSelectiveRepeat) {
  const std::string one = "flows:\n  - {src: h0, dst: h4, size: 2MB}\n";
  const std::vector<std::string> sets = {"groups.uplinks.mode=per_packet_random",
                                         "leaf0:ports[5].speed=60G"};
  const Outcome gbn = run(one, sets, 1, "gbn");
  ASSERT_TRUE(gbn.flows.at(0).finished);
  EXPECT_GT(gbn.flows[0].retransmitted, 0u);
  EXPECT_GT(gbn.summary["nics"]["out_of_order_received"].get<uint64_t>(), 0u);

  std::vector<std::string> sr_sets = sets;
  sr_sets.push_back("nic.loss_recovery=selective_repeat");
  const Outcome sr = run(one, sr_sets, 1, "sr");
  ASSERT_TRUE(sr.flows.at(0).finished);
  EXPECT_LT(sr.flows[0].retransmitted, gbn.flows[0].retransmitted);
  EXPECT_LT(sr.flows[0].slowdown, 1.05);
  EXPECT_GT(gbn.flows[0].slowdown, 2.0);
  EXPECT_EQ(sr.summary["nics"]["spurious_retransmissions"], 0);
  EXPECT_GT(sr.summary["nics"]["out_of_order_received"].get<uint64_t>(), 0u);
}

TEST_F(FabricRunTest, SameSeedSameBytesAndEveryPacketAccountedFor) {
  const std::string wl =
      "type: poisson\ncdf: WebSearch\nload: 0.5\nduration: 300us\npairs: inter_leaf\n";
  const Outcome a = run(wl, {"groups.uplinks.mode=flowlet_random"}, 7, "a");
  const Outcome b = run(wl, {"groups.uplinks.mode=flowlet_random"}, 7, "b");
  const Outcome c = run(wl, {"groups.uplinks.mode=flowlet_random"}, 8, "c");
  ASSERT_GT(a.flows.size(), 5u);
  EXPECT_TRUE(a.result.conserved);
  std::vector<std::string> files = {"flows.csv", "links.csv"};
  for (const char* s : {"leaf0", "leaf1", "spine0", "spine1"})
    files.push_back(std::string(s) + ".counters.json");
  for (const std::string& f : files)
    EXPECT_EQ(slurp(fs::path(a.dir) / f), slurp(fs::path(b.dir) / f)) << f;
  Json sa = a.summary, sb = b.summary;
  sa.erase("cost");
  sb.erase("cost");
  EXPECT_EQ(sa, sb);
  EXPECT_NE(slurp(fs::path(a.dir) / "flows.csv"), slurp(fs::path(c.dir) / "flows.csv"));
  // Every flow finished or is reported unfinished; every switch balances.
  EXPECT_EQ(a.summary["flows"]["finished"].get<uint64_t>() +
                a.summary["flows"]["unfinished"].get<uint64_t>(),
            a.flows.size());
  for (const char* s : {"leaf0", "leaf1", "spine0", "spine1"}) {
    const Json j = Json::parse(slurp(fs::path(a.dir) / (std::string(s) + ".counters.json")));
    EXPECT_TRUE(j["totals"]["conserved"].get<bool>()) << s;
  }
}

TEST_F(FabricRunTest, AllToAllPhasesWaitForEachOther) {
  const Outcome r =
      run("type: all_to_all\nhosts: [h0, h1, h4, h5]\nsize: 64KB\nphases: 2\ngap: 5us\n");
  ASSERT_EQ(r.flows.size(), 24u);
  uint64_t phase0_end = 0, phase1_start = UINT64_MAX;
  for (size_t i = 0; i < r.flows.size(); ++i) {
    ASSERT_TRUE(r.flows[i].finished);
    if (i < 12)
      phase0_end = std::max(phase0_end, r.flows[i].finish_ns);
    else
      phase1_start = std::min(phase1_start, r.flows[i].start_ns);
  }
  EXPECT_EQ(phase1_start, phase0_end + 5000);
}

// The explicit form with leaf0's uplink to spine1 failed: leaf0 treats it
// as a down member, and leaf1 (told by a route, as a routing protocol would)
// reaches leaf0's hosts through spine0 only. Nothing is lost.
TEST_F(FabricRunTest, AFailedUplinkInTheExplicitFormCarriesNothing) {
  const fs::path dir = base_ / "fab";
  fs::create_directories(dir);
  const std::string src = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/asymmetric_2x2/";
  for (const char* s : {"leaf0", "leaf1", "spine0", "spine1"})
    fs::copy_file(src + s + ".yaml", dir / (std::string(s) + ".yaml"));
  std::string fabric = slurp(src + "fabric.yaml");
  const std::string slow = "  - {a: leaf0:5, b: spine1:0, delay: 1000ns}";
  ASSERT_NE(fabric.find(slow), std::string::npos);
  fabric.replace(fabric.find(slow), slow.size(),
                 "  - {a: leaf0:5, b: spine1:0, delay: 1000ns, state: down}");
  std::ofstream(dir / "fabric.yaml") << fabric;
  Topology topo = load_topology_file(
      (dir / "fabric.yaml").string(),
      {"groups.uplinks.mode=per_packet_random",
       "leaf1:routes=[{prefix: 0.0.0.0/0, group: uplinks}, {prefix: 10.0.0.0/16, via: "
       "10.100.1.2}]"});
  Workload wl = load_workload_text(
      "flows:\n  - {src: h0, dst: h4, size: 1MB}\n  - {src: h5, dst: h1, size: 1MB}\n", "t.yaml",
      ".", topo, 1);
  const NicParams nic = topo.nic;
  FabricRunOptions opt;
  opt.out_dir = (base_ / "out").string();
  {
    FabricRun engine(std::move(topo), nic, std::move(wl), 1);
    const FabricResult r = engine.run(opt);
    EXPECT_EQ(r.flows_finished, 2u);
    EXPECT_TRUE(r.conserved);
  }
  const Json s = Json::parse(slurp(base_ / "out" / "summary.json"));
  EXPECT_EQ(s["switches"]["drops_total"], 0);
  EXPECT_EQ(s["nics"]["retransmitted_packets"], 0);
  const Json leaf0 = Json::parse(slurp(base_ / "out" / "leaf0.counters.json"));
  for (const Json& p : leaf0["ports"])
    if (p["id"] == 5) {
      EXPECT_EQ(p["link"], "down");
      EXPECT_EQ(p["tx_packets"], 0);
    }
  // Near their ideal time (which avoids the failed link too): each flow's
  // ACKs wait behind the other's data on the one path left, a few percent.
  for (const Flow& f : read_flows(base_ / "out" / "flows.csv")) EXPECT_LT(f.slowdown, 1.15);
}

// A port no link of the topology names: frames the switch sends there are
// dropped `no_link`, not counted as transmitted (they used to vanish with
// the counters still balanced).
TEST_F(FabricRunTest, AFrameSentOnAPortWithoutALinkIsDroppedNoLink) {
  Topology topo =
      load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_2x2_8h.yaml",
                         {"groups.uplinks.mode=per_packet_random"});
  const uint32_t leaf0 = *topo.switch_index("leaf0");
  const auto before = topo.links.size();
  std::erase_if(topo.links, [&](const FabricLink& l) { return l.a_sw == leaf0 && l.a_port == 5; });
  ASSERT_EQ(topo.links.size(), before - 1);
  Workload wl =
      load_workload_text("flows:\n  - {src: h0, dst: h4, size: 1MB}\n", "t.yaml", ".", topo, 1);
  const NicParams nic = topo.nic;
  FabricRunOptions opt;
  opt.out_dir = (base_ / "out").string();
  opt.until_ns = 100'000;
  {
    FabricRun engine(std::move(topo), nic, std::move(wl), 1);
    EXPECT_TRUE(engine.run(opt).conserved);
  }
  const Json c = Json::parse(slurp(base_ / "out" / "leaf0.counters.json"));
  uint64_t no_link = 0;
  for (const Json& p : c["ports"])
    if (p["id"] == 5) {
      EXPECT_EQ(p["tx_packets"], 0);
      no_link = p["drops"]["no_link"].get<uint64_t>();
    }
  EXPECT_GT(no_link, 100u);  // about half of what h0 sent in 100 us
  EXPECT_TRUE(c["totals"]["conserved"].get<bool>());
  const Json s = Json::parse(slurp(base_ / "out" / "summary.json"));
  EXPECT_EQ(s["switches"]["drops"]["no_link"].get<uint64_t>(), no_link);
}

TEST_F(FabricRunTest, ACaptureHoldsWhatThePortSent) {
  const std::string topo_file =
      std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_2x2_8h.yaml";
  Topology topo = load_topology_file(topo_file);
  Workload wl =
      load_workload_text("flows:\n  - {src: h0, dst: h4, size: 8KiB}\n", "t.yaml", ".", topo, 1);
  const NicParams nic = topo.nic;
  FabricRunOptions opt;
  opt.out_dir = (base_ / "cap").string();
  opt.captures = {"h0", "leaf1:0"};
  {
    FabricRun engine(std::move(topo), nic, std::move(wl), 1);
    engine.run(opt);
  }
  // 8 data frames from h0 (24-byte pcap header, 16 per record).
  const uint64_t h0 = fs::file_size(base_ / "cap" / "capture-h0.pcap");
  EXPECT_EQ(h0, 24 + 8 * (16 + 1082));
  // leaf1 port 0 faces h4: the same 8 frames.
  EXPECT_EQ(fs::file_size(base_ / "cap" / "capture-leaf1-0.pcap"), h0);

  Topology t2 = load_topology_file(topo_file);
  Workload w2 =
      load_workload_text("flows:\n  - {src: h0, dst: h4, size: 8KiB}\n", "t.yaml", ".", t2, 1);
  FabricRun e2(std::move(t2), nic, std::move(w2), 1);
  opt.out_dir = (base_ / "bad").string();
  opt.captures = {"leaf9:0"};
  EXPECT_THROW(e2.run(opt), FabricError);
  EXPECT_FALSE(fs::exists(base_ / "bad" / "flows.csv"));
}

// Mode conweave on unequal uplinks (leaf0's second at 60G): flows whose
// RTT reply comes late leave their path with a TAIL, the packets of the new
// path that overtake it wait in leaf1's reorder queue and leave right
// behind it, so the receivers see no packet out of order. Between the
// switches the data carries ConWeave's header (IPv4 protocol 253); hosts
// get RoCEv2 with its ICRC intact. With a reorder pool too small to hold
// them, the same reroutes reach the hosts out of order.
TEST_F(FabricRunTest, ConWeaveReroutesAndItsReorderQueueKeepsDeliveryInOrder) {
  const std::string four =
      "flows:\n  - {src: h0, dst: h4, size: 2MB}\n  - {src: h1, dst: h5, size: 2MB}\n"
      "  - {src: h2, dst: h6, size: 2MB}\n  - {src: h3, dst: h7, size: 2MB}\n";
  const std::vector<std::string> sets = {"groups.uplinks.mode=conweave",
                                         "leaf0:ports[5].speed=60G"};
  const Outcome r = run(four, sets, 1, "cw", 0, 0, {"leaf0:4", "leaf1:0"});
  for (const Flow& f : r.flows) ASSERT_TRUE(f.finished) << f.src;
  EXPECT_TRUE(r.result.conserved);
  EXPECT_EQ(r.summary["nics"]["out_of_order_received"], 0);
  EXPECT_EQ(r.summary["nics"]["retransmitted_packets"], 0);
  EXPECT_EQ(r.summary["nics"]["rx_ignored"], 0);
  const Json leaf0 = Json::parse(slurp(fs::path(r.dir) / "leaf0.counters.json"));
  const Json& g = leaf0["groups"][0];
  EXPECT_GT(g["conweave_epochs"].get<uint64_t>(), 4u);
  EXPECT_GT(g["conweave_tails"].get<uint64_t>(), 0u);
  EXPECT_GT(g["conweave_reroutes"].get<uint64_t>(), 0u);
  EXPECT_GT(g["conweave_clears"].get<uint64_t>(), 0u);
  EXPECT_GT(g["conweave_replies_timely"].get<uint64_t>(), 0u);
  const Json leaf1 = Json::parse(slurp(fs::path(r.dir) / "leaf1.counters.json"));
  const Json& cw = leaf1["conweave"];
  EXPECT_GT(cw["held_packets"].get<uint64_t>(), 100u);
  EXPECT_GT(cw["flushed_by_tail"].get<uint64_t>(), 0u);
  EXPECT_EQ(cw["flushed_by_timeout"], 0);
  EXPECT_EQ(cw["held_now"], 0);
  // leaf1 answered (generated) what leaf0 took back (consumed).
  uint64_t generated = 0, consumed = 0;
  for (const Json& p : leaf1["ports"]) generated += p["generated_conweave"].get<uint64_t>();
  for (const Json& p : leaf0["ports"]) consumed += p["consumed_conweave"].get<uint64_t>();
  EXPECT_GT(generated, 0u);
  EXPECT_EQ(generated, consumed);

  // The wire: leaf0's first uplink carries marked data; h4 gets RoCEv2.
  uint64_t marked = 0, kinds[8] = {};
  {
    PcapReader up((fs::path(r.dir) / "capture-leaf0-4.pcap").string());
    for (PcapRecord rec; up.next(rec);) {
      ParsedPacket p;
      ASSERT_EQ(parse_frame(rec.data, rec.caplen, rec.origlen, p), ParseResult::ok);
      if (p.proto != kIpProtoConWeave) continue;
      ConWeaveShim sh;
      ASSERT_TRUE(read_conweave_shim(rec.data + p.l4_offset, sh));
      ASSERT_TRUE(is_conweave_data(sh.kind));
      ASSERT_LE(sh.path, 1);
      ++kinds[static_cast<int>(sh.kind)];
      // The headers, 16 B of ConWeave, the ICRC and 1,024 B of payload
      // (a flow's last packet: what is left of 2 MB).
      const uint32_t payload = rec.origlen - (14 + 20 + 16 + 8 + 12 + 4);
      ASSERT_TRUE(payload == 1024 || payload == 2'000'000 % 1024) << rec.origlen;
      ++marked;
    }
  }
  EXPECT_GT(marked, 1000u);
  EXPECT_GT(kinds[static_cast<int>(ConWeaveKind::kInit)], 0u);
  EXPECT_GT(kinds[static_cast<int>(ConWeaveKind::kData)], 0u);
  uint64_t to_h4 = 0;
  PcapReader host((fs::path(r.dir) / "capture-leaf1-0.pcap").string());
  for (PcapRecord rec; host.next(rec);) {
    ParsedPacket p;
    ASSERT_EQ(parse_frame(rec.data, rec.caplen, rec.origlen, p), ParseResult::ok);
    ASSERT_TRUE(p.is_rocev2) << "frame " << to_h4;
    const uint8_t* l3 = rec.data + p.l3_offset;
    const uint32_t len = p.ip_end - p.l3_offset - 4;
    ASSERT_EQ(roce_icrc(l3, p.bth_offset - p.l3_offset, len, IcrcL3::kIpv4), load_le32(l3 + len))
        << "frame " << to_h4;
    ++to_h4;
  }
  EXPECT_GT(to_h4, 1900u);

  // A pool of 16 cannot hold a reroute's packets: they pass, out of order.
  std::vector<std::string> small = sets;
  small.push_back("groups.uplinks.conweave.hold_packets=16");
  const Outcome s = run(four, small, 1, "small");
  for (const Flow& f : s.flows) ASSERT_TRUE(f.finished) << f.src;
  EXPECT_TRUE(s.result.conserved);
  const Json l1 = Json::parse(slurp(fs::path(s.dir) / "leaf1.counters.json"));
  EXPECT_GT(l1["conweave"]["hold_full"].get<uint64_t>(), 0u);
  EXPECT_GT(s.summary["nics"]["out_of_order_received"].get<uint64_t>(), 0u);
}

}  // namespace
}  // namespace rocelb
