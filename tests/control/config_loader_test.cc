// The config loader: every validation rule and its one-line message
// (source: key path: value: rule), plus the values a valid config yields.
#include "control/config_loader.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "tests/control/config_test_util.h"

namespace rocelb {
namespace {

using test::Doc;
using test::error_of;
using test::load;

IpAddr ip(const char* s) {
  IpAddr a;
  EXPECT_TRUE(parse_ip(s, a)) << s;
  return a;
}

const char* kPortKeys =
    "(known: id, name, speed, mac, ipv4, ipv6, device, promiscuous, admin_status, mtu, scheduler, "
    "xdp_steering, link_detect)";
const char* kTopKeys = "(known: switch, control, limits, ports, neighbors, groups, routes, qos)";
const char* kQosKeys =
    "(known: trust, default_tc, dscp_to_tc, pcp_to_tc, scheduler, queue_limit, queue_limits, "
    "pfc_enable, pfc, buffer, wred, ecn_mark, pfc_watchdog)";

// ---- a valid config ---------------------------------------------------------

TEST(ConfigLoader, BaseDocLoads) {
  ConfigParams c = load(Doc().text());
  EXPECT_EQ(c.source, "x.yaml");
  EXPECT_EQ(c.sw.name, "rocelb");
  EXPECT_EQ(c.sw.hash_seed, 0u);
  ASSERT_EQ(c.ports.size(), 2u);
  EXPECT_EQ(c.ports[0].id, 0);
  EXPECT_EQ(c.ports[0].name, "port0");
  EXPECT_EQ(c.ports[1].name, "port1");
  EXPECT_EQ(c.ports[0].speed_bps, 100'000'000'000u);
  EXPECT_EQ(to_string(c.ports[1].mac), "02:00:00:00:00:01");
  ASSERT_TRUE(c.ports[1].ipv4);
  EXPECT_EQ(to_string(*c.ports[1].ipv4), "10.0.1.1/24");
  ASSERT_TRUE(c.ports[1].ipv6);
  EXPECT_EQ(to_string(*c.ports[1].ipv6), "fd00:0:1::1/64");
  EXPECT_EQ(c.ports[0].device, "");
  EXPECT_FALSE(c.ports[0].promiscuous);
  EXPECT_FALSE(c.ports[0].scheduler);
  ASSERT_EQ(c.neighbors.size(), 3u);
  EXPECT_EQ(c.neighbors[2].ip, ip("fd00:0:1::2"));
  EXPECT_EQ(c.neighbors[2].port, 1);
  ASSERT_EQ(c.groups.size(), 1u);
  EXPECT_EQ(c.groups[0].name, "g");
  EXPECT_EQ(c.groups[0].mode, LbMode::kFixed);
  EXPECT_EQ(c.groups[0].hash_fields, kHashFiveTuple);
  ASSERT_EQ(c.groups[0].members.size(), 2u);
  EXPECT_EQ(c.groups[0].members[1].via, ip("10.0.1.2"));
  EXPECT_EQ(c.groups[0].members[1].weight, 1u);
  ASSERT_EQ(c.routes.size(), 1u);
  EXPECT_EQ(to_string(c.routes[0].prefix), "0.0.0.0/0");
  EXPECT_EQ(c.routes[0].target, RouteTarget::kGroup);
  EXPECT_EQ(c.routes[0].group, "g");
}

TEST(ConfigLoader, QosDefaultsWhenAbsent) {
  ConfigParams c = load(Doc().text());
  EXPECT_EQ(c.qos.trust, Trust::kDscp);
  EXPECT_EQ(c.qos.default_tc, 0);
  for (auto tc : c.qos.dscp_to_tc) EXPECT_EQ(tc, 0);
  for (auto tc : c.qos.pcp_to_tc) EXPECT_EQ(tc, 0);
  for (int i = 0; i < kNumTrafficClasses; ++i) {
    EXPECT_FALSE(c.qos.scheduler.strict[i]);
    EXPECT_EQ(c.qos.scheduler.weight[i], 1u);
    EXPECT_EQ(c.qos.queue_limit_bytes[i], 4'000'000u);
  }
}

TEST(ConfigLoader, OnlyPortsIsRequired) {
  ConfigParams c = load("ports: [{id: 3, speed: 25G, mac: \"02:00:00:00:00:09\"}]\n");
  ASSERT_EQ(c.ports.size(), 1u);
  EXPECT_EQ(c.ports[0].id, 3);
  EXPECT_EQ(c.ports[0].name, "port3");
  EXPECT_FALSE(c.ports[0].ipv4);
  EXPECT_TRUE(c.neighbors.empty());
  EXPECT_TRUE(c.groups.empty());
  EXPECT_TRUE(c.routes.empty());
  EXPECT_EQ(c.qos.queue_limit_bytes[7], 4'000'000u);
}

TEST(ConfigLoader, NullSectionsAreEmpty) {
  ConfigParams c = load(Doc().ports + "switch:\nneighbors:\ngroups:\nroutes:\nqos:\n");
  EXPECT_EQ(c.sw.name, "rocelb");
  EXPECT_TRUE(c.neighbors.empty());
  EXPECT_EQ(c.qos.queue_limit_bytes[0], 4'000'000u);
}

// ---- document and top level -----------------------------------------------

TEST(ConfigLoader, MissingPorts) {
  EXPECT_EQ(error_of("switch: {name: a}\n"), "x.yaml: missing required key \"ports\"");
}

TEST(ConfigLoader, EmptyDocument) {
  EXPECT_EQ(error_of(""), "x.yaml: missing required key \"ports\"");
  EXPECT_EQ(error_of("# only a comment\n"), "x.yaml: missing required key \"ports\"");
}

TEST(ConfigLoader, UnknownTopLevelKey) {
  Doc d;
  d.qos = "qso: {}\n";
  EXPECT_EQ(error_of(d.text()),
            std::string("x.yaml: qso: unknown key, did you mean \"qos\"? ") + kTopKeys);
}

TEST(ConfigLoader, TopLevelMustBeAMap) {
  EXPECT_EQ(error_of("- a\n- b\n"), "x.yaml: expected a map at the top level, found a list");
  EXPECT_EQ(error_of("hello\n"), "x.yaml: \"hello\": expected a map at the top level");
}

TEST(ConfigLoader, DuplicateKey) {
  Doc d;
  d.qos = "qos: {trust: dscp, trust: pcp}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml:12:20: qos.trust: duplicate key");
}

TEST(ConfigLoader, OneDocumentOnly) {
  EXPECT_EQ(error_of(Doc().text() + "---\n" + Doc().text()),
            "x.yaml: expected one YAML document, found more (separated by ---)");
}

TEST(ConfigLoader, YamlSyntaxErrorNamesLineAndColumn) {
  EXPECT_EQ(error_of("switch:\n  name: a\n hash_seed: 1\n"),
            "x.yaml:3:2: invalid YAML: end of map not found");
  // An unclosed flow map is found at the end of the input.
  EXPECT_EQ(error_of("ports: [{id: 0\n"), "x.yaml:2:1: invalid YAML: end of map flow not found");
  EXPECT_EQ(error_of("ports:\n  - id: 0: 1\n"), "x.yaml:2:10: invalid YAML: illegal map value");
  EXPECT_EQ(error_of("ports: *p\n"),
            "x.yaml:1:8: invalid YAML: the referenced anchor is not defined");
}

TEST(ConfigLoader, UnreadableFile) {
  try {
    load_config_file("/nonexistent-dir/x.yaml");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(),
                 "cannot read config file \"/nonexistent-dir/x.yaml\": No such file or directory");
  }
  try {
    load_config_file("/");
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_STREQ(e.what(), "cannot read config file \"/\": not a regular file (a directory)");
  }
}

TEST(ConfigLoader, FileSourceNamesThePath) {
  std::string path = std::string(ROCELB_BINARY_DIR) + "/control_test_bad.yaml";
  {
    std::ofstream out(path);
    out << "ports: [{id: 300, speed: 100G, mac: \"02:00:00:00:00:01\"}]\n";
  }
  try {
    load_config_file(path);
    FAIL() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), path + ": ports[0].id: 300: must be an integer 0..255");
  }
  std::remove(path.c_str());
}

// ---- switch -----------------------------------------------------------------

TEST(ConfigSwitch, Values) {
  Doc d;
  d.sw = "switch: {name: leaf-1.a_b, hash_seed: 0x5eed}\n";
  ConfigParams c = load(d.text());
  EXPECT_EQ(c.sw.name, "leaf-1.a_b");
  EXPECT_EQ(c.sw.hash_seed, 0x5eedu);
  d.sw = "switch: {hash_seed: 18446744073709551615}\n";
  EXPECT_EQ(load(d.text()).sw.hash_seed, UINT64_MAX);
  d.sw = "switch: {hash_seed: 0xFFFFFFFFFFFFFFFF}\n";
  EXPECT_EQ(load(d.text()).sw.hash_seed, UINT64_MAX);
}

TEST(ConfigSwitch, UnknownKey) {
  Doc d;
  d.sw = "switch: {nme: a}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: switch.nme: unknown key, did you mean \"name\"? (known: name, hash_seed)");
}

TEST(ConfigSwitch, NotAMap) {
  Doc d;
  d.sw = "switch: [a]\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch: expected a map, found a list");
}

TEST(ConfigSwitch, NameRule) {
  Doc d;
  d.sw = "switch: {name: leaf 1}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: switch.name: \"leaf 1\": must match [A-Za-z0-9_.-]+ (1..64 characters)");
  d.sw = "switch: {name: \"\"}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: switch.name: \"\": must match [A-Za-z0-9_.-]+ (1..64 characters)");
  d.sw = "switch: {name: " + std::string(65, 'a') + "}\n";
  EXPECT_NE(error_of(d.text()).find("switch.name: \"aaa"), std::string::npos);
  EXPECT_NE(error_of(d.text()).find("must match"), std::string::npos);
  d.sw = "switch: {name: " + std::string(64, 'a') + "}\n";
  EXPECT_EQ(load(d.text()).sw.name, std::string(64, 'a'));
}

TEST(ConfigSwitch, HashSeedRule) {
  const std::string rule = "must be an integer 0..18446744073709551615";
  Doc d;
  d.sw = "switch: {hash_seed: -1}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch.hash_seed: -1: " + rule);
  d.sw = "switch: {hash_seed: 0x1ffffffffffffffff}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch.hash_seed: 0x1ffffffffffffffff: " + rule);
  d.sw = "switch: {hash_seed: 18446744073709551616}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch.hash_seed: 18446744073709551616: " + rule);
  d.sw = "switch: {hash_seed: seed}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch.hash_seed: \"seed\": " + rule);
  d.sw = "switch: {hash_seed: [1]}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: switch.hash_seed: expected an integer, found a list");
}

// ---- ports ------------------------------------------------------------------

std::string one_port(const std::string& fields) {
  return "ports:\n  - {" + fields + "}\n";
}

std::string port_error(const std::string& fields) {
  return error_of(one_port(fields));
}

PortParams port_of(const std::string& fields) {
  return load(one_port(fields)).ports.at(0);
}

const std::string kPort = "id: 0, speed: 100G, mac: \"02:00:00:00:00:00\"";

// A config is UTF-8 text: a byte that is not is refused where it is, by
// file or --set, since yaml-cpp would pass it through and its emitter write
// U+FFFD for it (show config's YAML would differ, and two distinct values
// could become one: found by the set fuzzer, two devices that differed by
// one invalid byte became the same device). Unicode text round-trips.
TEST(ConfigText, Utf8OnlyAndNamesTheKey) {
  EXPECT_EQ(utf8_error_at("plain"), std::string::npos);
  EXPECT_EQ(utf8_error_at("h\xc3\xb4te \xe2\x82\xac \xf0\x9f\x98\x80"), std::string::npos);
  EXPECT_EQ(utf8_error_at("ab\xff"), 2u);            // never in UTF-8
  EXPECT_EQ(utf8_error_at("a\x80"), 1u);             // a stray continuation byte
  EXPECT_EQ(utf8_error_at("a\xc0\x80"), 1u);         // overlong NUL
  EXPECT_EQ(utf8_error_at("\xe0\x80\xaf"), 0u);      // overlong '/'
  EXPECT_EQ(utf8_error_at("\xed\xa0\x80"), 0u);      // a surrogate
  EXPECT_EQ(utf8_error_at("\xf4\x90\x80\x80"), 0u);  // past U+10FFFF
  EXPECT_EQ(utf8_error_at("ok\xe2\x82"), 2u);        // truncated
  EXPECT_EQ(utf8_error_at("\xe2\x28\xa1"), 0u);      // a bad continuation

  Doc d;
  EXPECT_EQ(error_of(d.text(), {"ports[1].device=net_tap1,iface=rl\xfe"}),
            "--set ports[1].device=net_tap1,iface=rl\xfe: ports[1].device: the value is not UTF-8 "
            "text (byte 0xfe at offset 17): a switch config is UTF-8");
  Doc f;
  f.sw = "switch: {name: \"leaf\xff\"}\n";
  EXPECT_EQ(error_of(f.text()),
            "x.yaml: switch.name: the value is not UTF-8 text (byte 0xff at offset 4): a switch "
            "config is UTF-8");
  Doc k;
  k.sw = "switch: {\"na\xc0me\": x}\n";
  EXPECT_EQ(
      error_of(k.text()),
      "x.yaml: switch: a key is not UTF-8 text (byte 0xc0 at offset 2): a switch config is UTF-8");

  // Unicode loads, and the effective YAML loads again to the same value.
  const std::string dev = "net_tap0,iface=h\xc3\xb4te-\xe2\x82\xac";
  const ConfigParams p = load(Doc().text(), {"ports[0].device=" + dev});
  EXPECT_EQ(p.ports[0].device, dev);
  EXPECT_EQ(load(effective_config_yaml(Doc().text(), {"ports[0].device=" + dev})).ports[0].device,
            dev);
}

TEST(ConfigPorts, NotAList) {
  EXPECT_EQ(error_of("ports: {id: 0}\n"), "x.yaml: ports: expected a list, found a map");
  EXPECT_EQ(error_of("ports:\n"), "x.yaml: ports: expected a list, found null");
}

TEST(ConfigPorts, Empty) {
  EXPECT_EQ(error_of("ports: []\n"), "x.yaml: ports: must not be empty");
}

TEST(ConfigPorts, AtMost256) {
  std::string ports = "ports:\n";
  for (int i = 0; i < 256; ++i) {
    char mac[32];
    std::snprintf(mac, sizeof mac, "02:00:00:00:00:%02x", i);
    ports += "  - {id: " + std::to_string(i) + ", speed: 10G, mac: \"" + mac + "\"}\n";
  }
  ConfigParams c = load(ports);
  EXPECT_EQ(c.ports.size(), 256u);
  EXPECT_EQ(c.ports[255].id, 255);
  ports += "  - {id: 0, speed: 10G, mac: \"02:00:00:00:01:00\"}\n";
  EXPECT_EQ(error_of(ports), "x.yaml: ports: must list at most 256 ports (found 257)");
}

TEST(ConfigPorts, ItemNotAMap) {
  EXPECT_EQ(error_of("ports: [[1]]\n"), "x.yaml: ports[0]: expected a map, found a list");
  EXPECT_EQ(error_of("ports: [port0]\n"), "x.yaml: ports[0]: \"port0\": expected a map");
}

TEST(ConfigPorts, MissingRequiredKeys) {
  EXPECT_EQ(port_error("id: 0, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0]: missing required key \"speed\"");
  EXPECT_EQ(port_error("speed: 100G, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0]: missing required key \"id\"");
  EXPECT_EQ(port_error("id: 0, speed: 100G"), "x.yaml: ports[0]: missing required key \"mac\"");
  EXPECT_EQ(port_error("id: 0, speed: , mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0].speed: expected a speed 1M .. 1.6T, found null");
}

TEST(ConfigPorts, UnknownKey) {
  EXPECT_EQ(
      port_error(kPort + ", sped: 25G"),
      std::string("x.yaml: ports[0].sped: unknown key, did you mean \"speed\"? ") + kPortKeys);
}

TEST(ConfigPorts, IdRange) {
  EXPECT_EQ(port_error("id: 256, speed: 100G, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0].id: 256: must be an integer 0..255");
  EXPECT_EQ(port_error("id: -1, speed: 100G, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0].id: -1: must be an integer 0..255");
  EXPECT_EQ(port_error("id: one, speed: 100G, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0].id: \"one\": must be an integer 0..255");
  EXPECT_EQ(port_error("id: 1.5, speed: 100G, mac: \"02:00:00:00:00:00\""),
            "x.yaml: ports[0].id: 1.5: must be an integer 0..255");
  EXPECT_EQ(port_of("id: 0xff, speed: 100G, mac: \"02:00:00:00:00:00\"").id, 255);
}

TEST(ConfigPorts, DuplicateId) {
  EXPECT_EQ(error_of("ports:\n"
                     "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\"}\n"
                     "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:01\"}\n"),
            "x.yaml: ports[1].id: 0: duplicate port id (also ports[0])");
}

TEST(ConfigPorts, SortedById) {
  ConfigParams c = load(
      "ports:\n"
      "  - {id: 5, speed: 100G, mac: \"02:00:00:00:00:05\"}\n"
      "  - {id: 2, speed: 25G, mac: \"02:00:00:00:00:02\"}\n"
      "  - {id: 9, speed: 100G, mac: \"02:00:00:00:00:09\"}\n");
  ASSERT_EQ(c.ports.size(), 3u);
  EXPECT_EQ(c.ports[0].id, 2);
  EXPECT_EQ(c.ports[0].speed_bps, 25'000'000'000u);
  EXPECT_EQ(c.ports[1].id, 5);
  EXPECT_EQ(c.ports[2].id, 9);
  ASSERT_NE(c.find_port(9), nullptr);
  EXPECT_EQ(c.find_port(9)->name, "port9");
  EXPECT_EQ(c.find_port(3), nullptr);
}

TEST(ConfigPorts, NameRuleAndUniqueness) {
  EXPECT_EQ(port_of(kPort + ", name: host_0.a-b").name, "host_0.a-b");
  EXPECT_EQ(port_error(kPort + ", name: host 0"),
            "x.yaml: ports[0].name: \"host 0\": must match [A-Za-z0-9_.-]+ (1..64 characters)");
  EXPECT_EQ(error_of("ports:\n"
                     "  - {id: 0, name: a, speed: 100G, mac: \"02:00:00:00:00:00\"}\n"
                     "  - {id: 1, name: a, speed: 100G, mac: \"02:00:00:00:00:01\"}\n"),
            "x.yaml: ports[1].name: \"a\": duplicate port name (also ports[0])");
  // A default name counts too.
  EXPECT_EQ(error_of("ports:\n"
                     "  - {id: 0, name: port1, speed: 100G, mac: \"02:00:00:00:00:00\"}\n"
                     "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\"}\n"),
            "x.yaml: ports[1].name: \"port1\": duplicate port name (also ports[0])");
}

TEST(ConfigPorts, SpeedForms) {
  const std::string base = "id: 0, mac: \"02:00:00:00:00:00\", speed: ";
  EXPECT_EQ(port_of(base + "100G").speed_bps, 100'000'000'000u);
  EXPECT_EQ(port_of(base + "25G").speed_bps, 25'000'000'000u);
  EXPECT_EQ(port_of(base + "400G").speed_bps, 400'000'000'000u);
  EXPECT_EQ(port_of(base + "800M").speed_bps, 800'000'000u);
  EXPECT_EQ(port_of(base + "100Gbps").speed_bps, 100'000'000'000u);
  EXPECT_EQ(port_of(base + "25Gb/s").speed_bps, 25'000'000'000u);
  EXPECT_EQ(port_of(base + "10000000000").speed_bps, 10'000'000'000u);
  EXPECT_EQ(port_of(base + "1M").speed_bps, 1'000'000u);
  EXPECT_EQ(port_of(base + "1.6T").speed_bps, 1'600'000'000'000u);
}

TEST(ConfigPorts, SpeedRules) {
  const std::string base = "id: 0, mac: \"02:00:00:00:00:00\", speed: ";
  EXPECT_EQ(port_error(base + "100X"),
            "x.yaml: ports[0].speed: \"100X\": not a speed (expected e.g. 100G, 25Gbps, 800M or "
            "an integer in bits/s)");
  EXPECT_EQ(port_error(base + "999999"),
            "x.yaml: ports[0].speed: 999999: must be a speed 1M .. 1.6T");
  EXPECT_EQ(port_error(base + "1.7T"),
            "x.yaml: ports[0].speed: \"1.7T\": must be a speed 1M .. 1.6T");
  EXPECT_EQ(port_error(base + "0"), "x.yaml: ports[0].speed: 0: must be a speed 1M .. 1.6T");
  EXPECT_EQ(port_error(base + "{g: 100}"), "x.yaml: ports[0].speed: expected a speed, found a map");
}

TEST(ConfigPorts, MacRules) {
  const std::string base = "id: 0, speed: 100G, mac: ";
  EXPECT_EQ(to_string(port_of(base + "02-AA-00-00-00-01").mac), "02:aa:00:00:00:01");
  EXPECT_EQ(port_error(base + "\"02:00:00:00:00\""),
            "x.yaml: ports[0].mac: \"02:00:00:00:00\": not a MAC address (expected 6 hex pairs, "
            "e.g. 02:00:00:00:00:01)");
  EXPECT_EQ(port_error(base + "\"01:00:5e:00:00:01\""),
            "x.yaml: ports[0].mac: \"01:00:5e:00:00:01\": MAC must be unicast (the multicast bit "
            "is set)");
  EXPECT_EQ(port_error(base + "\"00:00:00:00:00:00\""),
            "x.yaml: ports[0].mac: \"00:00:00:00:00:00\": MAC must not be all-zero");
  EXPECT_EQ(error_of("ports:\n"
                     "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:07\"}\n"
                     "  - {id: 1, speed: 100G, mac: \"02-00-00-00-00-07\"}\n"),
            "x.yaml: ports[1].mac: \"02-00-00-00-00-07\": duplicate MAC (also ports[0])");
}

TEST(ConfigPorts, MtuRules) {
  EXPECT_EQ(port_of(kPort).mtu, 1500u);
  EXPECT_EQ(port_of(kPort + ", mtu: 9216").mtu, 9216u);
  EXPECT_EQ(port_of(kPort + ", mtu: 68").mtu, 68u);
  EXPECT_EQ(port_error(kPort + ", mtu: 67"),
            "x.yaml: ports[0].mtu: 67: must be an integer 68..9216 (bytes)");
  EXPECT_EQ(port_error(kPort + ", mtu: 9217"),
            "x.yaml: ports[0].mtu: 9217: must be an integer 68..9216 (bytes)");
  EXPECT_EQ(port_error(kPort + ", ipv6: \"fd00::1/64\", mtu: 1279"),
            "x.yaml: ports[0].mtu: 1279: mtu must be at least 1280 on a port with an IPv6 "
            "address (RFC 8200)");
  EXPECT_EQ(port_of(kPort + ", ipv6: \"fd00::1/64\", mtu: 1280").mtu, 1280u);
}

TEST(ConfigPorts, TwoPortsOnOneDeviceAreRefused) {
  auto two = [](const std::string& a, const std::string& b) {
    return "ports:\n"
           "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:01\", device: \"" +
           a +
           "\"}\n"
           "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:02\", device: \"" +
           b + "\"}\n";
  };
  EXPECT_EQ(error_of(two("net_tap0,iface=rl0", "net_tap0,iface=rl1")),
            "x.yaml: ports[1].device: \"net_tap0,iface=rl1\": the same device net_tap0 as "
            "ports[0]");
  EXPECT_EQ(error_of(two("0000:3b:00.0", "0000:3b:00.0")),
            "x.yaml: ports[1].device: \"0000:3b:00.0\": the same device 0000:3b:00.0 as ports[0]");
  EXPECT_EQ(error_of(two("net_tap0,iface=rl0", "net_af_packet1,iface=rl0,qpairs=1")),
            "x.yaml: ports[1].device: \"net_af_packet1,iface=rl0,qpairs=1\": the same interface "
            "rl0 as ports[0]");
  // Distinct devices, and distinct files of one kind of vdev, are fine.
  EXPECT_EQ(error_of(two("net_pcap0,rx_pcap=a.pcap", "net_pcap1,rx_pcap=a.pcap")), "no error");
  EXPECT_EQ(error_of(two("net_tap0,iface=rl0", "net_tap1,iface=rl01")), "no error");
}

TEST(ConfigPorts, XdpSteeringAndLinkDetect) {
  auto port = [](const std::string& extra) {
    return "ports:\n  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:01\", " + extra + "}\n";
  };
  EXPECT_EQ(error_of(port("device: \"net_af_xdp0,iface=eth1\", xdp_steering: roce")), "no error");
  EXPECT_EQ(error_of(port("device: \"net_af_xdp0,iface=eth1\", xdp_steering: all")), "no error");
  EXPECT_EQ(error_of(port("device: \"net_tap0,iface=rl0\", xdp_steering: off")), "no error");
  EXPECT_EQ(error_of(port("device: \"net_tap0,iface=rl0\", xdp_steering: roce")),
            "x.yaml: ports[0].xdp_steering: \"roce\": needs an AF_XDP device (ports[].device: "
            "\"net_af_xdpN,iface=IF\")");
  EXPECT_EQ(error_of(port("device: \"net_af_xdp0\", xdp_steering: roce")),
            "x.yaml: ports[0].xdp_steering: \"roce\": needs an AF_XDP device (ports[].device: "
            "\"net_af_xdpN,iface=IF\")");
  EXPECT_EQ(error_of(port("device: \"net_af_xdp0,iface=eth1\", xdp_steering: rdma")),
            "x.yaml: ports[0].xdp_steering: \"rdma\": must be one of off, roce, all");
  EXPECT_EQ(error_of(port("link_detect: on")), "no error");
  EXPECT_EQ(error_of(port("link_detect: sometimes")),
            "x.yaml: ports[0].link_detect: \"sometimes\": must be one of auto, on, off");
}

TEST(ConfigPorts, Ipv4Rules) {
  const std::string base = kPort + ", ipv4: ";
  EXPECT_EQ(to_string(*port_of(base + "10.0.0.1/24").ipv4), "10.0.0.1/24");
  EXPECT_EQ(to_string(*port_of(base + "10.0.0.0/31").ipv4), "10.0.0.0/31");
  EXPECT_EQ(to_string(*port_of(base + "10.0.0.1/31").ipv4), "10.0.0.1/31");
  EXPECT_EQ(to_string(*port_of(base + "10.0.0.0/32").ipv4), "10.0.0.0/32");
  EXPECT_EQ(port_error(base + "\"fd00::1/64\""),
            "x.yaml: ports[0].ipv4: \"fd00::1/64\": must be an IPv4 address");
  EXPECT_EQ(port_error(base + "10.0.0.1"), "x.yaml: ports[0].ipv4: \"10.0.0.1\": missing /LEN");
  EXPECT_EQ(port_error(base + "10.0.0.1/33"),
            "x.yaml: ports[0].ipv4: \"10.0.0.1/33\": prefix length must be 0..32");
  EXPECT_EQ(port_error(base + "10.0.0.1/0"),
            "x.yaml: ports[0].ipv4: \"10.0.0.1/0\": prefix length must be 1..32");
  EXPECT_EQ(port_error(base + "10.0.0.300/24"),
            "x.yaml: ports[0].ipv4: \"10.0.0.300/24\": not an IP address");
  EXPECT_EQ(port_error(base + "10.0.0.0/24"),
            "x.yaml: ports[0].ipv4: \"10.0.0.0/24\": interface address must not be the network "
            "address of its subnet");
  EXPECT_EQ(port_error(base + "10.0.0.255/24"),
            "x.yaml: ports[0].ipv4: \"10.0.0.255/24\": interface address must not be the "
            "broadcast address of its subnet");
  EXPECT_EQ(port_error(base + "10.0.3.255/22"),
            "x.yaml: ports[0].ipv4: \"10.0.3.255/22\": interface address must not be the "
            "broadcast address of its subnet");
  EXPECT_EQ(to_string(*port_of(base + "10.0.3.0/22").ipv4), "10.0.3.0/22");
}

TEST(ConfigPorts, Ipv6Rules) {
  const std::string base = kPort + ", ipv6: ";
  EXPECT_EQ(to_string(*port_of(base + "\"fd00:0:0::1/64\"").ipv6), "fd00::1/64");
  EXPECT_EQ(to_string(*port_of(base + "\"fd00::/128\"").ipv6), "fd00::/128");
  EXPECT_EQ(port_error(base + "10.0.0.1/24"),
            "x.yaml: ports[0].ipv6: \"10.0.0.1/24\": must be an IPv6 address");
  EXPECT_EQ(port_error(base + "\"fd00::1/0\""),
            "x.yaml: ports[0].ipv6: \"fd00::1/0\": prefix length must be 1..128");
  EXPECT_EQ(port_error(base + "\"fd00::1/129\""),
            "x.yaml: ports[0].ipv6: \"fd00::1/129\": prefix length must be 0..128");
}

TEST(ConfigPorts, SubnetsMustNotOverlap) {
  EXPECT_EQ(error_of("ports:\n"
                     "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.1/24}\n"
                     "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\", ipv4: 10.0.2.1/16}\n"),
            "x.yaml: ports[1].ipv4: \"10.0.2.1/16\": subnet overlaps port 0 (10.0.0.1/24)");
  EXPECT_EQ(
      error_of("ports:\n"
               "  - {id: 4, speed: 100G, mac: \"02:00:00:00:00:00\", ipv6: \"fd00::1/64\"}\n"
               "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\", ipv6: \"fd00::2/120\"}\n"),
      "x.yaml: ports[1].ipv6: \"fd00::2/120\": subnet overlaps port 4 (fd00::1/64)");
  // Adjacent subnets and different families are fine.
  ConfigParams c = load(
      "ports:\n"
      "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.1/24}\n"
      "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\", ipv4: 10.0.1.1/24, "
      "ipv6: \"::a00:1/120\"}\n");
  EXPECT_EQ(c.ports.size(), 2u);
}

TEST(ConfigPorts, DeviceAndPromiscuous) {
  PortParams p = port_of(kPort + ", device: \"net_tap0,iface=rl0\", promiscuous: true");
  EXPECT_EQ(p.device, "net_tap0,iface=rl0");
  EXPECT_TRUE(p.promiscuous);
  EXPECT_FALSE(port_of(kPort + ", promiscuous: false").promiscuous);
  EXPECT_EQ(port_error(kPort + ", promiscuous: yes"),
            "x.yaml: ports[0].promiscuous: \"yes\": must be true or false");
  EXPECT_EQ(port_error(kPort + ", device: [a]"),
            "x.yaml: ports[0].device: expected a string, found a list");
}

TEST(ConfigPorts, AdminStatus) {
  EXPECT_TRUE(port_of(kPort).admin_up);
  EXPECT_TRUE(port_of(kPort + ", admin_status: up").admin_up);
  EXPECT_FALSE(port_of(kPort + ", admin_status: down").admin_up);
  EXPECT_EQ(port_error(kPort + ", admin_status: off"),
            "x.yaml: ports[0].admin_status: \"off\": must be one of up, down");
  EXPECT_EQ(port_error(kPort + ", admin_status: [up]"),
            "x.yaml: ports[0].admin_status: expected one of up, down, found a list");
  EXPECT_FALSE(load(Doc().text(), {"ports[1].admin_status=down"}).ports[1].admin_up);
}

TEST(ConfigPorts, SchedulerOverride) {
  ConfigParams c = load(
      "ports:\n"
      "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\",\n"
      "     scheduler: {strict: [7], weights: {1: 10}}}\n"
      "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\"}\n"
      "qos: {scheduler: {strict: [6], weights: {0: 50}}}\n");
  ASSERT_TRUE(c.ports[0].scheduler);
  const SchedulerParams& s = *c.ports[0].scheduler;
  EXPECT_TRUE(s.strict[7]);
  EXPECT_FALSE(s.strict[6]);  // replaces qos.scheduler, not merged with it
  EXPECT_EQ(s.weight[1], 10u);
  EXPECT_EQ(s.weight[0], 1u);
  EXPECT_FALSE(c.ports[1].scheduler);
  EXPECT_TRUE(c.qos.scheduler.strict[6]);
  EXPECT_EQ(c.qos.scheduler.weight[0], 50u);
  EXPECT_EQ(port_error(kPort + ", scheduler: {strict: [8]}"),
            "x.yaml: ports[0].scheduler.strict[0]: 8: must be an integer 0..7 (traffic class)");
  EXPECT_EQ(port_error(kPort + ", scheduler: {wieghts: {}}"),
            "x.yaml: ports[0].scheduler.wieghts: unknown key, did you mean \"weights\"? (known: "
            "strict, weights)");
}

// ---- neighbors --------------------------------------------------------------

std::string neighbor_error(const std::string& entry) {
  Doc d;
  d.neighbors = "neighbors:\n  - " + entry + "\n";
  d.groups.clear();
  d.routes.clear();
  return error_of(d.text());
}

TEST(ConfigNeighbors, NotAList) {
  Doc d;
  d.neighbors = "neighbors: {ip: 10.0.0.2}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: neighbors: expected a list, found a map");
}

TEST(ConfigNeighbors, UnknownAndMissingKeys) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mc: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].mc: unknown key, did you mean \"mac\"? (known: ip, mac, port)");
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, port: 0}"),
            "x.yaml: neighbors[0]: missing required key \"mac\"");
  EXPECT_EQ(neighbor_error("{mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0]: missing required key \"ip\"");
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mac: \"02:00:00:00:01:00\"}"),
            "x.yaml: neighbors[0]: missing required key \"port\"");
}

TEST(ConfigNeighbors, IpRule) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.300, mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"10.0.0.300\": not an IP address");
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2/24, mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"10.0.0.2/24\": not an IP address");
}

TEST(ConfigNeighbors, DuplicateIp) {
  Doc d;
  d.neighbors =
      "neighbors:\n"
      "  - {ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 0}\n"
      "  - {ip: 10.0.0.2, mac: \"02:00:00:00:01:01\", port: 0}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: neighbors[1].ip: \"10.0.0.2\": duplicate neighbor (also neighbors[0])");
}

TEST(ConfigNeighbors, MacRule) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mac: \"33:33:00:00:00:01\", port: 0}"),
            "x.yaml: neighbors[0].mac: \"33:33:00:00:00:01\": MAC must be unicast (the "
            "multicast bit is set)");
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mac: \"00-00-00-00-00-00\", port: 0}"),
            "x.yaml: neighbors[0].mac: \"00-00-00-00-00-00\": MAC must not be all-zero");
}

TEST(ConfigNeighbors, PortMustExist) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 5}"),
            "x.yaml: neighbors[0].port: 5: not a configured port");
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 256}"),
            "x.yaml: neighbors[0].port: 256: must be an integer 0..255");
}

TEST(ConfigNeighbors, MustBeInThePortSubnet) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.1.2, mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"10.0.1.2\": not in the subnet of port 0 (10.0.0.1/24)");
  EXPECT_EQ(neighbor_error("{ip: \"fd00:0:1::2\", mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"fd00:0:1::2\": not in the subnet of port 0 "
            "(fd00::1/64)");
}

TEST(ConfigNeighbors, PortWithoutAddressOfThatFamily) {
  std::string ports = "ports: [{id: 0, speed: 100G, mac: \"02:00:00:00:00:00\"}]\n";
  EXPECT_EQ(error_of(ports + "neighbors: [{ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 0}]\n"),
            "x.yaml: neighbors[0].ip: \"10.0.0.2\": port 0 has no ipv4 address");
  EXPECT_EQ(
      error_of(ports + "neighbors: [{ip: \"fd00::2\", mac: \"02:00:00:00:01:00\", port: 0}]\n"),
      "x.yaml: neighbors[0].ip: \"fd00::2\": port 0 has no ipv6 address");
}

TEST(ConfigNeighbors, NotTheSwitchAddress) {
  EXPECT_EQ(neighbor_error("{ip: 10.0.0.1, mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"10.0.0.1\": is the interface address of port 0 itself");
  EXPECT_EQ(neighbor_error("{ip: \"fd00::1\", mac: \"02:00:00:00:01:00\", port: 0}"),
            "x.yaml: neighbors[0].ip: \"fd00::1\": is the interface address of port 0 itself");
}

TEST(ConfigNeighbors, Values) {
  ConfigParams c = load(Doc().text());
  const NeighborParams* n = c.find_neighbor(ip("10.0.1.2"));
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->port, 1);
  EXPECT_EQ(to_string(n->mac), "02:00:00:00:01:01");
  EXPECT_EQ(c.find_neighbor(ip("10.0.1.3")), nullptr);
}

// ---- groups -----------------------------------------------------------------

std::string group_error(const std::string& groups) {
  Doc d;
  d.groups = groups;
  d.routes.clear();
  return error_of(d.text());
}

GroupParams group_of(const std::string& body) {
  Doc d;
  d.groups = "groups:\n  g: " + body + "\n";
  d.routes.clear();
  return load(d.text()).groups.at(0);
}

TEST(ConfigGroups, NotAMap) {
  EXPECT_EQ(group_error("groups: [a]\n"), "x.yaml: groups: expected a map, found a list");
  EXPECT_EQ(group_error("groups: {g: [10.0.0.2]}\n"),
            "x.yaml: groups.g: expected a map, found a list");
}

TEST(ConfigGroups, NameRule) {
  EXPECT_EQ(group_error("groups: {\"up links\": {members: [10.0.0.2]}}\n"),
            "x.yaml: groups.up links: group name must match [A-Za-z0-9_.-]+ (1..64 characters)");
}

TEST(ConfigGroups, UnknownAndMissingKeys) {
  EXPECT_EQ(group_error("groups: {g: {mod: fixed, members: [10.0.0.2]}}\n"),
            "x.yaml: groups.g.mod: unknown key, did you mean \"mode\"? (known: mode, members, "
            "hash_fields, idle_time, sampling_interval, max_flows, buckets, quality, drill, "
            "control_by_hash, conweave, seed, bpf)");
  EXPECT_EQ(group_error("groups: {g: {mode: fixed}}\n"),
            "x.yaml: groups.g: missing required key \"members\"");
}

TEST(ConfigGroups, ModeRule) {
  EXPECT_EQ(group_of("{mode: fixed, members: [10.0.0.2]}").mode, LbMode::kFixed);
  EXPECT_EQ(group_error("groups: {g: {mode: ecmp, members: [10.0.0.2]}}\n"),
            "x.yaml: groups.g.mode: \"ecmp\": did you mean \"wcmp\"? must be one of fixed, wcmp, "
            "resilient, flowlet_random, flowlet_quality, per_packet_quality, per_packet_random, "
            "drill, bpf, conweave");
  EXPECT_EQ(group_of("{mode: wcmp, members: [10.0.0.2]}").mode, LbMode::kWcmp);
  EXPECT_EQ(group_of("{mode: resilient, members: [10.0.0.2]}").mode, LbMode::kResilient);
  EXPECT_EQ(group_of("{mode: flowlet_random, members: [10.0.0.2]}").mode, LbMode::kFlowletRandom);
  EXPECT_EQ(group_of("{mode: flowlet_quality, members: [10.0.0.2]}").mode, LbMode::kFlowletQuality);
  EXPECT_EQ(group_of("{mode: per_packet_quality, members: [10.0.0.2]}").mode,
            LbMode::kPerPacketQuality);
  EXPECT_EQ(group_of("{mode: per_packet_random, members: [10.0.0.2]}").mode,
            LbMode::kPerPacketRandom);
  EXPECT_EQ(group_of("{mode: drill, members: [10.0.0.2]}").mode, LbMode::kDrill);
  EXPECT_EQ(group_of("{mode: conweave, members: [10.0.0.2]}").mode, LbMode::kConWeave);
}

// conweave's knobs, ConWeave's ns-3 defaults when absent; the destination
// ToR's must agree across a switch's conweave groups (one reorder table).
TEST(ConfigGroups, ConWeaveKnobs) {
  const GroupParams d = group_of("{mode: conweave, members: [10.0.0.2]}");
  EXPECT_EQ(d.knobs.conweave, ConWeaveKnobs{});
  EXPECT_EQ(d.knobs.conweave.tx_expiry_ns, 1'000'000u);
  const GroupParams g = group_of(
      "{mode: conweave, members: [10.0.0.2], conweave: {tx_expiry: 300us, "
      "reply_timeout_extra: 4us, base_rtt: 6us, path_pause: 16us, voq_flush_extra: 16us, "
      "voq_default_wait: 200us, reply_dscp: 46, hold_packets: 1024}}");
  const ConWeaveKnobs& k = g.knobs.conweave;
  EXPECT_EQ(k.tx_expiry_ns, 300'000u);
  EXPECT_EQ(k.reply_timeout_extra_ns, 4'000u);
  EXPECT_EQ(k.base_rtt_ns, 6'000u);
  EXPECT_EQ(k.path_pause_ns, 16'000u);
  EXPECT_EQ(k.voq_flush_extra_ns, 16'000u);
  EXPECT_EQ(k.voq_default_wait_ns, 200'000u);
  EXPECT_EQ(k.reply_dscp, 46u);
  EXPECT_EQ(k.hold_packets, 1024u);
  EXPECT_EQ(group_error("groups: {g: {mode: conweave, members: [10.0.0.2], "
                        "conweave: {reply_dscp: 64}}}\n"),
            "x.yaml: groups.g.conweave.reply_dscp: 64: must be an integer 0..63");
  EXPECT_EQ(group_error("groups:\n  a: {mode: conweave, members: [10.0.0.2]}\n"
                        "  b: {mode: conweave, members: [10.0.0.2], "
                        "conweave: {voq_flush_extra: 16us}}\n"),
            "x.yaml: groups.b.conweave.voq_flush_extra: differs from groups.a's: a switch "
            "reorders its conweave flows with one setting (every conweave group gives the "
            "same)");
}

TEST(ConfigGroups, MembersListRules) {
  EXPECT_EQ(group_error("groups: {g: {members: []}}\n"),
            "x.yaml: groups.g.members: must not be empty");
  EXPECT_EQ(group_error("groups: {g: {members: 10.0.0.2}}\n"),
            "x.yaml: groups.g.members: \"10.0.0.2\": expected a list");
  std::string many = "groups: {g: {members: [";
  for (int i = 0; i < 257; ++i)
    many += (i ? ", 10.9." : "10.9.") + std::to_string(i / 250) + "." + std::to_string(i % 250);
  many += "]}}\n";
  EXPECT_EQ(group_error(many),
            "x.yaml: groups.g.members: must list at most 256 members (found 257)");
}

TEST(ConfigGroups, MemberMustBeANeighbor) {
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.2, 10.0.0.3]}}\n"),
            "x.yaml: groups.g.members[1]: \"10.0.0.3\": not a configured neighbor");
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.x]}}\n"),
            "x.yaml: groups.g.members[0]: \"10.0.0.x\": not an IP address");
  EXPECT_EQ(group_error("groups: {g: {members: [{via: 10.0.0.9}]}}\n"),
            "x.yaml: groups.g.members[0].via: \"10.0.0.9\": not a configured neighbor");
}

TEST(ConfigGroups, MemberForms) {
  GroupParams g =
      group_of("{members: [10.0.0.2, {via: 10.0.1.2, weight: 7}, {via: \"fd00:0:1::2\"}]}");
  ASSERT_EQ(g.members.size(), 3u);
  EXPECT_EQ(g.members[0].via, ip("10.0.0.2"));
  EXPECT_EQ(g.members[0].weight, 1u);
  EXPECT_EQ(g.members[1].via, ip("10.0.1.2"));
  EXPECT_EQ(g.members[1].weight, 7u);
  EXPECT_EQ(g.members[2].via, ip("fd00:0:1::2"));
  EXPECT_EQ(g.members[2].weight, 1u);
  EXPECT_EQ(group_of("{members: [{via: 10.0.0.2, weight: 65535}]}").members[0].weight, 65535u);
}

TEST(ConfigGroups, MemberMapRules) {
  EXPECT_EQ(group_error("groups: {g: {members: [{via: 10.0.0.2, weight: 0}]}}\n"),
            "x.yaml: groups.g.members[0].weight: 0: must be an integer 1..65535");
  EXPECT_EQ(group_error("groups: {g: {members: [{via: 10.0.0.2, weight: 65536}]}}\n"),
            "x.yaml: groups.g.members[0].weight: 65536: must be an integer 1..65535");
  EXPECT_EQ(group_error("groups: {g: {members: [{weight: 2}]}}\n"),
            "x.yaml: groups.g.members[0]: missing required key \"via\"");
  EXPECT_EQ(group_error("groups: {g: {members: [{via: 10.0.0.2, w: 2}]}}\n"),
            "x.yaml: groups.g.members[0].w: unknown key (known: via, weight)");
  EXPECT_EQ(group_error("groups: {g: {members: [[10.0.0.2]]}}\n"),
            "x.yaml: groups.g.members[0]: expected a neighbor IP or a map {via, weight}, found a "
            "list");
}

TEST(ConfigGroups, DuplicateMember) {
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.2, 10.0.1.2, {via: 10.0.0.2}]}}\n"),
            "x.yaml: groups.g.members[2].via: \"10.0.0.2\": duplicate member (also members[0])");
}

TEST(ConfigGroups, HashFields) {
  EXPECT_EQ(group_of("{members: [10.0.0.2]}").hash_fields, kHashFiveTuple);
  EXPECT_EQ(group_of("{members: [10.0.0.2], hash_fields: [dest_qp, src_ip]}").hash_fields,
            uint32_t(kHashDestQp | kHashSrcIp));
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.2], hash_fields: []}}\n"),
            "x.yaml: groups.g.hash_fields: must not be empty");
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.2], hash_fields: [src_ip, sport]}}\n"),
            "x.yaml: groups.g.hash_fields[1]: \"sport\": must be one of src_ip, dst_ip, proto, "
            "src_port, dst_port, dest_qp");
  EXPECT_EQ(
      group_error("groups: {g: {members: [10.0.0.2], hash_fields: [proto, dst_ip, proto]}}\n"),
      "x.yaml: groups.g.hash_fields[2]: \"proto\": duplicate hash field (also "
      "hash_fields[0])");
  EXPECT_EQ(group_error("groups: {g: {members: [10.0.0.2], hash_fields: src_ip}}\n"),
            "x.yaml: groups.g.hash_fields: \"src_ip\": expected a list");
}

TEST(ConfigGroups, SortedByName) {
  Doc d;
  d.groups =
      "groups:\n  zeta: {members: [10.0.0.2]}\n  alpha: {members: [10.0.1.2]}\n"
      "  mid: {members: [10.0.0.2]}\n";
  d.routes.clear();
  ConfigParams c = load(d.text());
  ASSERT_EQ(c.groups.size(), 3u);
  EXPECT_EQ(c.groups[0].name, "alpha");
  EXPECT_EQ(c.groups[1].name, "mid");
  EXPECT_EQ(c.groups[2].name, "zeta");
  EXPECT_EQ(c.groups[0].members[0].via, ip("10.0.1.2"));
  ASSERT_NE(c.find_group("zeta"), nullptr);
  EXPECT_EQ(c.find_group("g"), nullptr);
}

TEST(ConfigGroups, DuplicateGroupName) {
  EXPECT_EQ(group_error("groups:\n  g: {members: [10.0.0.2]}\n  g: {members: [10.0.1.2]}\n"),
            "x.yaml:10:3: groups.g: duplicate key");
}

// ---- group load-balancing knobs ---------------------------------------------

std::string knob_error(const std::string& knobs) {
  return group_error("groups: {g: {members: [10.0.0.2, 10.0.1.2], " + knobs + "}}\n");
}
LbKnobs knobs_of(const std::string& knobs) {
  return group_of("{members: [10.0.0.2, 10.0.1.2], " + knobs + "}").knobs;
}

// Every worker keeps every group's table: 64 flowlet groups of a million
// entries (16 MiB each) fit the 1 GiB bound, 65 do not, and the error names
// the knob of the biggest group.
TEST(ConfigGroupKnobs, TablesOfAllGroupsAreBounded) {
  auto groups = [](int n, const std::string& last_knobs) {
    std::string g = "groups:\n";
    for (int i = 0; i < n; ++i)
      g += "  g" + std::to_string(i) + ": {members: [10.0.0.2], mode: flowlet_random, " +
           (i == n - 1 ? last_knobs : "max_flows: 1048576") + "}\n";
    return g;
  };
  EXPECT_EQ(group_error(groups(64, "max_flows: 1048576")), "no error");
  EXPECT_EQ(group_error(groups(65, "max_flows: 1048576")),
            "x.yaml: groups.g0.max_flows: the groups' tables need 1040 MiB per forwarding worker, "
            "more than 1024 MiB (this group: 16 MiB)");
  // One byte over is over: 64 full groups and a 1 KiB one.
  EXPECT_EQ(group_error(groups(65, "max_flows: 64")),
            "x.yaml: groups.g0.max_flows: the groups' tables need 1025 MiB per forwarding worker, "
            "more than 1024 MiB (this group: 16 MiB)");
  EXPECT_EQ(group_of("{members: [10.0.0.2], mode: resilient, buckets: 4096}").knobs.buckets, 4096u);
}

TEST(ConfigGroupKnobs, DefaultsFollowDlb) {
  const LbKnobs k = group_of("{members: [10.0.0.2]}").knobs;
  EXPECT_EQ(k, LbKnobs{});
  EXPECT_EQ(k.idle_time_ns, 256'000u);
  EXPECT_EQ(k.sampling_interval_ns, 16'000u);
  EXPECT_EQ(k.max_flows, 4096u);
  EXPECT_EQ(k.buckets, 0u);
  EXPECT_EQ(effective_buckets(LbMode::kWcmp, k), 4096u);
  EXPECT_EQ(effective_buckets(LbMode::kResilient, k), 256u);
  EXPECT_EQ(k.quality.load_weight, 50u);
  EXPECT_EQ(k.quality.queue_weight, 50u);
  EXPECT_EQ(k.quality.queue_thresholds[0], 16'000u);
  EXPECT_EQ(k.quality.queue_thresholds[6], 1'000'000u);
  EXPECT_EQ(k.quality.load_thresholds[0], 10u);
  EXPECT_EQ(k.quality.load_thresholds[6], 90u);
  EXPECT_EQ(k.quality.depth, QueueDepthSource::kPort);
  EXPECT_EQ(k.quality.load_alpha_q16, 16384u);
  EXPECT_EQ(k.drill.d, 2u);
  EXPECT_EQ(k.drill.m, 1u);
  EXPECT_EQ(k.seed, 0u);
}

TEST(ConfigGroupKnobs, Values) {
  const LbKnobs k = knobs_of(
      "mode: flowlet_quality, idle_time: 50us, sampling_interval: 1ms, max_flows: 65536, "
      "buckets: 1024, seed: 0x10, drill: {d: 4, m: 0}, "
      "quality: {load_weight: 30, queue_weight: 70, depth: class, load_alpha: 0.5, "
      "queue_thresholds: [1KB, 2KB, 4KB, 8KB, 16KB, 32KB, 1MiB], "
      "load_thresholds: [5, 10, 20, 40, 60, 80, 100]}");
  EXPECT_EQ(k.idle_time_ns, 50'000u);
  EXPECT_EQ(k.sampling_interval_ns, 1'000'000u);
  EXPECT_EQ(k.max_flows, 65536u);
  EXPECT_EQ(k.buckets, 1024u);
  EXPECT_EQ(k.seed, 16u);
  EXPECT_EQ(k.drill.d, 4u);
  EXPECT_EQ(k.drill.m, 0u);
  EXPECT_EQ(k.quality.load_weight, 30u);
  EXPECT_EQ(k.quality.queue_weight, 70u);
  EXPECT_EQ(k.quality.depth, QueueDepthSource::kClass);
  EXPECT_EQ(k.quality.load_alpha_q16, 32768u);
  EXPECT_EQ(k.quality.queue_thresholds,
            (std::array<uint64_t, 7>{1000, 2000, 4000, 8000, 16000, 32000, 1048576}));
  EXPECT_EQ(k.quality.load_thresholds, (std::array<uint32_t, 7>{5, 10, 20, 40, 60, 80, 100}));
  EXPECT_EQ(knobs_of("quality: {depth: port}").quality.depth, QueueDepthSource::kPort);
}

// drill.memory destination (ConWeave's ns-3) keeps one member a destination:
// with drill.m other than 1 the file is refused at the key that says so.
TEST(ConfigGroupKnobs, DrillMemoryPerDestination) {
  EXPECT_FALSE(knobs_of("drill: {d: 2}").drill.per_destination);
  EXPECT_FALSE(knobs_of("drill: {memory: group}").drill.per_destination);
  EXPECT_TRUE(knobs_of("drill: {memory: destination}").drill.per_destination);
  EXPECT_EQ(knob_error("drill: {memory: destination, m: 2}"),
            "x.yaml: groups.g.drill.m: 2: drill.memory destination remembers one member per "
            "destination: drill.m must be 1");
  EXPECT_EQ(knob_error("drill: {memory: dst}"),
            "x.yaml: groups.g.drill.memory: \"dst\": must be one of group, destination");
}

TEST(ConfigGroupKnobs, KnobsOfOtherModesAreAccepted) {
  // So that one --set switches a sweep between modes.
  const GroupParams g = group_of(
      "{mode: fixed, members: [10.0.0.2], idle_time: 1ms, max_flows: 1024, buckets: 65536, "
      "drill: {d: 3}, quality: {load_weight: 100}}");
  EXPECT_EQ(g.mode, LbMode::kFixed);
  EXPECT_EQ(g.knobs.buckets, 65536u);
  EXPECT_EQ(g.knobs.drill.d, 3u);
  EXPECT_EQ(g.knobs.drill.m, 1u);
  Doc d;
  d.groups = "groups:\n  g: {members: [10.0.0.2], idle_time: 64us}\n";
  const ConfigParams c = load(d.text(), {"groups.g.mode=flowlet_random"});
  EXPECT_EQ(c.groups[0].mode, LbMode::kFlowletRandom);
  EXPECT_EQ(c.groups[0].knobs.idle_time_ns, 64'000u);
  EXPECT_EQ(load(d.text(), {"groups.g.idle_time=1ms"}).groups[0].knobs.idle_time_ns, 1'000'000u);
}

TEST(ConfigGroupKnobs, DurationRules) {
  EXPECT_EQ(knob_error("idle_time: 256"),
            "x.yaml: groups.g.idle_time: 256: not a duration (expected a number with unit ns, "
            "us, ms or s, e.g. 256us)");
  EXPECT_EQ(knob_error("idle_time: 50ns"),
            "x.yaml: groups.g.idle_time: \"50ns\": must be a duration 100ns .. 1s");
  EXPECT_EQ(knob_error("idle_time: 2s"),
            "x.yaml: groups.g.idle_time: \"2s\": must be a duration 100ns .. 1s");
  EXPECT_EQ(knob_error("sampling_interval: 0"),
            "x.yaml: groups.g.sampling_interval: 0: must be a duration 100ns .. 1s");
  EXPECT_EQ(knob_error("sampling_interval: [1us]"),
            "x.yaml: groups.g.sampling_interval: expected a duration, found a list");
  EXPECT_EQ(knobs_of("idle_time: 100ns, sampling_interval: 1s").sampling_interval_ns,
            1'000'000'000u);
}

TEST(ConfigGroupKnobs, TableSizeRules) {
  const std::string flows_rule = "must be an integer 64..1048576 (a power of two)";
  EXPECT_EQ(knob_error("max_flows: 1000"), "x.yaml: groups.g.max_flows: 1000: " + flows_rule);
  EXPECT_EQ(knob_error("max_flows: 32"), "x.yaml: groups.g.max_flows: 32: " + flows_rule);
  EXPECT_EQ(knob_error("max_flows: 2097152"), "x.yaml: groups.g.max_flows: 2097152: " + flows_rule);
  EXPECT_EQ(knob_error("max_flows: 4K"), "x.yaml: groups.g.max_flows: \"4K\": " + flows_rule);
  EXPECT_EQ(knobs_of("max_flows: 64").max_flows, 64u);
  EXPECT_EQ(knobs_of("max_flows: 1048576").max_flows, 1048576u);

  const std::string buckets_rule = "must be an integer 64..65536 (a power of two)";
  EXPECT_EQ(knob_error("buckets: 100"), "x.yaml: groups.g.buckets: 100: " + buckets_rule);
  EXPECT_EQ(knob_error("buckets: 131072"), "x.yaml: groups.g.buckets: 131072: " + buckets_rule);
  EXPECT_EQ(knob_error("buckets: -64"), "x.yaml: groups.g.buckets: -64: " + buckets_rule);
  EXPECT_EQ(knob_error("mode: resilient, buckets: 8192"),
            "x.yaml: groups.g.buckets: 8192: resilient hashing takes 64..4096 buckets");
  EXPECT_EQ(knobs_of("mode: resilient, buckets: 4096").buckets, 4096u);
  EXPECT_EQ(knobs_of("mode: wcmp, buckets: 65536").buckets, 65536u);
}

TEST(ConfigGroupKnobs, ModeSetOnTheCommandLineIsNamed) {
  Doc d;
  d.groups = "groups:\n  g: {members: [10.0.0.2], buckets: 8192}\n";
  EXPECT_EQ(load(d.text()).groups[0].knobs.buckets, 8192u);
  EXPECT_EQ(error_of(d.text(), {"groups.g.mode=resilient"}),
            "--set groups.g.mode=resilient: groups.g.buckets: 8192: resilient hashing takes "
            "64..4096 buckets");
}

TEST(ConfigGroupKnobs, BucketsAtLeastMembers) {
  // 65 hosts behind port 0 in one wcmp group with 64 buckets.
  Doc d;
  d.neighbors = "neighbors:\n";
  std::string members;
  for (int i = 0; i < 65; ++i) {
    const std::string ip = "10.0.0." + std::to_string(10 + i);
    char mac[32];
    std::snprintf(mac, sizeof mac, "02:00:00:00:03:%02x", i);
    d.neighbors += "  - {ip: " + ip + ", mac: \"" + mac + "\", port: 0}\n";
    members += (i ? ", " : "") + ip;
  }
  d.groups = "groups:\n  g: {mode: wcmp, buckets: 64, members: [" + members + "]}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: groups.g.buckets: 64: wcmp needs at least as many buckets as members (65)");
  d.groups = "groups:\n  g: {mode: fixed, buckets: 64, members: [" + members + "]}\n";
  EXPECT_EQ(load(d.text()).groups[0].members.size(), 65u);
}

TEST(ConfigGroupKnobs, QualityWeights) {
  EXPECT_EQ(knobs_of("quality: {load_weight: 70}").quality.queue_weight, 30u);
  EXPECT_EQ(knobs_of("quality: {queue_weight: 100}").quality.load_weight, 0u);
  EXPECT_EQ(knob_error("quality: {load_weight: 60, queue_weight: 60}"),
            "x.yaml: groups.g.quality: load_weight + queue_weight must be 100 (found 60 + 60)");
  EXPECT_EQ(knob_error("quality: {load_weight: 101}"),
            "x.yaml: groups.g.quality.load_weight: 101: must be an integer 0..100 (percent)");
  EXPECT_EQ(
      knob_error("quality: {loadweight: 50}"),
      "x.yaml: groups.g.quality.loadweight: unknown key, did you mean \"load_weight\"? (known: "
      "load_weight, queue_weight, load_thresholds, queue_thresholds, depth, load_alpha)");
  EXPECT_EQ(knob_error("quality: 50"), "x.yaml: groups.g.quality: 50: expected a map");
}

TEST(ConfigGroupKnobs, QualityThresholds) {
  EXPECT_EQ(knob_error("quality: {queue_thresholds: [1KB, 2KB]}"),
            "x.yaml: groups.g.quality.queue_thresholds: must list 7 increasing thresholds "
            "(found 2)");
  EXPECT_EQ(knob_error("quality: {queue_thresholds: [1KB, 2KB, 4KB, 4KB, 5KB, 6KB, 7KB]}"),
            "x.yaml: groups.g.quality.queue_thresholds[3]: \"4KB\": thresholds must increase "
            "(queue_thresholds[2] is \"4KB\")");
  EXPECT_EQ(knob_error("quality: {queue_thresholds: [0, 2KB, 3KB, 4KB, 5KB, 6KB, 7KB]}"),
            "x.yaml: groups.g.quality.queue_thresholds[0]: 0: must be a byte size 1B .. 1GB");
  EXPECT_EQ(knob_error("quality: {queue_thresholds: [1KB, 2KB, 3KB, 4KB, 5KB, 6KB, lots]}"),
            "x.yaml: groups.g.quality.queue_thresholds[6]: \"lots\": not a byte size "
            "(expected e.g. 4MB, 1.5MB, 512KiB or an integer in bytes)");
  EXPECT_EQ(knob_error("quality: {queue_thresholds: 16KB}"),
            "x.yaml: groups.g.quality.queue_thresholds: \"16KB\": expected a list");
  EXPECT_EQ(
      knob_error("quality: {load_thresholds: [10, 20, 30, 40, 50, 60, 101]}"),
      "x.yaml: groups.g.quality.load_thresholds[6]: 101: must be an integer 1..100 (percent)");
  EXPECT_EQ(knob_error("quality: {load_thresholds: [10, 20, 30, 40, 50, 60, 60]}"),
            "x.yaml: groups.g.quality.load_thresholds[6]: 60: thresholds must increase "
            "(load_thresholds[5] is 60)");
  EXPECT_EQ(knob_error("quality: {load_thresholds: [10, 20, 30, 40, 50, 60, 70, 80]}"),
            "x.yaml: groups.g.quality.load_thresholds: must list 7 increasing thresholds "
            "(found 8)");
}

TEST(ConfigGroupKnobs, QualityDepthAndAlpha) {
  EXPECT_EQ(knob_error("quality: {depth: queue}"),
            "x.yaml: groups.g.quality.depth: \"queue\": must be one of port, class");
  EXPECT_EQ(knobs_of("quality: {load_alpha: 1}").quality.load_alpha_q16, 65536u);
  EXPECT_EQ(knobs_of("quality: {load_alpha: 1.0}").quality.load_alpha_q16, 65536u);
  EXPECT_EQ(knobs_of("quality: {load_alpha: .125}").quality.load_alpha_q16, 8192u);
  EXPECT_EQ(knobs_of("quality: {load_alpha: 0.1}").quality.load_alpha_q16, 6554u);
  EXPECT_EQ(knobs_of("quality: {load_alpha: 0.0625}").quality.load_alpha_q16, 4096u);
  EXPECT_EQ(knobs_of("quality: {load_alpha: .5}").quality.load_alpha_q16, 32768u);
  const std::string rule = "must be a number 0.001..1";
  for (const char* bad : {"0", "1.5", "-0.25", "abc", "0.000001", "2", "0.25.1", "."})
    EXPECT_EQ(knob_error(std::string("quality: {load_alpha: \"") + bad + "\"}"),
              std::string("x.yaml: groups.g.quality.load_alpha: \"") + bad + "\": " + rule)
        << bad;
}

TEST(ConfigGroupKnobs, DefaultYamlShowsTheDefaults) {
  // configs/default.yaml lists the knobs commented out, with their defaults:
  // uncommented they must load and change nothing (buckets: the wcmp default).
  std::ifstream in(std::string(ROCELB_SOURCE_DIR) + "/configs/default.yaml");
  ASSERT_TRUE(in);
  std::string text, line;
  bool in_knobs = false;
  int uncommented = 0;
  while (std::getline(in, line)) {
    if (line.rfind("    # idle_time:", 0) == 0) in_knobs = true;
    if (in_knobs && line.rfind("    # ", 0) == 0) {
      if (line.rfind("    # seed:", 0) == 0) in_knobs = false;
      line = "    " + line.substr(6);
      ++uncommented;
    }
    text += line + "\n";
  }
  EXPECT_EQ(uncommented, 13);
  const ConfigParams c = load(text);
  const GroupParams* g = c.find_group("uplinks");
  ASSERT_NE(g, nullptr);
  LbKnobs want;
  want.buckets = 4096;
  EXPECT_EQ(g->knobs, want);
}

TEST(ConfigGroupKnobs, DrillAndSeed) {
  EXPECT_EQ(knob_error("drill: {d: 0}"), "x.yaml: groups.g.drill.d: 0: must be an integer 1..16");
  EXPECT_EQ(knob_error("drill: {d: 17}"), "x.yaml: groups.g.drill.d: 17: must be an integer 1..16");
  EXPECT_EQ(knob_error("drill: {m: 17}"), "x.yaml: groups.g.drill.m: 17: must be an integer 0..16");
  EXPECT_EQ(knob_error("drill: {k: 1}"),
            "x.yaml: groups.g.drill.k: unknown key (known: d, m, memory)");
  EXPECT_EQ(knobs_of("drill: {m: 16}").drill.m, 16u);
  EXPECT_EQ(knobs_of("seed: 18446744073709551615").seed, UINT64_MAX);
  EXPECT_EQ(knob_error("seed: -1"),
            "x.yaml: groups.g.seed: -1: must be an integer 0..18446744073709551615");
}

// ---- routes -----------------------------------------------------------------

std::string route_error(const std::string& routes) {
  Doc d;
  d.routes = routes;
  return error_of(d.text());
}

TEST(ConfigRoutes, PrefixLengthRule) {
  EXPECT_EQ(route_error("routes:\n"
                        "  - {prefix: 0.0.0.0/0, group: g}\n"
                        "  - {prefix: 10.9.0.0/16, via: 10.0.0.2}\n"
                        "  - {prefix: \"10.0.0.0/33\", group: g}\n"),
            "x.yaml: routes[2].prefix: \"10.0.0.0/33\": prefix length must be 0..32");
  EXPECT_EQ(route_error("routes: [{prefix: \"fd00::/129\", group: g}]\n"),
            "x.yaml: routes[0].prefix: \"fd00::/129\": prefix length must be 0..128");
  EXPECT_EQ(route_error("routes: [{prefix: 10.0.0.0, group: g}]\n"),
            "x.yaml: routes[0].prefix: \"10.0.0.0\": missing /LEN");
  EXPECT_EQ(route_error("routes: [{prefix: default, group: g}]\n"),
            "x.yaml: routes[0].prefix: \"default\": not an IP address");
}

TEST(ConfigRoutes, PrefixMustBeCanonical) {
  EXPECT_EQ(route_error("routes: [{prefix: 10.0.0.1/24, group: g}]\n"),
            "x.yaml: routes[0].prefix: \"10.0.0.1/24\": host bits set beyond /24");
  EXPECT_EQ(route_error("routes: [{prefix: \"fd00::1/64\", group: g}]\n"),
            "x.yaml: routes[0].prefix: \"fd00::1/64\": host bits set beyond /64");
}

TEST(ConfigRoutes, DuplicatePrefix) {
  EXPECT_EQ(route_error("routes:\n"
                        "  - {prefix: 10.9.0.0/16, group: g}\n"
                        "  - {prefix: 10.8.0.0/16, group: g}\n"
                        "  - {prefix: 10.9.0.0/16, via: 10.0.0.2}\n"),
            "x.yaml: routes[2].prefix: \"10.9.0.0/16\": duplicate prefix (also routes[0])");
  EXPECT_EQ(route_error("routes:\n"
                        "  - {prefix: \"fd00::/16\", group: g}\n"
                        "  - {prefix: \"fd00:0::/16\", group: g}\n"),
            "x.yaml: routes[1].prefix: \"fd00:0::/16\": duplicate prefix (also routes[0])");
}

// A routing table of 40,000 prefixes loads (the duplicate rule is one
// pass, not a comparison of every pair), a duplicate at its end is still
// named, and an IPv4 prefix never collides with an IPv6 one of the same bytes.
TEST(ConfigRoutes, LargeTableAndItsDuplicates) {
  std::string routes = "routes:\n";
  for (int i = 0; i < 40000; ++i)
    routes += "  - {prefix: 11." + std::to_string(i / 256) + "." + std::to_string(i % 256) +
              ".0/24, group: g}\n";
  EXPECT_EQ(route_error(routes), "no error");
  EXPECT_EQ(route_error(routes + "  - {prefix: 11.156.63.0/24, group: g}\n"),
            "x.yaml: routes[40000].prefix: \"11.156.63.0/24\": duplicate prefix (also "
            "routes[39999])");
  EXPECT_EQ(route_error("routes:\n"
                        "  - {prefix: 10.0.0.0/8, group: g}\n"
                        "  - {prefix: \"a00::/8\", group: g}\n"),
            "no error");
}

TEST(ConfigRoutes, ExactlyOneTarget) {
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16}]\n"),
            "x.yaml: routes[0]: needs exactly one of group, via, port (found none)");
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, group: g, via: 10.0.0.2}]\n"),
            "x.yaml: routes[0]: needs exactly one of group, via, port (found group and via)");
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, port: 0, group: g, via: 10.0.0.2}]\n"),
            "x.yaml: routes[0]: needs exactly one of group, via, port (found group, via and "
            "port)");
}

TEST(ConfigRoutes, MissingPrefixAndUnknownKey) {
  EXPECT_EQ(route_error("routes: [{group: g}]\n"),
            "x.yaml: routes[0]: missing required key \"prefix\"");
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, nexthop: 10.0.0.2}]\n"),
            "x.yaml: routes[0].nexthop: unknown key (known: prefix, group, via, port)");
  EXPECT_EQ(route_error("routes: {prefix: 10.9.0.0/16}\n"),
            "x.yaml: routes: expected a list, found a map");
}

TEST(ConfigRoutes, GroupMustExist) {
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, group: spines}]\n"),
            "x.yaml: routes[0].group: \"spines\": no such group (groups: g)");
  Doc d;
  d.groups.clear();
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: routes[0].group: \"g\": no such group (no groups are defined)");
}

TEST(ConfigRoutes, ViaMustBeANeighbor) {
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, via: 10.0.0.7}]\n"),
            "x.yaml: routes[0].via: \"10.0.0.7\": not a configured neighbor");
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, via: 10.0.0}]\n"),
            "x.yaml: routes[0].via: \"10.0.0\": not an IP address");
}

TEST(ConfigRoutes, PortMustExist) {
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, port: 2}]\n"),
            "x.yaml: routes[0].port: 2: not a configured port");
  EXPECT_EQ(route_error("routes: [{prefix: 10.9.0.0/16, port: p1}]\n"),
            "x.yaml: routes[0].port: \"p1\": must be an integer 0..255");
}

TEST(ConfigRoutes, TargetsAndFileOrder) {
  Doc d;
  d.routes =
      "routes:\n"
      "  - {prefix: 10.9.0.0/16, via: 10.0.0.2}\n"
      "  - {prefix: 0.0.0.0/0, group: g}\n"
      "  - {prefix: \"::/0\", group: g}\n"
      "  - {prefix: 10.8.0.0/16, port: 1}\n";
  ConfigParams c = load(d.text());
  ASSERT_EQ(c.routes.size(), 4u);
  EXPECT_EQ(to_string(c.routes[0].prefix), "10.9.0.0/16");
  EXPECT_EQ(c.routes[0].target, RouteTarget::kVia);
  EXPECT_EQ(c.routes[0].via, ip("10.0.0.2"));
  EXPECT_EQ(to_string(c.routes[1].prefix), "0.0.0.0/0");
  EXPECT_EQ(c.routes[1].target, RouteTarget::kGroup);
  EXPECT_EQ(to_string(c.routes[2].prefix), "::/0");
  EXPECT_EQ(c.routes[2].group, "g");
  EXPECT_EQ(to_string(c.routes[3].prefix), "10.8.0.0/16");
  EXPECT_EQ(c.routes[3].target, RouteTarget::kPort);
  EXPECT_EQ(c.routes[3].port, 1);
}

// ---- qos --------------------------------------------------------------------

std::string qos_error(const std::string& qos) {
  Doc d;
  d.qos = "qos: " + qos + "\n";
  return error_of(d.text());
}

QosParams qos_of(const std::string& qos) {
  Doc d;
  d.qos = "qos: " + qos + "\n";
  return load(d.text()).qos;
}

TEST(ConfigQos, UnknownKey) {
  EXPECT_EQ(qos_error("{pfc_enabled: [3, 4]}"),
            std::string("x.yaml: qos.pfc_enabled: unknown key, did you mean \"pfc_enable\"? ") +
                kQosKeys);
  EXPECT_EQ(qos_error("{scheduler: {strct: [6]}}"),
            "x.yaml: qos.scheduler.strct: unknown key, did you mean \"strict\"? (known: strict, "
            "weights)");
  EXPECT_EQ(qos_error("[dscp]"), "x.yaml: qos: expected a map, found a list");
}

TEST(ConfigQos, Trust) {
  EXPECT_EQ(qos_of("{trust: pcp}").trust, Trust::kPcp);
  EXPECT_EQ(qos_of("{trust: dscp}").trust, Trust::kDscp);
  EXPECT_EQ(qos_error("{trust: exp}"), "x.yaml: qos.trust: \"exp\": must be one of dscp, pcp");
}

TEST(ConfigQos, DefaultTc) {
  QosParams q = qos_of("{default_tc: 2, dscp_to_tc: {26: 3}, pcp_to_tc: {6: 6}}");
  EXPECT_EQ(q.default_tc, 2);
  EXPECT_EQ(q.dscp_to_tc[26], 3);
  EXPECT_EQ(q.dscp_to_tc[0], 2);
  EXPECT_EQ(q.dscp_to_tc[63], 2);
  EXPECT_EQ(q.pcp_to_tc[6], 6);
  EXPECT_EQ(q.pcp_to_tc[0], 2);
  EXPECT_EQ(qos_error("{default_tc: 8}"),
            "x.yaml: qos.default_tc: 8: must be an integer 0..7 (traffic class)");
}

TEST(ConfigQos, DscpMap) {
  QosParams q = qos_of("{dscp_to_tc: {0: 1, 26: 3, 48: 6, 63: 7}}");
  EXPECT_EQ(q.dscp_to_tc[0], 1);
  EXPECT_EQ(q.dscp_to_tc[26], 3);
  EXPECT_EQ(q.dscp_to_tc[48], 6);
  EXPECT_EQ(q.dscp_to_tc[63], 7);
  EXPECT_EQ(q.dscp_to_tc[1], 0);
  EXPECT_EQ(qos_error("{dscp_to_tc: {64: 1}}"),
            "x.yaml: qos.dscp_to_tc.64: DSCP must be an integer 0..63");
  EXPECT_EQ(qos_error("{dscp_to_tc: {af31: 1}}"),
            "x.yaml: qos.dscp_to_tc.af31: DSCP must be an integer 0..63");
  EXPECT_EQ(qos_error("{dscp_to_tc: {26: 8}}"),
            "x.yaml: qos.dscp_to_tc.26: 8: must be an integer 0..7 (traffic class)");
  EXPECT_EQ(qos_error("{dscp_to_tc: {26: 3, 0x1a: 4}}"),
            "x.yaml: qos.dscp_to_tc.0x1a: duplicate DSCP 26 (also qos.dscp_to_tc.26)");
  EXPECT_EQ(qos_error("{dscp_to_tc: [26]}"),
            "x.yaml: qos.dscp_to_tc: expected a map, found a list");
}

TEST(ConfigQos, PcpMap) {
  QosParams q = qos_of("{pcp_to_tc: {3: 3, 7: 5}}");
  EXPECT_EQ(q.pcp_to_tc[3], 3);
  EXPECT_EQ(q.pcp_to_tc[7], 5);
  EXPECT_EQ(q.pcp_to_tc[1], 0);
  EXPECT_EQ(qos_error("{pcp_to_tc: {8: 1}}"),
            "x.yaml: qos.pcp_to_tc.8: PCP must be an integer 0..7");
  EXPECT_EQ(qos_error("{pcp_to_tc: {3: -1}}"),
            "x.yaml: qos.pcp_to_tc.3: -1: must be an integer 0..7 (traffic class)");
}

TEST(ConfigQos, Scheduler) {
  QosParams q = qos_of("{scheduler: {strict: [6, 7], weights: {0: 50, 3: 100, 5: 1}}}");
  EXPECT_TRUE(q.scheduler.strict[6]);
  EXPECT_TRUE(q.scheduler.strict[7]);
  EXPECT_FALSE(q.scheduler.strict[3]);
  EXPECT_EQ(q.scheduler.weight[0], 50u);
  EXPECT_EQ(q.scheduler.weight[3], 100u);
  EXPECT_EQ(q.scheduler.weight[5], 1u);
  EXPECT_EQ(q.scheduler.weight[1], 1u);
}

TEST(ConfigQos, SchedulerRules) {
  EXPECT_EQ(qos_error("{scheduler: {strict: [6, 6]}}"),
            "x.yaml: qos.scheduler.strict[1]: 6: duplicate traffic class (also strict[0])");
  EXPECT_EQ(qos_error("{scheduler: {strict: [9]}}"),
            "x.yaml: qos.scheduler.strict[0]: 9: must be an integer 0..7 (traffic class)");
  EXPECT_EQ(qos_error("{scheduler: {strict: 6}}"),
            "x.yaml: qos.scheduler.strict: 6: expected a list");
  EXPECT_EQ(qos_error("{scheduler: {weights: {3: 0}}}"),
            "x.yaml: qos.scheduler.weights.3: 0: must be an integer 1..100");
  EXPECT_EQ(qos_error("{scheduler: {weights: {3: 101}}}"),
            "x.yaml: qos.scheduler.weights.3: 101: must be an integer 1..100");
  EXPECT_EQ(qos_error("{scheduler: {weights: {8: 10}}}"),
            "x.yaml: qos.scheduler.weights.8: traffic class must be an integer 0..7");
  EXPECT_EQ(qos_error("{scheduler: {strict: [6], weights: {6: 10}}}"),
            "x.yaml: qos.scheduler.weights.6: traffic class 6 is strict priority and cannot "
            "also have a weight");
}

TEST(ConfigQos, QueueLimits) {
  QosParams q = qos_of("{queue_limit: 1.5MB, queue_limits: {3: 8MB, 6: 512KiB, 0: 1000}}");
  EXPECT_EQ(q.queue_limit_bytes[1], 1'500'000u);
  EXPECT_EQ(q.queue_limit_bytes[7], 1'500'000u);
  EXPECT_EQ(q.queue_limit_bytes[3], 8'000'000u);
  EXPECT_EQ(q.queue_limit_bytes[6], 524'288u);
  EXPECT_EQ(q.queue_limit_bytes[0], 1000u);
  EXPECT_EQ(qos_of("{queue_limit: 64B}").queue_limit_bytes[2], 64u);
  EXPECT_EQ(qos_of("{queue_limit: 1GB}").queue_limit_bytes[2], 1'000'000'000u);
  EXPECT_EQ(qos_of("{trust: dscp}").queue_limit_bytes[4], 4'000'000u);
}

TEST(ConfigQos, QueueLimitRules) {
  EXPECT_EQ(qos_error("{queue_limit: 63}"),
            "x.yaml: qos.queue_limit: 63: must be a byte size 64B .. 1GB");
  EXPECT_EQ(qos_error("{queue_limit: 1GiB}"),
            "x.yaml: qos.queue_limit: \"1GiB\": must be a byte size 64B .. 1GB");
  EXPECT_EQ(qos_error("{queue_limit: 4XB}"),
            "x.yaml: qos.queue_limit: \"4XB\": not a byte size (expected e.g. 4MB, 1.5MB, 512KiB "
            "or an integer in bytes)");
  EXPECT_EQ(qos_error("{queue_limits: {3: 2GB}}"),
            "x.yaml: qos.queue_limits.3: \"2GB\": must be a byte size 64B .. 1GB");
  EXPECT_EQ(qos_error("{queue_limits: {8: 2MB}}"),
            "x.yaml: qos.queue_limits.8: traffic class must be an integer 0..7");
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// Found by tests/fuzz/config_fuzz.cc: yaml-cpp's LoadAll never returned on
// this text. The loader must answer (here: a validation error) at once.
TEST(ConfigLoaderRegression, MalformedBlockWithLeadingCommaDoesNotHang) {
  const std::string text = "# rocelb default switch: one leaports:\n  , mac: 00:0f of a t:002";
  EXPECT_THROW(load_config_text(text, "x.yaml"), ConfigError);
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// Nested aliases ("billion laughs") stand for more nodes than any config
// has: refused while the text is read, before anything walks them (the
// UTF-8 check would have walked every one).
TEST(ConfigLoader, NestedAliasesAreRefusedBeforeAnyWalk) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 13; ++i)
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [*a" + std::to_string(i - 1) +
            ", *a" + std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
            std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
            std::to_string(i - 1) + ", *a" + std::to_string(i - 1) + ", *a" +
            std::to_string(i - 1) + "]\n";
  try {
    load_config_text(text, "bomb.yaml");
    FAIL() << "loaded";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("more than 3000000 YAML nodes"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace rocelb
