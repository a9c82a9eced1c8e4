// The simulator's files (a topology in both forms, its nic map, a workload)
// hold to the rules of every rocelb file (control/key_reader.h): booleans
// are true or false, never 1 or 0; integers are decimal or 0x hex; UTF-8;
// no key twice; an unknown key gets the nearest known one; an error names
// where the value came from, the file or the --set that made it.
#include <gtest/gtest.h>

#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

const char* kTiny =
    "leaves: 2\nspines: 1\nhosts_per_leaf: 1\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\n";

const std::string kAsymmetric = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/asymmetric_2x2";
const std::string kExplicit =
    "switches: {leaf0: leaf0.yaml, leaf1: leaf1.yaml, spine0: spine0.yaml, spine1: spine1.yaml}\n"
    "links:\n"
    "  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
    "  - {a: leaf0:5, b: spine1:0, delay: 1us}\n"
    "  - {a: leaf1:4, b: spine0:1, delay: 1us}\n"
    "  - {a: leaf1:5, b: spine1:1, delay: 1us}\n"
    "hosts:\n  - {name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}\n";

std::string topology_error(const std::string& text, const std::vector<std::string>& sets = {},
                           const std::string& dir = ".") {
  try {
    load_topology_text(text, "t.yaml", dir, sets);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "";
}

std::string nic_error(const std::string& nic) {
  try {
    load_nic_params(YAML::Load(nic), "t.yaml");
  } catch (const NicParamsError& e) {
    return e.what();
  }
  return "";
}

TEST(SimFileRules, ANicBooleanIsTrueOrFalseNeverOneOrZero) {
  // 1 and 0 were read as true and false here, and refused in a switch config.
  EXPECT_EQ(nic_error("dcqcn: {enabled: 1}"),
            "t.yaml: nic.dcqcn.enabled: 1: must be true or false");
  EXPECT_EQ(nic_error("dcqcn: {clamp_tgt_rate: 0}"),
            "t.yaml: nic.dcqcn.clamp_tgt_rate: 0: must be true or false");
  EXPECT_EQ(topology_error(std::string(kTiny) + "nic: {dcqcn: {enabled: 1}}\n"),
            "t.yaml: nic.dcqcn.enabled: 1: must be true or false");
  EXPECT_FALSE(load_nic_params(YAML::Load("dcqcn: {enabled: FALSE}"), "t.yaml").dcqcn.enabled);
}

TEST(SimFileRules, NicIntegersAreDecimalOrHex) {
  const NicParams p = load_nic_params(
      YAML::Load("data_dscp: 0x1a\nack_interval: 0X10\ndcqcn: {rpg_ai_rate: 0x28}"), "t.yaml");
  EXPECT_EQ(p.data_dscp, 26);
  EXPECT_EQ(p.ack_interval, 16u);
  EXPECT_EQ(p.dcqcn.rpg_ai_rate, 40u);
  EXPECT_EQ(load_nic_params(YAML::Load("mtu: 0x1000"), "t.yaml").mtu, 4096u);
  EXPECT_EQ(nic_error("data_dscp: 0x40"), "t.yaml: nic.data_dscp: 0x40: must be an integer 0..63");
  // And a topology's counts.
  EXPECT_EQ(load_topology_text("leaves: 0x2\nspines: 0x1\nhosts_per_leaf: 1\nhost_speed: 100G\n"
                               "uplink_speed: 100G\nlink_delay: 1us\n",
                               "t.yaml", ".")
                .leaves,
            2u);
}

TEST(SimFileRules, AnUnknownKeyGetsTheNearestKnownOne) {
  EXPECT_EQ(nic_error("mtus: 1024"),
            "t.yaml: nic.mtus: unknown key, did you mean \"mtu\"? (known: mtu, framing, "
            "data_dscp, "
            "data_priority, ack_dscp, ack_priority, ack_interval, local_ack_timeout, "
            "loss_recovery, sr_nak_delay, sr_window, nak_interval, max_inflight, dcqcn)");
  EXPECT_EQ(nic_error("dcqcn: {rpg_ai_rat: 5}")
                .rfind("t.yaml: nic.dcqcn.rpg_ai_rat: unknown key, "
                       "did you mean \"rpg_ai_rate\"? (known: ",
                       0),
            0u);
  EXPECT_EQ(topology_error(std::string(kTiny) + "swich_config: sw.yaml\n")
                .rfind("t.yaml: swich_config: unknown key, did you mean \"switch_config\"? ", 0),
            0u);
  EXPECT_EQ(topology_error(kExplicit + "link: []\n", {}, kAsymmetric),
            "t.yaml: link: unknown key, did you mean \"links\"? (known: switches, links, hosts, "
            "nic)");
  EXPECT_EQ(
      topology_error(kExplicit + "  - {name: h1, at: leaf0:1, ip: 10.0.1.2, dlay: 1us}\n", {},
                     kAsymmetric),
      "t.yaml: hosts[1].dlay: unknown key, did you mean \"delay\"? (known: name, at, ip, mac, "
      "delay)");
}

TEST(SimFileRules, EveryKeyAndValueIsUtf8) {
  EXPECT_EQ(nic_error("loss_recovery: go\xff"),
            "t.yaml: nic.loss_recovery: the value is not UTF-8 text (byte 0xff at offset 2): a "
            "topology's nic map is UTF-8");
  EXPECT_EQ(topology_error(std::string(kTiny) + "switch_config: sw\xfe.yaml\n"),
            "t.yaml: switch_config: the value is not UTF-8 text (byte 0xfe at offset 2): a "
            "topology is UTF-8");
  EXPECT_EQ(topology_error(std::string(kTiny) + "nic: {mtu\xc3: 1024}\n"),
            "t.yaml: nic: a key is not UTF-8 text (byte 0xc3 at offset 3): a topology is UTF-8");
  EXPECT_EQ(topology_error(kExplicit + "  - {name: h\xff, at: leaf0:1, ip: 10.0.1.2, delay: 1us}\n",
                           {}, kAsymmetric),
            "t.yaml: hosts[1].name: the value is not UTF-8 text (byte 0xff at offset 1): a "
            "topology is UTF-8");
}

TEST(SimFileRules, AValueASetMadeIsBlamedOnTheSetNotTheFile) {
  EXPECT_EQ(topology_error(kTiny, {"nic.dcqcn.enabled=1"}),
            "--set nic.dcqcn.enabled=1: nic.dcqcn.enabled: 1: must be true or false");
  EXPECT_EQ(topology_error(kTiny, {"nic.dcqcn={rpg_gd: 32}"}),
            "--set nic.dcqcn={rpg_gd: 32}: nic.dcqcn.rpg_gd: 32: must be an integer 1..31 (cut = "
            "rate x alpha / 2^rpg_gd)");
  EXPECT_EQ(
      topology_error(kTiny, {"nic.mtus=1024"}),
      "--set nic.mtus=1024: nic.mtus: unknown key, did you mean \"mtu\"? (known: mtu, framing, "
      "data_dscp, data_priority, ack_dscp, ack_priority, ack_interval, local_ack_timeout, "
      "loss_recovery, sr_nak_delay, sr_window, nak_interval, max_inflight, dcqcn)");
  // The same in the explicit form.
  EXPECT_EQ(topology_error(kExplicit, {"nic.sr_window=100"}, kAsymmetric),
            "--set nic.sr_window=100: nic.sr_window: 100: must be a multiple of 64");
  // A bad value in the file is the file's, whatever a --set changed beside it.
  EXPECT_EQ(topology_error(std::string(kTiny) + "nic: {mtu: 1000}\n", {"nic.ack_interval=2"}),
            "t.yaml: nic.mtu: 1000: must be 256, 512, 1024, 2048 or 4096 (framing ethernet: the "
            "IB path MTUs)");
  // A key a --set value gives twice.
  EXPECT_EQ(topology_error(kTiny, {"nic.dcqcn={enabled: true, enabled: false}"}),
            "--set nic.dcqcn={enabled: true, enabled: false}: nic.dcqcn.enabled: duplicate key");
}

// ---- workloads ----

const Topology& fabric() {
  static const Topology t = load_topology_text(
      "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
      "link_delay: 1us\n",
      "f.yaml", ".");
  return t;
}

std::string workload_error(const std::string& text) {
  try {
    load_workload_text(text, "w.yaml", ".", fabric(), 1);
  } catch (const WorkloadError& e) {
    return e.what();
  }
  return "";
}

TEST(SimFileRules, AWorkloadKeyGivenTwiceIsRefused) {
  EXPECT_EQ(workload_error("flows:\n  - {src: h0, dst: h4, size: 1KB, size: 2KB}\n"),
            "w.yaml:2:35: flows[0].size: duplicate key");
  EXPECT_EQ(workload_error("type: poisson\ncdf: WebSearch\nload: 0.5\nload: 0.6\nduration: 1us\n"),
            "w.yaml:4:1: load: duplicate key");
}

TEST(SimFileRules, AWorkloadKeyOfAnotherFormGetsItsFormsNearestKey) {
  EXPECT_EQ(workload_error("flows:\n  - {src: h0, dst: h4, sise: 1KB}\n"),
            "w.yaml: flows[0].sise: unknown key, did you mean \"size\"? (known: src, dst, size, "
            "start, qp, sport, dscp)");
  EXPECT_EQ(workload_error("type: poisson\ncdf: WebSearch\nload: 0.5\nduraton: 1ms\n"),
            "w.yaml: duraton: unknown key, did you mean \"duration\"? (known: type, cdf, load, "
            "load_of, duration, pairs, max_flows)");
  EXPECT_EQ(workload_error("type: incast\nreciever: h0\nsenders: 2\nsize: 1KB\n"),
            "w.yaml: reciever: unknown key, did you mean \"receiver\"? (known: type, receiver, "
            "senders, size, start, repeat, interval, max_flows)");
  EXPECT_EQ(workload_error("type: all_to_all\nhosts: all\nsize: 1KB\nphase: 2\n"),
            "w.yaml: phase: unknown key, did you mean \"phases\"? (known: type, hosts, size, "
            "phases, gap, start, max_flows)");
  EXPECT_EQ(workload_error("type: incst\n"),
            "w.yaml: type: \"incst\": did you mean \"incast\"? must be one of poisson, incast, "
            "all_to_all");
}

TEST(SimFileRules, AWorkloadIsUtf8AndTakesHex) {
  EXPECT_EQ(workload_error("flows:\n  - {src: h\xe2\x82, dst: h4, size: 1KB}\n"),
            "w.yaml: flows[0].src: the value is not UTF-8 text (byte 0xe2 at offset 1): a "
            "workload is UTF-8");
  EXPECT_EQ(workload_error("type: incast\nreceiver: h0\nsenders: 2\nsize: 1KB\nrepeat: 0x2\n"
                           "interval: 1us\nmax_flows: 0x10\n"),
            "");
  EXPECT_EQ(workload_error("type: incast\nreceiver: h0\nsenders: 0x9\nsize: 1KB\n"),
            "w.yaml: senders: 0x9: must be an integer 1..7");
}

}  // namespace
}  // namespace rocelb
