// Scenario loading: defaults, resolution against the switch config, the
// random source port, and one test per validation rule.
#include <gtest/gtest.h>

#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "gen_test_util.h"
#include "tools/gen/scenario.h"

namespace rocelb {
namespace {

using test::default_config;

using test::load_scenario;
using test::scenario_error;

// A one-flow scenario whose flow has `extra` appended (flow-style keys).
std::string one_flow(const std::string& extra = "") {
  return "flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2" +
         (extra.empty() ? "" : ", " + extra) + "}\n";
}

// The error for one flow key, with the prefix the message must start with.
void expect_flow_error(const std::string& extra, const std::string& expected) {
  std::string msg = scenario_error(one_flow(extra));
  EXPECT_EQ(msg.rfind(expected, 0), 0u) << "extra: " << extra << "\nmessage: " << msg;
}

TEST(Scenario, DefaultsAndResolvedMacs) {
  ScenarioParams sc = load_scenario(one_flow());
  EXPECT_EQ(sc.source, "scenario.yaml");
  EXPECT_EQ(sc.base_time_ns, 1767225600ull * 1000000000ull);
  EXPECT_EQ(sc.seed, 1u);
  ASSERT_EQ(sc.flows.size(), 1u);
  const FlowParams& f = sc.flows[0];
  EXPECT_EQ(f.name, "flow0");
  EXPECT_EQ(f.in_port, 0);
  EXPECT_EQ(f.sport, 49152);
  EXPECT_EQ(f.dest_qp, 0x11u);
  EXPECT_EQ(f.dscp, 26);
  EXPECT_EQ(f.ecn, 2);  // ECT(0)
  EXPECT_FALSE(f.pcp.has_value());
  EXPECT_EQ(f.op, RoceOp::kWrite);
  EXPECT_EQ(f.message_bytes, 65536u);
  EXPECT_EQ(f.messages, 1u);
  EXPECT_EQ(f.mtu, 1024u);
  EXPECT_EQ(f.rate_bps, 100'000'000'000ull);
  EXPECT_EQ(f.start_ns, 0u);
  EXPECT_EQ(f.gap_ns, 0u);
  EXPECT_EQ(f.copies, 1u);
  EXPECT_EQ(f.psn, 0u);
  // dst MAC: switch port 0; src MAC: the configured neighbor 10.0.0.2 on port 0.
  EXPECT_EQ(to_string(f.dst_mac), "02:00:00:00:00:00");
  EXPECT_EQ(to_string(f.src_mac), "02:00:00:00:01:00");
  EXPECT_EQ(sc.ports(), std::vector<uint16_t>{0});
  EXPECT_EQ(sc.total_packets(), 64u);
}

TEST(Scenario, AllKeys) {
  ScenarioParams sc = load_scenario(
      "base_time: 10s\n"
      "seed: 0x5eed\n"
      "flows:\n"
      "  - name: h1-qp1\n"
      "    in_port: 1\n"
      "    src: fd00:0:1::2\n"
      "    dst: fd00:9::2\n"
      "    sport: 50000\n"
      "    dest_qp: 0x123456\n"
      "    src_qp: 0x21\n"
      "    dscp: 10\n"
      "    ecn: ce\n"
      "    pcp: 5\n"
      "    op: send\n"
      "    message: 1.5MB\n"
      "    messages: 3\n"
      "    mtu: 4096\n"
      "    rate: 25G\n"
      "    start: 1.5us\n"
      "    gap: 2ms\n"
      "    copies: 4\n"
      "    psn: 0xfffff0\n");
  EXPECT_EQ(sc.base_time_ns, 10'000'000'000ull);
  EXPECT_EQ(sc.seed, 0x5eedu);
  const FlowParams& f = sc.flows[0];
  EXPECT_EQ(f.name, "h1-qp1");
  EXPECT_EQ(f.in_port, 1);
  EXPECT_TRUE(f.src.is_v6());
  EXPECT_EQ(f.sport, 50000);
  EXPECT_EQ(f.dest_qp, 0x123456u);
  EXPECT_EQ(f.src_qp, 0x21u);
  EXPECT_EQ(f.dscp, 10);
  EXPECT_EQ(f.ecn, 3);
  EXPECT_EQ(f.pcp, std::optional<uint8_t>(5));
  EXPECT_EQ(f.op, RoceOp::kSend);
  EXPECT_EQ(f.message_bytes, 1'500'000u);
  EXPECT_EQ(f.messages, 3u);
  EXPECT_EQ(f.mtu, 4096u);
  EXPECT_EQ(f.rate_bps, 25'000'000'000ull);
  EXPECT_EQ(f.start_ns, 1500u);
  EXPECT_EQ(f.gap_ns, 2'000'000u);
  EXPECT_EQ(f.copies, 4u);
  EXPECT_EQ(f.psn, 0xfffff0u);
  EXPECT_EQ(to_string(f.dst_mac), "02:00:00:00:00:01");
  EXPECT_EQ(to_string(f.src_mac), "02:00:00:00:01:01");  // IPv6 neighbor on port 1
  EXPECT_EQ(f.packets_per_message(), 367u);              // ceil(1500000 / 4096)
  EXPECT_EQ(sc.total_packets(), 367u * 3 * 4);
}

TEST(Scenario, SourceMacFallsBackWithoutNeighborOnThatPort) {
  // 10.9.9.9 is no neighbor; 10.0.0.2 is one, but on port 0, not port 5.
  ScenarioParams sc = load_scenario(
      "flows:\n"
      "  - {in_port: 5, src: 10.9.9.9, dst: 10.0.0.2}\n"
      "  - {in_port: 5, src: 10.0.0.2, dst: 10.0.1.2}\n");
  EXPECT_EQ(to_string(sc.flows[0].src_mac), "02:00:00:00:ff:05");
  EXPECT_EQ(to_string(sc.flows[1].src_mac), "02:00:00:00:ff:05");
  EXPECT_EQ(to_string(sc.flows[0].dst_mac), "02:00:00:00:00:05");
}

TEST(Scenario, PortsListsEachPortWithTrafficOnce) {
  ScenarioParams sc = load_scenario(
      "flows:\n"
      "  - {in_port: 3, src: 10.0.3.2, dst: 10.2.0.2}\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n"
      "  - {in_port: 3, src: 10.0.3.2, dst: 10.2.0.3}\n");
  EXPECT_EQ(sc.ports(), (std::vector<uint16_t>{0, 3}));
}

TEST(Scenario, RandomSportIsSeededAndLeavesRoomForCopies) {
  const std::string text =
      "seed: 7\n"
      "flows:\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, sport: random, copies: 16}\n"
      "  - {in_port: 1, src: 10.0.1.2, dst: 10.2.0.2, sport: random}\n";
  ScenarioParams a = load_scenario(text);
  ScenarioParams b = load_scenario(text);
  EXPECT_EQ(a.flows[0].sport, b.flows[0].sport);
  EXPECT_EQ(a.flows[1].sport, b.flows[1].sport);
  EXPECT_GE(a.flows[0].sport, 49152);
  EXPECT_LE(a.flows[0].sport + 15, 65535);
  EXPECT_GE(a.flows[1].sport, 49152);

  // --seed replaces the scenario's seed: different draws (for these seeds).
  bool differs = false;
  for (uint64_t s = 100; s < 104 && !differs; ++s)
    differs = load_scenario(text, s).flows[1].sport != a.flows[1].sport;
  EXPECT_TRUE(differs);
  EXPECT_EQ(load_scenario(text, 7).flows[1].sport, a.flows[1].sport);
  EXPECT_EQ(load_scenario(text, 42).seed, 42u);
}

TEST(Scenario, ExactMessages) {
  EXPECT_EQ(scenario_error("flows:\n"
                           "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n"
                           "  - {in_port: 1, src: 10.0.1.2, dst: 10.2.0.2, rate: 12X}\n"),
            "scenario.yaml: flows[1].rate: \"12X\": not a speed (expected e.g. 100G, 25Gbps, "
            "800M or an integer in bits/s)");
  EXPECT_EQ(scenario_error(one_flow("mtu: 1500")),
            "scenario.yaml: flows[0].mtu: 1500: must be 256, 512, 1024, 2048 or 4096");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 9, src: 10.0.0.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].in_port: 9: not a port of the switch (its ports: 0, 1, 2, "
            "3, 4, 5, 6, 7)");
  EXPECT_EQ(scenario_error(one_flow("colour: red")),
            "scenario.yaml: flows[0].colour: unknown key (known: name, in_port, src, dst, sport, "
            "dest_qp, src_qp, dscp, ecn, pcp, vlan, op, message, messages, mtu, rate, start, gap, "
            "copies, psn)");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: \"fd00::2\"}\n"),
            "scenario.yaml: flows[0].dst: \"fd00::2\": must be IPv4 like src 10.0.0.2");
  EXPECT_EQ(scenario_error(one_flow("message: 0")),
            "scenario.yaml: flows[0].message: 0: must be a byte size 1B .. 2GiB");
}

TEST(ScenarioRules, TopLevel) {
  EXPECT_EQ(scenario_error(""), "scenario.yaml: missing required key \"flows\"");
  EXPECT_EQ(scenario_error("flows: []\n"), "scenario.yaml: flows: must list at least one flow");
  EXPECT_EQ(scenario_error("flows: {a: 1}\n"),
            "scenario.yaml: flows: expected a non-empty list, found a map");
  EXPECT_EQ(scenario_error("- 1\n"),
            "scenario.yaml: expected a map at the top level, found a list");
  EXPECT_EQ(scenario_error("rate: 1G\n" + one_flow()),
            "scenario.yaml: rate: unknown key (known: base_time, seed, flows, pfc)");
  EXPECT_EQ(scenario_error("seed: -1\n" + one_flow()),
            "scenario.yaml: seed: -1: must be an integer 0..18446744073709551615");
  EXPECT_EQ(scenario_error("base_time: 5\n" + one_flow()),
            "scenario.yaml: base_time: 5: not a duration (expected a number with unit ns, us, ms "
            "or s, e.g. 256us)");
  EXPECT_EQ(scenario_error("base_time: 5000000000s\n" + one_flow()),
            "scenario.yaml: base_time: \"5000000000s\": must be a duration 0ns .. 4000000000s");
  EXPECT_EQ(scenario_error("seed: 1\nseed: 2\n" + one_flow()).find("scenario.yaml"), 0u);
}

TEST(ScenarioRules, YamlSyntaxAndFiles) {
  std::string msg = scenario_error("flows: [\n");
  EXPECT_EQ(msg.rfind("scenario.yaml:", 0), 0u) << msg;
  EXPECT_NE(msg.find("invalid YAML"), std::string::npos) << msg;
  EXPECT_EQ(scenario_error("a: 1\n---\nb: 2\n"),
            "scenario.yaml: expected one YAML document, found more (separated by ---)");
  try {
    load_scenario_file("/nonexistent/x.yaml", default_config());
    FAIL() << "no error";
  } catch (const ScenarioError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot read scenario file \"/nonexistent/x.yaml\"", 0),
              0u)
        << e.what();
  }
}

TEST(ScenarioRules, FlowEntryShape) {
  EXPECT_EQ(scenario_error("flows: [5]\n"), "scenario.yaml: flows[0]: 5: expected a map");
  EXPECT_EQ(scenario_error("flows:\n  - {src: 10.0.0.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0]: missing required key \"in_port\"");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0]: missing required key \"src\"");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2}\n"),
            "scenario.yaml: flows[0]: missing required key \"dst\"");
  EXPECT_EQ(
      scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, dst: 10.2.0.3}\n")
          .find("scenario.yaml:"),
      0u);
}

TEST(ScenarioRules, InPort) {
  expect_flow_error("", "");  // baseline loads
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 256, src: 10.0.0.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].in_port: 256: must be an integer 0..255");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: x, src: 10.0.0.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].in_port: \"x\": must be an integer 0..255");
}

TEST(ScenarioRules, Addresses) {
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.300, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].src: \"10.0.0.300\": not an IP address");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: \"fd00::2\", dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].dst: \"10.2.0.2\": must be IPv6 like src fd00::2");
}

TEST(ScenarioRules, Name) {
  expect_flow_error("name: \"a b\"",
                    "scenario.yaml: flows[0].name: \"a b\": must match [A-Za-z0-9_.-]+");
  EXPECT_EQ(scenario_error("flows:\n"
                           "  - {name: x, in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n"
                           "  - {name: x, in_port: 1, src: 10.0.1.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[1].name: \"x\": duplicate flow name (also flows[0])");
  // A default name never clashes.
  EXPECT_EQ(scenario_error("flows:\n"
                           "  - {name: flow1, in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n"
                           "  - {in_port: 1, src: 10.0.1.2, dst: 10.2.0.2}\n"),
            "");
}

TEST(ScenarioRules, Sport) {
  expect_flow_error("sport: 0",
                    "scenario.yaml: flows[0].sport: 0: must be random or an integer 1..65535");
  expect_flow_error("sport: 70000",
                    "scenario.yaml: flows[0].sport: 70000: must be random or an integer");
  expect_flow_error("sport: rand",
                    "scenario.yaml: flows[0].sport: \"rand\": must be random or an integer");
  expect_flow_error("sport: 65530, copies: 8",
                    "scenario.yaml: flows[0].sport: 65530: with copies: 8 the last copy's sport "
                    "65537 would exceed 65535");
}

TEST(ScenarioRules, QueuePairs) {
  expect_flow_error("dest_qp: 0x1000000",
                    "scenario.yaml: flows[0].dest_qp: 0x1000000: must be an integer 2..16777215");
  expect_flow_error("dest_qp: 1", "scenario.yaml: flows[0].dest_qp: 1: must be an integer 2..");
  expect_flow_error("dest_qp: 0xfffffe, copies: 3",
                    "scenario.yaml: flows[0].dest_qp: 0xfffffe: with copies: 3 the last copy's QP "
                    "would exceed 0xffffff");
  expect_flow_error("src_qp: 0x1000000",
                    "scenario.yaml: flows[0].src_qp: 0x1000000: must be an integer 0..");
}

TEST(ScenarioRules, Marking) {
  expect_flow_error("dscp: 64", "scenario.yaml: flows[0].dscp: 64: must be an integer 0..63");
  expect_flow_error(
      "ecn: ect2",
      "scenario.yaml: flows[0].ecn: \"ect2\": did you mean \"ect0\"? must be one of not_ect, ect0, "
      "ect1, ce");
  expect_flow_error("pcp: 8", "scenario.yaml: flows[0].pcp: 8: must be an integer 0..7");
}

TEST(ScenarioRules, Operation) {
  expect_flow_error("op: read",
                    "scenario.yaml: flows[0].op: \"read\": must be one of write, send, "
                    "read_request, read_response");
}

TEST(ScenarioRules, MessageSize) {
  expect_flow_error("message: 3GB",
                    "scenario.yaml: flows[0].message: \"3GB\": must be a byte size 1B .. 2GiB");
  expect_flow_error("message: 4XB", "scenario.yaml: flows[0].message: \"4XB\": not a byte size");
  expect_flow_error("message: 2GiB", "");  // 2^31 is allowed
}

TEST(ScenarioRules, Messages) {
  expect_flow_error("messages: 0",
                    "scenario.yaml: flows[0].messages: 0: must be an integer 1..1000000");
}

TEST(ScenarioRules, Mtu) {
  expect_flow_error("mtu: 1KiB",
                    "scenario.yaml: flows[0].mtu: \"1KiB\": must be an integer 256..4096");
  for (const char* ok : {"256", "512", "1024", "2048", "4096"})
    expect_flow_error(std::string("mtu: ") + ok, "");
}

TEST(ScenarioRules, Rate) {
  expect_flow_error("rate: 0", "scenario.yaml: flows[0].rate: 0: must be a speed 1M .. 1.6T");
  expect_flow_error("rate: 1.7T",
                    "scenario.yaml: flows[0].rate: \"1.7T\": must be a speed 1M .. 1.6T");
  expect_flow_error("rate: 1.6T", "");
}

TEST(ScenarioRules, Times) {
  expect_flow_error("start: 5", "scenario.yaml: flows[0].start: 5: not a duration");
  expect_flow_error("gap: 1.5ns",
                    "scenario.yaml: flows[0].gap: \"1.5ns\": not a whole number of nanoseconds");
  expect_flow_error("start: 31d", "scenario.yaml: flows[0].start: \"31d\": not a duration");
  expect_flow_error("start: 2600000s",
                    "scenario.yaml: flows[0].start: \"2600000s\": must be a duration 0ns .. "
                    "2592000s");
  expect_flow_error("start: 2591999s, rate: 1M, message: 1MB",
                    "scenario.yaml: flows[0]: the flow would last until t=2592007.");
  expect_flow_error("rate: 1M, message: 1GB, messages: 1000",
                    "scenario.yaml: flows[0]: the flow would last until t=");
}

TEST(ScenarioRules, Copies) {
  expect_flow_error("copies: 0", "scenario.yaml: flows[0].copies: 0: must be an integer 1..4096");
  expect_flow_error("copies: 5000",
                    "scenario.yaml: flows[0].copies: 5000: must be an integer 1..4096");
}

TEST(ScenarioRules, Psn) {
  expect_flow_error("psn: 0x1000000",
                    "scenario.yaml: flows[0].psn: 0x1000000: must be an integer 0..16777215");
}

TEST(ScenarioRules, TotalPackets) {
  // 2 GiB at mtu 256 is 8388608 packets; 12 copies exceed 100 M.
  EXPECT_EQ(
      scenario_error("flows:\n"
                     "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, message: 2GiB, mtu: 256, "
                     "copies: 12, rate: 1.6T}\n"),
      "scenario.yaml: flows: the scenario would produce 100663296 packets (at most "
      "100000000)");
}

}  // namespace
}  // namespace rocelb
