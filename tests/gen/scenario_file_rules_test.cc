// A scenario holds to the rules of every rocelb file (control/key_reader.h):
// integers decimal or 0x hex, UTF-8, no key twice, an unknown key gets the
// nearest known one; and its key table (scenario_schema()) agrees with its
// reader (tests/fabric/schema_agreement.h).
#include <gtest/gtest.h>

#include "gen_test_util.h"
#include "tests/fabric/schema_agreement.h"
#include "tools/gen/scenario.h"

namespace rocelb {
namespace {

using test::load_scenario;
using test::scenario_error;

const std::string kFlow = "flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n";

TEST(ScenarioFileRules, AKeyGivenTwiceIsRefused) {
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, rate: 1G, "
                           "rate: 2G}\n"),
            "scenario.yaml:2:58: flows[0].rate: duplicate key");
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 1, count: 2, count: 3}\n"),
            "scenario.yaml:4:28: pfc[0].count: duplicate key");
}

TEST(ScenarioFileRules, AnUnknownKeyGetsTheNearestKnownOne) {
  EXPECT_EQ(scenario_error("seeds: 5\n" + kFlow),
            "scenario.yaml: seeds: unknown key, did you mean \"seed\"? (known: base_time, seed, "
            "flows, pfc)");
  EXPECT_EQ(scenario_error("flows:\n  - {in_port: 0, src: 10.0.0.2, dst: 10.2.0.2, rat: 1G}\n")
                .rfind("scenario.yaml: flows[0].rat: unknown key, did you mean \"rate\"? (known: "
                       "name, in_port, ",
                       0),
            0u);
  EXPECT_EQ(scenario_error(kFlow + "pfc:\n  - {in_port: 1, quantum: 5}\n"),
            "scenario.yaml: pfc[0].quantum: unknown key, did you mean \"quanta\"? (known: name, "
            "in_port, priorities, quanta, start, interval, count)");
}

TEST(ScenarioFileRules, EveryKeyAndValueIsUtf8) {
  EXPECT_EQ(scenario_error("flows:\n  - {name: h\xff, in_port: 0, src: 10.0.0.2, dst: 10.2.0.2}\n"),
            "scenario.yaml: flows[0].name: the value is not UTF-8 text (byte 0xff at offset 1): a "
            "scenario is UTF-8");
  EXPECT_EQ(scenario_error("se\xc0\xaf"
                           "ed: 1\n" +
                           kFlow),
            "scenario.yaml: a key is not UTF-8 text (byte 0xc0 at offset 2): a scenario is UTF-8");
}

TEST(ScenarioFileRules, IntegersAreDecimalOrHex) {
  const ScenarioParams sc = load_scenario(
      "seed: 0x10\nflows:\n  - {in_port: 0x1, src: 10.0.1.2, dst: 10.2.0.2, dscp: 0x1a, "
      "mtu: 0x800, copies: 0x2, sport: 0xc000}\n"
      "pfc:\n  - {in_port: 0x2, priorities: [0x3, 0x5], quanta: 0xffff}\n");
  EXPECT_EQ(sc.seed, 16u);
  EXPECT_EQ(sc.flows[0].in_port, 1);
  EXPECT_EQ(sc.flows[0].dscp, 26);
  EXPECT_EQ(sc.flows[0].mtu, 2048u);
  EXPECT_EQ(sc.flows[0].copies, 2u);
  EXPECT_EQ(sc.flows[0].sport, 49152);
  EXPECT_EQ(sc.pfc[0].class_enable, (1u << 3) | (1u << 5));
  EXPECT_EQ(sc.pfc[0].quanta, 65535);
}

TEST(ScenarioFileRules, TheTableAndTheReaderAgree) {
  EXPECT_EQ(test::expect_table_and_reader_agree(
                scenario_schema(), kFlow + "pfc:\n  - {in_port: 1, priorities: [3]}\n",
                [](const std::string& text) { return scenario_error(text); }),
            34u);
}

}  // namespace
}  // namespace rocelb
