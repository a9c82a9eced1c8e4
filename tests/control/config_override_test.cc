// "--set KEY.PATH=VALUE" overrides: how they change the document, their
// syntax errors, and that validation errors they cause name the override.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <chrono>

#include "control/config_loader.h"
#include "tests/control/config_test_util.h"

namespace rocelb {
namespace {

using test::Doc;
using test::error_of;
using test::load;

const char* kTopKeys = "(known: switch, control, limits, ports, neighbors, groups, routes, qos)";

TEST(ConfigOverride, ScalarInAListItem) {
  ConfigParams c = load(Doc().text(), {"ports[0].speed=25G"});
  EXPECT_EQ(c.ports[0].speed_bps, 25'000'000'000u);
  EXPECT_EQ(c.ports[1].speed_bps, 100'000'000'000u);
}

TEST(ConfigOverride, AParsedDocumentLoadsLikeItsTextAndIsLeftAsItWas) {
  const std::string text = Doc().text();
  const YAML::Node document = YAML::Load(text);
  const std::string before = YAML::Dump(document);
  ConfigParams c = load_config_node(document, "x.yaml", {"ports[0].speed=25G", "switch.name=s9"});
  EXPECT_EQ(c.ports[0].speed_bps, 25'000'000'000u);
  EXPECT_EQ(c.sw.name, "s9");
  EXPECT_EQ(YAML::Dump(document), before);  // the overrides went to a copy
  ConfigParams again = load_config_node(document, "x.yaml");
  EXPECT_EQ(again.ports[0].speed_bps, load(text).ports[0].speed_bps);
  EXPECT_EQ(again.sw.name, load(text).sw.name);
  try {
    load_config_node(document, "x.yaml", {"ports[0].speed=fast"});
    ADD_FAILURE() << "a bad override loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("ports[0].speed"), std::string::npos) << e.what();
  }
}

TEST(ConfigOverride, CreatesMissingKeysAndMaps) {
  // No switch or qos section in the file: both are created.
  ConfigParams c = load(Doc().text(), {"switch.name=spine9", "qos.dscp_to_tc.26=3",
                                       "qos.scheduler.strict=[6,7]", "ports[1].name=up0"});
  EXPECT_EQ(c.sw.name, "spine9");
  EXPECT_EQ(c.qos.dscp_to_tc[26], 3);
  EXPECT_EQ(c.qos.dscp_to_tc[25], 0);
  EXPECT_TRUE(c.qos.scheduler.strict[6]);
  EXPECT_TRUE(c.qos.scheduler.strict[7]);
  EXPECT_FALSE(c.qos.scheduler.strict[5]);
  EXPECT_EQ(c.ports[1].name, "up0");
}

TEST(ConfigOverride, ReplacesExistingMapEntry) {
  Doc d;
  d.qos = "qos: {dscp_to_tc: {26: 3, 48: 6}, trust: dscp}\n";
  ConfigParams c = load(d.text(), {"qos.dscp_to_tc.26=5", "qos.trust=pcp"});
  EXPECT_EQ(c.qos.dscp_to_tc[26], 5);
  EXPECT_EQ(c.qos.dscp_to_tc[48], 6);
  EXPECT_EQ(c.qos.trust, Trust::kPcp);
}

TEST(ConfigOverride, PfcEnable) {
  EXPECT_EQ(load(Doc().text()).qos.lossless.pfc.enable_mask, 1u << 3);
  EXPECT_EQ(load(Doc().text(), {"qos.pfc_enable=[3,4]"}).qos.lossless.pfc.enable_mask,
            (1u << 3) | (1u << 4));
  EXPECT_EQ(load(Doc().text(), {"qos.pfc_enable=[]"}).qos.lossless.pfc.enable_mask, 0u);
  Doc d;
  d.qos = "qos: {pfc_enable: [3], pfc: {xoff: 1MB, xon: 500KB}}\n";
  ConfigParams c =
      load(d.text(), {"qos.pfc_enable=[]", "qos.pfc.xoff=2MB", "qos.wred.3.green_min_threshold=1KB",
                      "qos.wred.3.green_max_threshold=2KB", "qos.pfc_watchdog.action=alert"});
  const LosslessParams& l = c.qos.lossless;
  EXPECT_EQ(l.pfc.enable_mask, 0u);
  EXPECT_EQ(l.pfc.xoff_bytes, 2'000'000u);
  EXPECT_EQ(l.pfc.xon_bytes, 500'000u);
  EXPECT_TRUE(l.wred[3].enabled);
  EXPECT_EQ(l.wred[3].min_bytes, 1000u);
  EXPECT_EQ(l.wred[3].max_bytes, 2000u);
  EXPECT_EQ(l.watchdog.action, WatchdogAction::kAlert);
}

TEST(ConfigOverride, GroupModeAndMembers) {
  ConfigParams c = load(Doc().text(), {"groups.g.mode=fixed", "groups.g.members=[10.0.1.2]",
                                       "groups.g.hash_fields=[dest_qp]"});
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].mode, LbMode::kFixed);
  ASSERT_EQ(c.groups[0].members.size(), 1u);
  EXPECT_EQ(to_string(c.groups[0].members[0].via), "10.0.1.2");
  EXPECT_EQ(c.groups[0].hash_fields, uint32_t(kHashDestQp));
}

TEST(ConfigOverride, ValueIsYaml) {
  ConfigParams c = load(Doc().text(), {"switch={name: s1, hash_seed: 0x10}",
                                       "groups.h={members: [{via: 10.0.0.2, weight: 3}]}",
                                       "ports[0].device=net_null0", "ports[0].promiscuous=true"});
  EXPECT_EQ(c.sw.name, "s1");
  EXPECT_EQ(c.sw.hash_seed, 16u);
  ASSERT_NE(c.find_group("h"), nullptr);
  EXPECT_EQ(c.find_group("h")->members[0].weight, 3u);
  EXPECT_EQ(c.find_port(0)->device, "net_null0");
  EXPECT_TRUE(c.find_port(0)->promiscuous);
  // '=' after the first one belongs to the value.
  EXPECT_EQ(load(Doc().text(), {"ports[0].device=net_tap0,iface=rl0"}).find_port(0)->device,
            "net_tap0,iface=rl0");
}

TEST(ConfigOverride, NestedListIndex) {
  Doc d;
  d.groups = "groups:\n  g: {members: [10.0.0.2, {via: 10.0.1.2, weight: 2}]}\n";
  ConfigParams c = load(d.text(), {"groups.g.members[1].weight=9"});
  EXPECT_EQ(c.groups[0].members[1].weight, 9u);
  c = load(d.text(), {"groups.g.members[0]=\"fd00:0:1::2\""});
  EXPECT_EQ(to_string(c.groups[0].members[0].via), "fd00:0:1::2");
}

TEST(ConfigOverride, AppliedInOrder) {
  ConfigParams c = load(Doc().text(), {"ports[0].speed=25G", "ports[0].speed=400G"});
  EXPECT_EQ(c.ports[0].speed_bps, 400'000'000'000u);
}

TEST(ConfigOverride, OnAnEmptyDocument) {
  ConfigParams c = load("", {"ports=[{id: 2, speed: 10G, mac: \"02:00:00:00:00:02\"}]"});
  ASSERT_EQ(c.ports.size(), 1u);
  EXPECT_EQ(c.ports[0].id, 2);
}

TEST(ConfigOverride, IntoANullSection) {
  // "qos:" with nothing under it is null; an override makes it a map.
  ConfigParams c = load(Doc().text() + "qos:\n", {"qos.trust=pcp", "qos.default_tc=2"});
  EXPECT_EQ(c.qos.trust, Trust::kPcp);
  EXPECT_EQ(c.qos.default_tc, 2);
  EXPECT_EQ(c.qos.pcp_to_tc[5], 2);
}

TEST(ConfigOverride, EmptyValueIsNull) {
  // An empty VALUE is YAML null: an optional key set to null is as if absent.
  ConfigParams c = load(Doc().text(), {"ports[0].ipv6="});
  EXPECT_FALSE(c.find_port(0)->ipv6);
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].speed="}),
            "--set ports[0].speed=: ports[0].speed: expected a speed 1M .. 1.6T, found null");
}

TEST(ConfigOverride, OnAFile) {
  ConfigParams c = load_config_file(std::string(ROCELB_SOURCE_DIR) + "/configs/default.yaml",
                                    {"ports[0].speed=25G", "switch.hash_seed=7"});
  EXPECT_EQ(c.find_port(0)->speed_bps, 25'000'000'000u);
  EXPECT_EQ(c.sw.hash_seed, 7u);
}

// ---- malformed overrides ----------------------------------------------------

TEST(ConfigOverrideSyntax, MissingEquals) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].speed"}),
            "--set ports[0].speed: missing '=' (expected KEY.PATH=VALUE)");
}

TEST(ConfigOverrideSyntax, EmptyPath) {
  EXPECT_EQ(error_of(Doc().text(), {"=3"}), "--set =3: empty key path (expected KEY.PATH=VALUE)");
}

TEST(ConfigOverrideSyntax, EmptyKey) {
  const std::string rule = "empty key in path (expected KEY.PATH=VALUE, e.g. ports[0].speed=25G)";
  EXPECT_EQ(error_of(Doc().text(), {"qos..trust=pcp"}), "--set qos..trust=pcp: " + rule);
  EXPECT_EQ(error_of(Doc().text(), {".qos=1"}), "--set .qos=1: " + rule);
  EXPECT_EQ(error_of(Doc().text(), {"qos.=1"}), "--set qos.=1: " + rule);
  EXPECT_EQ(error_of(Doc().text(), {"[0].speed=1"}), "--set [0].speed=1: " + rule);
}

TEST(ConfigOverrideSyntax, BadIndex) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[x].speed=25G"}),
            "--set ports[x].speed=25G: bad list index \"[x]\" (expected [N], e.g. ports[0])");
  EXPECT_EQ(error_of(Doc().text(), {"ports[].speed=25G"}),
            "--set ports[].speed=25G: bad list index \"[]\" (expected [N], e.g. ports[0])");
  EXPECT_EQ(error_of(Doc().text(), {"ports[-1].speed=25G"}),
            "--set ports[-1].speed=25G: bad list index \"[-1]\" (expected [N], e.g. ports[0])");
  EXPECT_EQ(error_of(Doc().text(), {"ports[0.speed=25G"}),
            "--set ports[0.speed=25G: bad list index \"[0.speed\" (expected [N], e.g. ports[0])");
  EXPECT_EQ(error_of(Doc().text(), {"ports[0]speed=25G"}),
            "--set ports[0]speed=25G: unexpected \"s\" in key path");
  EXPECT_EQ(error_of(Doc().text(), {"ports]0.speed=25G"}),
            "--set ports]0.speed=25G: unexpected \"]\" in key path");
}

TEST(ConfigOverrideSyntax, ValueNotYaml) {
  EXPECT_EQ(error_of(Doc().text(), {"qos.scheduler.strict=[6,7"}),
            "--set qos.scheduler.strict=[6,7: VALUE is not valid YAML: end of sequence flow not "
            "found");
  EXPECT_EQ(error_of(Doc().text(), {"switch.name={a: 1"}),
            "--set switch.name={a: 1: VALUE is not valid YAML: end of map flow not found");
}

// A VALUE is bounded as a file is (control/yaml_document.h): nested aliases
// (a "billion laughs" in a few hundred bytes) stand for the nodes they name,
// and a VALUE over the limit is refused before anything walks it. Without
// the count the loader's checks walked 10^12 nodes.
TEST(ConfigOverrideSyntax, ValueOfNestedAliasesIsRefusedBeforeItIsWalked) {
  std::string laughs = "[&a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]";
  for (int i = 1; i < 12; ++i) {
    laughs += ", &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) laughs += (k ? ", *a" : "*a") + std::to_string(i - 1);
    laughs += "]";
  }
  laughs += "]";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string why = error_of(Doc().text(), {"routes=" + laughs});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
  EXPECT_EQ(why.rfind("--set routes=" + laughs + ": VALUE:1:", 0), 0u) << why;
  EXPECT_NE(why.find("more than 2000000 YAML nodes"), std::string::npos) << why;
  EXPECT_NE(why.find("the limit of one --set value"), std::string::npos) << why;
  // An alias inside the node it names never ends either.
  EXPECT_NE(
      error_of(Doc().text(), {"switch.name=&a [*a]"}).find("an alias inside the node it names"),
      std::string::npos);
  // Aliases within the bound are values like any other.
  EXPECT_EQ(load(Doc().text(), {"qos.dscp_to_tc={26: &c 3, 46: *c}"}).qos.dscp_to_tc[46], 3);
}

TEST(ConfigOverrideSyntax, IndexOutOfRange) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[9].speed=25G"}),
            "--set ports[9].speed=25G: ports[9]: index out of range (2 items)");
  EXPECT_EQ(error_of(Doc().text(), {"ports[2]={id: 2}"}),
            "--set ports[2]={id: 2}: ports[2]: index out of range (2 items)");
  EXPECT_EQ(error_of(Doc().text(), {"groups.g.members[5]=10.0.0.2"}),
            "--set groups.g.members[5]=10.0.0.2: groups.g.members[5]: index out of range (2 "
            "items)");
  EXPECT_EQ(
      error_of("ports: [{id: 0, speed: 1G, mac: \"02:00:00:00:00:01\"}]\n", {"ports[1].id=1"}),
      "--set ports[1].id=1: ports[1]: index out of range (1 item)");
}

TEST(ConfigOverrideSyntax, WrongNodeKindOnTheWay) {
  EXPECT_EQ(error_of(Doc().text(), {"ports.0.speed=25G"}),
            "--set ports.0.speed=25G: ports: expected a map, found a list (write ports[0] to "
            "index a list)");
  EXPECT_EQ(error_of(Doc().text(), {"ports.speed=25G"}),
            "--set ports.speed=25G: ports: expected a map, found a list");
  EXPECT_EQ(error_of(Doc().text(), {"groups[0].mode=fixed"}),
            "--set groups[0].mode=fixed: groups: expected a list, found a map");
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].speed.unit=G"}),
            "--set ports[0].speed.unit=G: ports[0].speed: \"100G\": expected a map");
  EXPECT_EQ(error_of(Doc().text(), {"qos[0]=1"}),
            "--set qos[0]=1: qos: expected a list, found an empty map");
}

// ---- validation errors caused by an override name it ------------------------

TEST(ConfigOverrideErrors, UnknownKeyIntroducedBySet) {
  EXPECT_EQ(error_of(Doc().text(), {"foo.bar=1"}),
            std::string("--set foo.bar=1: foo: unknown key ") + kTopKeys);
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].sped=25G"}),
            "--set ports[0].sped=25G: ports[0].sped: unknown key, did you mean \"speed\"? (known: "
            "id, name, speed, mac, ipv4, ipv6, device, promiscuous, admin_status, mtu, scheduler, "
            "xdp_steering, link_detect)");
}

TEST(ConfigOverrideErrors, PfcKeys) {
  EXPECT_EQ(error_of(Doc().text(), {"qos.pfc_enabled=[3,4]"}),
            "--set qos.pfc_enabled=[3,4]: qos.pfc_enabled: unknown key, did you mean "
            "\"pfc_enable\"? (known: trust, default_tc, dscp_to_tc, pcp_to_tc, scheduler, "
            "queue_limit, queue_limits, pfc_enable, pfc, buffer, wred, ecn_mark, pfc_watchdog)");
  EXPECT_EQ(error_of(Doc().text(), {"qos.pfc_enable=[3,8]"}),
            "--set qos.pfc_enable=[3,8]: qos.pfc_enable[1]: 8: must be an integer 0..7 (priority)");
  EXPECT_EQ(error_of(Doc().text(), {"qos.pfc.xon=2MB"}),
            "--set qos.pfc.xon=2MB: qos.pfc.xon: \"2MB\": xon must be below xoff (1.6MB, the "
            "default)");
}

TEST(ConfigOverrideErrors, BadValue) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].speed=2T"}),
            "--set ports[0].speed=2T: ports[0].speed: \"2T\": must be a speed 1M .. 1.6T");
  EXPECT_EQ(error_of(Doc().text(), {"groups.g.mode=ecmp"}),
            "--set groups.g.mode=ecmp: groups.g.mode: \"ecmp\": did you mean \"wcmp\"? must be one "
            "of fixed, wcmp, resilient, flowlet_random, flowlet_quality, per_packet_quality, "
            "per_packet_random, drill, bpf, conweave");
  EXPECT_EQ(error_of(Doc().text(), {"qos.dscp_to_tc.64=3"}),
            "--set qos.dscp_to_tc.64=3: qos.dscp_to_tc.64: DSCP must be an integer 0..63");
  EXPECT_EQ(error_of(Doc().text(), {"qos.scheduler.strict=[6,9]"}),
            "--set qos.scheduler.strict=[6,9]: qos.scheduler.strict[1]: 9: must be an integer 0..7 "
            "(traffic class)");
  EXPECT_EQ(error_of(Doc().text(), {"routes[0].prefix=10.0.0.0/33"}),
            "--set routes[0].prefix=10.0.0.0/33: routes[0].prefix: \"10.0.0.0/33\": prefix "
            "length must be 0..32");
}

TEST(ConfigOverrideErrors, ReplacedSubtree) {
  // The override replaced all of ports[1]: a missing key inside it is its fault.
  EXPECT_EQ(error_of(Doc().text(), {"ports[1]={id: 1, mac: \"02:00:00:00:00:01\"}"}),
            "--set ports[1]={id: 1, mac: \"02:00:00:00:00:01\"}: ports[1]: missing required key "
            "\"speed\"");
  EXPECT_EQ(error_of(Doc().text(), {"ports=[]"}), "--set ports=[]: ports: must not be empty");
}

TEST(ConfigOverrideErrors, DuplicateCreatedByOverride) {
  // The override changed ports[0]; the rule reports the later port, but the
  // override is what broke it.
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].mac=02:00:00:00:00:01"}),
            "--set ports[0].mac=02:00:00:00:00:01: ports[1].mac: \"02:00:00:00:00:01\": "
            "duplicate MAC (also ports[0])");
  EXPECT_EQ(error_of(Doc().text(), {"ports[1].id=0"}),
            "--set ports[1].id=0: ports[1].id: 0: duplicate port id (also ports[0])");
}

TEST(ConfigOverrideErrors, NeighborOutsideAChangedSubnet) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[1].ipv4=10.0.7.1/24"}),
            "--set ports[1].ipv4=10.0.7.1/24: neighbors[1].ip: \"10.0.1.2\": not in the subnet "
            "of port 1 (10.0.7.1/24)");
}

TEST(ConfigOverrideErrors, FileErrorsStillNameTheFile) {
  Doc d;
  d.sw = "switch: {name: bad name}\n";
  EXPECT_EQ(error_of(d.text(), {"ports[0].speed=25G"}),
            "x.yaml: switch.name: \"bad name\": must match [A-Za-z0-9_.-]+ (1..64 characters)");
  // Setting a sibling key does not take the blame for the map's missing key.
  EXPECT_EQ(error_of("ports: [{id: 0, mac: \"02:00:00:00:00:01\"}]\n", {"ports[0].name=p"}),
            "x.yaml: ports[0]: missing required key \"speed\"");
}

TEST(ConfigOverrideErrors, LastOverrideOfAPathIsNamed) {
  EXPECT_EQ(error_of(Doc().text(), {"ports[0].speed=3T", "ports[0].speed=2T"}),
            "--set ports[0].speed=2T: ports[0].speed: \"2T\": must be a speed 1M .. 1.6T");
  // An override of a parent covers the keys under it.
  EXPECT_EQ(error_of(Doc().text(), {"qos={trust: none}", "switch.name=a"}),
            "--set qos={trust: none}: qos.trust: \"none\": must be one of dscp, pcp");
}

// An override names who gave it: a client's `set` is "rocelbctl set", and
// an error blames the override that made the value, whoever gave it.
TEST(ConfigOverrideErrors, AnOverrideIsNamedByWhoGaveIt) {
  auto error_with = [](const std::vector<ConfigOverride>& sets) -> std::string {
    try {
      load_config_with(Doc().text(), test::kSource, sets);
    } catch (const ConfigError& e) {
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(error_with({{"ports[0].speed=2T", "rocelbctl set"}}),
            "rocelbctl set ports[0].speed=2T: ports[0].speed: \"2T\": must be a speed 1M .. 1.6T");
  EXPECT_EQ(error_with({{"ports[0].speed=2T", "--set"}, {"switch.name=a", "rocelbctl set"}}),
            "--set ports[0].speed=2T: ports[0].speed: \"2T\": must be a speed 1M .. 1.6T");
  EXPECT_EQ(error_with({{"ports[9].speed=25G", "rocelbctl set"}}),
            "rocelbctl set ports[9].speed=25G: ports[9]: index out of range (2 items)");
  const ConfigParams p =
      load_config_with(Doc().text(), test::kSource,
                       {{"switch.name=a", "--set"}, {"switch.name=b", "rocelbctl set"}});
  EXPECT_EQ(p.origin_of("switch.name"), "rocelbctl set switch.name=b");
  EXPECT_EQ(p.origin_of("ports[0]"), "x.yaml");
}

// A mistyped group name under --set makes a new group without members: the
// error says that no such group is in the file, and which one is.
TEST(ConfigOverrideErrors, AMistypedGroupIsANewGroupWithoutMembers) {
  Doc d;
  d.groups = "groups:\n  spine: {members: [10.0.0.2, 10.0.1.2]}\n";
  d.routes = "routes:\n  - {prefix: 0.0.0.0/0, group: spine}\n";
  EXPECT_EQ(error_of(d.text(), {"groups.spnie.idle_time=100us"}),
            "--set groups.spnie.idle_time=100us: groups.spnie: no group \"spnie\" in x.yaml (did "
            "you mean \"spine\"?); a new group needs \"members\"");
  EXPECT_EQ(error_of(d.text(), {"groups.spnie.flowlet_gap=100us"}),
            "--set groups.spnie.flowlet_gap=100us: groups.spnie: no group \"spnie\" in x.yaml "
            "(did you mean \"spine\"?); a new group needs \"members\"");
  // A new group with members is a group like any other.
  EXPECT_EQ(error_of(d.text(), {"groups.spnie.members=[10.0.0.2]"}), "no error");
  // A new WRED profile needs both thresholds.
  EXPECT_EQ(error_of(d.text(), {"qos.wred.3.ecn=ecn_all"}),
            "--set qos.wred.3.ecn=ecn_all: qos.wred.3: no WRED profile \"3\" in x.yaml; a new WRED "
            "profile needs \"green_min_threshold\", \"green_max_threshold\"");
}

}  // namespace
}  // namespace rocelb
