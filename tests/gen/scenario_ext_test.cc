// The scenario schema's additions for the presets: 802.1Q VLAN IDs, RDMA
// READ requests and responses, PFC frame sources (parsed back with the
// switch's own PFC decoder), their validation errors (naming the key path),
// and the YAML writer's round trip.
#include <gtest/gtest.h>

#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/parser.h"
#include "gen_test_util.h"
#include "pfc/pfc_frame.h"
#include "tools/gen/generator.h"
#include "tools/gen/scenario.h"
#include "tools/gen/scenario_yaml.h"

namespace rocelb {
namespace {

using test::default_config;

using test::load_scenario;
using test::scenario_error;

const std::string kFlow = "flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n";

TEST(ScenarioExt, VlanTagsFramesWithVidAndPcp) {
  ScenarioParams sc = load_scenario(
      "flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, vlan: 200, message: 100}\n"
      "  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, vlan: 300, pcp: 5, message: 100}\n");
  auto pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 2u);
  ParsedPacket a, b;
  ASSERT_EQ(parse_frame(pkts[0].frame.data(), uint32_t(pkts[0].frame.size()),
                        uint32_t(pkts[0].frame.size()), a),
            ParseResult::ok);
  ASSERT_EQ(parse_frame(pkts[1].frame.data(), uint32_t(pkts[1].frame.size()),
                        uint32_t(pkts[1].frame.size()), b),
            ParseResult::ok);
  EXPECT_EQ(a.num_vlans, 1);
  EXPECT_EQ(a.vid, 200);
  EXPECT_EQ(a.pcp, 0);
  EXPECT_EQ(b.vid, 300);
  EXPECT_EQ(b.pcp, 5);
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, vlan: 4095}\n"),
            "scenario.yaml: flows[0].vlan: 4095: must be an integer 0..4094");
}

TEST(ScenarioExt, ReadRequestIsOnePacketWithTheDmaLength) {
  ScenarioParams sc = load_scenario(
      "flows:\n  - {in_port: 4, src: 10.3.0.2, dst: 10.0.0.2, op: read_request, message: 64KiB,"
      " messages: 2, psn: 10}\n");
  EXPECT_EQ(sc.flows[0].packets(), 2u);
  auto pkts = generate_port(sc, 4);
  ASSERT_EQ(pkts.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    ParsedPacket p;
    const auto n = uint32_t(pkts[i].frame.size());
    ASSERT_EQ(parse_frame(pkts[i].frame.data(), n, n, p), ParseResult::ok);
    EXPECT_EQ(p.bth_opcode, kRoceOpRcReadRequest);
    EXPECT_EQ(p.bth_psn, 10 + i);
    EXPECT_FALSE(p.bth_ack_req);
  }
}

TEST(ScenarioExt, ReadResponseOpcodes) {
  ScenarioParams sc = load_scenario(
      "flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.3.0.2, op: read_response, message: 3000,"
      " mtu: 1024}\n  - {in_port: 0, src: 10.0.0.2, dst: 10.3.0.2, op: read_response, "
      "message: 10, start: 1ms}\n");
  auto pkts = generate_port(sc, 0);
  ASSERT_EQ(pkts.size(), 4u);
  const uint8_t expect[] = {kRoceOpRcReadResponseFirst, kRoceOpRcReadResponseMiddle,
                            kRoceOpRcReadResponseLast, kRoceOpRcReadResponseOnly};
  for (size_t i = 0; i < 4; ++i) {
    ParsedPacket p;
    const auto n = uint32_t(pkts[i].frame.size());
    ASSERT_EQ(parse_frame(pkts[i].frame.data(), n, n, p), ParseResult::ok);
    EXPECT_EQ(p.bth_opcode, expect[i]) << i;
    EXPECT_FALSE(p.bth_ack_req);
  }
}

TEST(ScenarioExt, PfcSourcesParseWithTheSwitchsDecoder) {
  ScenarioParams sc =
      load_scenario(kFlow +
                    "pfc:\n  - {name: storm, in_port: 3, priorities: [3, 4], quanta: 1000,"
                    " start: 1us, interval: 10us, count: 5}\n");
  ASSERT_EQ(sc.pfc.size(), 1u);
  EXPECT_EQ(sc.ports(), (std::vector<uint16_t>{0, 3}));
  EXPECT_EQ(sc.total_packets(), 64u + 5u);
  auto pkts = generate_port(sc, 3);
  ASSERT_EQ(pkts.size(), 5u);
  for (size_t i = 0; i < pkts.size(); ++i) {
    EXPECT_EQ(pkts[i].t_ns, 1000 + 10000 * i);
    EXPECT_EQ(pkts[i].flow, sc.flows.size());
    PfcFrame f;
    ASSERT_EQ(decode_pfc(pkts[i].frame.data(), pkts[i].frame.size(), f), PfcDecodeResult::kOk);
    EXPECT_EQ(f.class_enable, (1u << 3) | (1u << 4));
    EXPECT_EQ(f.quanta[3], 1000);
    EXPECT_EQ(f.quanta[4], 1000);
    EXPECT_EQ(f.quanta[0], 0);
    EXPECT_EQ(to_string(MacAddr{f.src_mac}), "02:00:00:00:01:03");  // host3's NIC
  }
}

TEST(ScenarioExt, PfcRules) {
  EXPECT_EQ(scenario_error(kFlow + "pfc: {a: 1}\n"),
            "scenario.yaml: pfc: expected a list, found a map");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {count: 2}\n"),
            "scenario.yaml: pfc[0]: missing required key \"in_port\"");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, opcode: 1}\n"),
            "scenario.yaml: pfc[0].opcode: unknown key (known: name, in_port, priorities, quanta, "
            "start, interval, count)");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, priorities: [8]}\n"),
            "scenario.yaml: pfc[0].priorities[0]: 8: must be an integer 0..7");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, priorities: [3, 3]}\n"),
            "scenario.yaml: pfc[0].priorities[1]: 3: duplicate priority");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, priorities: []}\n")
                .rfind("scenario.yaml: pfc[0].priorities: expected a non-empty list", 0),
            0u);
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, quanta: 65536}\n"),
            "scenario.yaml: pfc[0].quanta: 65536: must be an integer 0..65535 (512 bit times)");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, interval: 0}\n"),
            "scenario.yaml: pfc[0].interval: 0: must be a duration 1ns .. 2592000s");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 3, count: 0}\n"),
            "scenario.yaml: pfc[0].count: 0: must be an integer 1..10000000");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 9}\n"),
            "scenario.yaml: pfc[0].in_port: 9: not a port of the switch (its ports: 0, 1, 2, 3, "
            "4, 5, 6, 7)");
}

TEST(ScenarioExt, YamlWriterRoundTrips) {
  const std::string text =
      "seed: 7\nflows:\n"
      "  - {name: a, in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, sport: random, dest_qp: 0x123,"
      " op: send, message: 1536, messages: 3, gap: 1500ns, mtu: 512, rate: 25G, start: 2ms,"
      " dscp: 10, ecn: ce, pcp: 2, vlan: 7, psn: 99, copies: 2}\n"
      "  - {in_port: 4, src: 10.3.0.2, dst: 10.0.0.2, op: read_request, message: 1MiB}\n"
      "pfc:\n  - {in_port: 3, priorities: [0, 7], quanta: 0, interval: 1ms, count: 3}\n";
  ScenarioParams a = load_scenario(text);
  const std::string yaml = scenario_to_yaml(a, "hello\n\nworld");
  EXPECT_EQ(yaml.rfind("# hello\n#\n# world\n", 0), 0u) << yaml;
  ScenarioParams b = load_scenario(yaml);
  EXPECT_EQ(scenario_to_yaml(b, ""), scenario_to_yaml(a, ""));
  for (uint16_t port : a.ports()) {
    auto pa = generate_port(a, port), pb = generate_port(b, port);
    ASSERT_EQ(pa.size(), pb.size());
    for (size_t i = 0; i < pa.size(); ++i) {
      EXPECT_EQ(pa[i].frame, pb[i].frame);
      EXPECT_EQ(pa[i].t_ns, pb[i].t_ns);
    }
  }
  EXPECT_EQ(yaml_bytes(1 << 20), "1MiB");
  EXPECT_EQ(yaml_bytes(3072), "3KiB");
  EXPECT_EQ(yaml_bytes(1000), "1000");
  EXPECT_EQ(yaml_duration(0), "0");
  EXPECT_EQ(yaml_duration(2'000'000), "2ms");
  EXPECT_EQ(yaml_duration(1500), "1500ns");
}

}  // namespace
}  // namespace rocelb
