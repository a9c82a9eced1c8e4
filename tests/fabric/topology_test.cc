// The generated leaf-spine: names, addressing, links, the switches' configs
// (validated by the real loader, routes that reach every host), overrides for
// every switch or one, and one clear error per bad key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "control/net_types.h"
#include "dataplane/sim/topology.h"

namespace rocelb {
namespace {

const char* kSmall =
    "leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 40G\n"
    "link_delay: 1us\n";

Topology small(const std::vector<std::string>& sets = {}) {
  return load_topology_text(kSmall, "t.yaml", ".", sets);
}

std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
  try {
    load_topology_text(text, "t.yaml", ".", sets);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "(loaded)";
}

// switch_set: --set's KEY=VALUE changes to the switch config every switch
// starts from, in the file; the command line's --set still comes after.
TEST(Topology, SwitchSetChangesEverySwitchsConfigAndSetComesAfter) {
  const std::string text = std::string(kSmall) +
                           "switch_set: ['qos.pfc_enable=[]', 'qos.queue_limit=1MB', "
                           "'groups.uplinks.mode=flowlet_random']\n";
  const Topology t = load_topology_text(text, "t.yaml", ".", {});
  for (const FabricSwitch& sw : t.switches) {
    EXPECT_EQ(sw.params.qos.lossless.pfc.enable_mask, 0u) << sw.name;
    EXPECT_EQ(sw.params.qos.queue_limit_bytes[3], 1'000'000u) << sw.name;
  }
  EXPECT_EQ(t.switches[0].params.groups.at(0).mode, LbMode::kFlowletRandom);
  const Topology over = load_topology_text(text, "t.yaml", ".", {"qos.pfc_enable=[3]"});
  for (const FabricSwitch& sw : over.switches)
    EXPECT_EQ(sw.params.qos.lossless.pfc.enable_mask, 1u << 3) << sw.name;
  // The same in a fat tree.
  const Topology fat = load_topology_text(
      "k: 4\nhost_speed: 100G\nlink_delay: 1us\nswitch_set: ['qos.pfc_enable=[]']\n", "f.yaml", ".",
      {});
  ASSERT_EQ(fat.switches.size(), 20u);
  for (const FabricSwitch& sw : fat.switches)
    EXPECT_EQ(sw.params.qos.lossless.pfc.enable_mask, 0u) << sw.name;
  // One clear error each: where, which entry, which rule.
  EXPECT_EQ(error_of(std::string(kSmall) + "switch_set: ['qos.pfc_enable=[3]', 'qos']\n")
                .rfind("t.yaml: switch_set[1] qos: ", 0),
            0u)
      << error_of(std::string(kSmall) + "switch_set: ['qos.pfc_enable=[3]', 'qos']\n");
  EXPECT_EQ(error_of(std::string(kSmall) + "switch_set: [{qos: 1}]\n"),
            "t.yaml: switch_set[0]: must be KEY=VALUE, as --set takes it (found a map)");
  EXPECT_NE(
      error_of(std::string(kSmall) + "switch_set: ['qos.pfc_enable=[9]']\n").find("qos.pfc_enable"),
      std::string::npos);
}

TEST(Topology, NamesHostsLeafByLeafAndSwitchesLeavesFirst) {
  const Topology t = small();
  ASSERT_EQ(t.switches.size(), 4u);
  EXPECT_EQ(t.switches[0].name, "leaf0");
  EXPECT_EQ(t.switches[1].name, "leaf1");
  EXPECT_EQ(t.switches[2].name, "spine0");
  EXPECT_EQ(t.switches[3].name, "spine1");
  ASSERT_EQ(t.hosts.size(), 8u);
  EXPECT_EQ(t.hosts[5].name, "h5");
  EXPECT_EQ(t.hosts[5].sw, 1u);
  EXPECT_EQ(t.hosts[5].port, 1);
  EXPECT_EQ(to_string(t.hosts[5].ip), "10.1.1.2");
  EXPECT_EQ(to_string(t.hosts[5].gateway), "10.1.1.1");
  EXPECT_EQ(to_string(t.hosts[5].mac), "02:00:0a:01:01:02");
  EXPECT_EQ(t.hosts[5].speed_bps, 100'000'000'000u);
  EXPECT_EQ(t.hosts[5].delay_ns, 1000u);
  EXPECT_EQ(t.host_index("h7"), 7u);
  EXPECT_FALSE(t.host_index("h8"));
  EXPECT_EQ(t.switch_index("spine1"), 3u);
}

TEST(Topology, EveryLeafHasOneLinkToEverySpine) {
  const Topology t = small();
  ASSERT_EQ(t.links.size(), 4u);
  for (const FabricLink& k : t.links) {
    EXPECT_EQ(t.switches[k.a_sw].role, SwitchRole::kLeaf);
    EXPECT_EQ(t.switches[k.b_sw].role, SwitchRole::kSpine);
    EXPECT_EQ(k.a_port, 4 + (k.b_sw - 2));  // uplinks follow the host ports
    EXPECT_EQ(k.b_port, k.a_sw);            // spine port l faces leaf l
    EXPECT_EQ(k.speed_bps, 40'000'000'000u);
    // The two ends' neighbour entries name each other's address and MAC.
    const ConfigParams& leaf = t.switches[k.a_sw].params;
    const ConfigParams& spine = t.switches[k.b_sw].params;
    const auto& lp = leaf.ports[k.a_port];
    const auto& sp = spine.ports[k.b_port];
    bool leaf_knows = false, spine_knows = false;
    for (const auto& n : leaf.neighbors)
      leaf_knows |= n.port == k.a_port && n.mac == sp.mac && sp.ipv4 && n.ip == sp.ipv4->addr;
    for (const auto& n : spine.neighbors)
      spine_knows |= n.port == k.b_port && n.mac == lp.mac && lp.ipv4 && n.ip == lp.ipv4->addr;
    EXPECT_TRUE(leaf_knows) << t.switches[k.a_sw].config_yaml;
    EXPECT_TRUE(spine_knows) << t.switches[k.b_sw].config_yaml;
  }
}

TEST(Topology, LeavesSpreadOverTheirUplinksAndSpinesRouteToEachLeaf) {
  const Topology t = small();
  const ConfigParams& leaf = t.switches[1].params;
  ASSERT_EQ(leaf.groups.size(), 1u);
  EXPECT_EQ(leaf.groups[0].name, "uplinks");
  EXPECT_EQ(leaf.groups[0].members.size(), 2u);
  ASSERT_EQ(leaf.routes.size(), 1u);
  EXPECT_EQ(to_string(leaf.routes[0].prefix), "0.0.0.0/0");
  EXPECT_EQ(leaf.ports.size(), 6u);
  EXPECT_EQ(leaf.ports[4].speed_bps, 40'000'000'000u);
  EXPECT_EQ(leaf.ports[0].speed_bps, 100'000'000'000u);
  // The default config's lossless class comes along.
  EXPECT_TRUE(leaf.qos.lossless.pfc.enable_mask & 8);

  const ConfigParams& spine = t.switches[2].params;
  EXPECT_TRUE(spine.groups.empty());
  ASSERT_EQ(spine.routes.size(), 2u);
  EXPECT_EQ(to_string(spine.routes[1].prefix), "10.1.0.0/16");
  EXPECT_EQ(spine.routes[1].target, RouteTarget::kVia);
  for (const FabricHost& h : t.hosts) {
    int covering = 0;
    for (const auto& r : spine.routes) covering += r.prefix.contains(h.ip);
    EXPECT_EQ(covering, 1) << h.name;
  }
}

TEST(Topology, ASetGoesToEverySwitchOrToTheOneItNames) {
  const Topology t = small({"groups.uplinks.mode=drill", "leaf1:qos.pfc_enable=[]",
                            "switch.hash_seed=7", "spine0:ports[1].speed=10G"});
  EXPECT_EQ(t.switches[0].params.groups[0].mode, t.switches[1].params.groups[0].mode);
  EXPECT_EQ(t.switches[0].overrides.front(), "groups.uplinks.mode=drill");
  EXPECT_TRUE(t.switches[2].params.groups.empty());  // spines skip groups.*
  EXPECT_TRUE(t.switches[0].params.qos.lossless.pfc.enable_mask & 8);
  EXPECT_FALSE(t.switches[1].params.qos.lossless.pfc.enable_mask & 8);
  for (const auto& s : t.switches) EXPECT_EQ(s.params.sw.hash_seed, 7u) << s.name;
  EXPECT_EQ(t.switches[2].params.ports[1].speed_bps, 10'000'000'000u);
  EXPECT_EQ(t.switches[3].params.ports[1].speed_bps, 40'000'000'000u);
}

TEST(Topology, ABadSetNamesTheSwitchAndTheKey) {
  EXPECT_EQ(error_of(kSmall, {"leaf9:qos.pfc_enable=[]"}),
            "t.yaml: --set leaf9:qos.pfc_enable=[]: no such switch \"leaf9\" (switches: "
            "leaf0..spine1)");
  const std::string e = error_of(kSmall, {"leaf1:ports[0].speed=fast"});
  EXPECT_EQ(e.rfind("t.yaml: leaf1: ", 0), 0u) << e;
  EXPECT_NE(e.find("ports[0].speed"), std::string::npos) << e;
}

TEST(Topology, EachBadKeyGetsOneClearError) {
  const std::string base =
      "spines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\nlink_delay: 1us\n";
  EXPECT_EQ(error_of(base), "t.yaml: missing required key \"leaves\"");
  EXPECT_EQ(error_of(base + "leaves: 0\n"), "t.yaml: leaves: 0: must be an integer 1..99");
  EXPECT_EQ(error_of(base + "leaves: 2x\n"), "t.yaml: leaves: \"2x\": must be an integer 1..99");
  EXPECT_EQ(error_of(base + "leaves: [2]\n"), "t.yaml: leaves: expected an integer, found a list");
  EXPECT_EQ(error_of(base + "leaves: 2\nleafs: 3\n"),
            "t.yaml: leafs: unknown key, did you mean \"leaves\"? (known: leaves, spines, "
            "hosts_per_leaf, host_speed, uplink_speed, link_delay, planes, switch_config, "
            "switch_set, nic)");
  EXPECT_EQ(error_of("leaves: 2\nspines: 8\nhosts_per_leaf: 250\nhost_speed: 100G\n"
                     "uplink_speed: 100G\nlink_delay: 1us\n"),
            "t.yaml: hosts_per_leaf: hosts_per_leaf + spines is 258: a leaf has at most 256 ports");
  EXPECT_EQ(error_of("leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100X\n"
                     "uplink_speed: 100G\nlink_delay: 1us\n")
                .rfind("t.yaml: host_speed: \"100X\": ", 0),
            0u);
  EXPECT_EQ(error_of("leaves: 2\nspines: 2\nhosts_per_leaf: 4\nhost_speed: 100G\n"
                     "uplink_speed: 100G\nlink_delay: 2s\n"),
            "t.yaml: link_delay: \"2s\": must be a duration 0ns .. 1s");
  EXPECT_EQ(error_of("- 1\n"),
            "t.yaml: a topology is a map of leaves, spines, hosts_per_leaf, host_speed, "
            "uplink_speed, link_delay and switch_config, or of switches, links and hosts "
            "(found a list)");
  EXPECT_EQ(error_of("leaves: [\n").rfind("t.yaml:2:1: invalid YAML: ", 0), 0u)
      << error_of("leaves: [\n");
  EXPECT_EQ(error_of(std::string(kSmall) + "switch_config: /nonexistent/x.yaml\n"),
            "t.yaml: switch_config: cannot read config file \"/nonexistent/x.yaml\": No such "
            "file or directory");
}

TEST(Topology, SwitchConfigIsRelativeToTheTopologyFile) {
  const auto dir = std::filesystem::temp_directory_path() / "rocelb_topology_test";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "sw.yaml") << "qos:\n  pfc_enable: [2]\ngroups:\n  uplinks:\n"
                                    "    mode: per_packet_random\n    members: []\n";
  std::ofstream(dir / "fabric.yaml") << kSmall << "switch_config: sw.yaml\n";
  const Topology t = load_topology_file((dir / "fabric.yaml").string());
  EXPECT_TRUE(t.switches[0].params.qos.lossless.pfc.enable_mask & 4);
  EXPECT_FALSE(t.switches[0].params.qos.lossless.pfc.enable_mask & 8);
  EXPECT_EQ(t.switches[0].params.groups[0].members.size(), 2u);
  std::filesystem::remove_all(dir);
  try {
    load_topology_file((dir / "fabric.yaml").string());
    ADD_FAILURE() << "a missing file loaded";
  } catch (const TopologyError& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cannot read topology file \"", 0), 0u) << e.what();
  }
}

TEST(Topology, TheShippedFabricsLoad) {
  for (const char* name : {"leaf_spine_2x2_8h", "leaf_spine_32_100G_OS2", "leaf_spine_128_100G_OS2",
                           "leaf_spine_32_100G_OS2_conweave"}) {
    const Topology t =
        load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/" + name + ".yaml");
    EXPECT_EQ(t.hosts.size(), size_t(t.leaves) * t.hosts_per_leaf) << name;
    EXPECT_EQ(t.links.size(), size_t(t.leaves) * t.spines) << name;
  }
  const Topology big = load_topology_file(std::string(ROCELB_SOURCE_DIR) +
                                          "/configs/fabrics/leaf_spine_128_100G_OS2.yaml");
  EXPECT_EQ(big.hosts.size(), 128u);
  EXPECT_EQ(big.switches.size(), 16u);
  // ConWeave's IRN runs: selective repeat, one BDP in flight, PFC off on
  // every switch (switch_set), the rest as the lossless presets.
  for (const char* name :
       {"leaf_spine_32_100G_OS2_conweave_irn", "leaf_spine_128_100G_OS2_conweave_irn"}) {
    SCOPED_TRACE(name);
    const Topology irn =
        load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/" + name + ".yaml");
    EXPECT_EQ(irn.nic.loss_recovery, LossRecovery::kSelectiveRepeat);
    EXPECT_EQ(irn.nic.max_inflight_bytes, 104'000u);
    EXPECT_TRUE(irn.nic.dcqcn.cnp_in_ack);
    for (const FabricSwitch& sw : irn.switches) {
      EXPECT_EQ(sw.params.qos.lossless.pfc.enable_mask, 0u) << sw.name;
      EXPECT_EQ(sw.params.qos.lossless.ecn_mark, EcnMarkPoint::kDequeue) << sw.name;
    }
  }
  // The ConWeave settings reach the switches and the NICs, in both shapes.
  for (const char* name : {"leaf_spine_32_100G_OS2_conweave", "leaf_spine_128_100G_OS2_conweave"}) {
    SCOPED_TRACE(name);
    const Topology cw =
        load_topology_file(std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/" + name + ".yaml");
    EXPECT_EQ(cw.nic.dcqcn.rpg_ai_rate, 40u);
    EXPECT_EQ(cw.nic.dcqcn.rpg_byte_reset, 0u);
    EXPECT_EQ(cw.switches[0].params.qos.lossless.wred[3].min_bytes, 100'000u);
    EXPECT_TRUE(cw.switches[0].params.qos.lossless.pfc.dynamic);
    // ConWeave's ns-3 settings (issue 26), in the preset itself: ACK/NACKs in
    // the strict class PFC never pauses, a mark told in the ACK, ECN at
    // dequeue, XOFF at 1/16 of the free buffer, XON just under, 9 MiB.
    EXPECT_EQ(cw.nic.ack_priority, std::optional<uint8_t>(6));
    EXPECT_EQ(cw.nic.ack_dscp, std::optional<uint8_t>(48));
    EXPECT_TRUE(cw.nic.dcqcn.cnp_in_ack);
    for (const FabricSwitch& sw : cw.switches) {
      const LosslessParams& l = sw.params.qos.lossless;
      EXPECT_EQ(l.ecn_mark, EcnMarkPoint::kDequeue) << sw.name;
      EXPECT_EQ(l.pfc.dynamic_th, -4) << sw.name;
      EXPECT_EQ(l.pfc.xon_offset_bytes, 64u) << sw.name;
      EXPECT_EQ(l.pfc.shared_buffer_bytes, 9u << 20) << sw.name;
      EXPECT_EQ(l.pfc.enable_mask, 1u << 3) << sw.name;
      EXPECT_EQ(sw.params.qos.dscp_to_tc[48], 6) << sw.name;
      EXPECT_TRUE(sw.params.qos.scheduler.strict[6]) << sw.name;
      EXPECT_FALSE(l.wred[6].enabled) << sw.name;
    }
  }
}

}  // namespace

TEST(Topology, NicKnobsComeFromTheFileAndNicOverrides) {
  const std::string base =
      "leaves: 2\nspines: 2\nhosts_per_leaf: 2\nhost_speed: 100G\nuplink_speed: 100G\n"
      "link_delay: 1us\n";
  const Topology plain = load_topology_text(base, "t.yaml", ".");
  EXPECT_EQ(plain.nic.mtu, 1024u);
  EXPECT_EQ(plain.nic.loss_recovery, LossRecovery::kGoBackN);
  const Topology t = load_topology_text(
      base + "nic: {mtu: 4096}\n", "t.yaml", ".",
      {"nic.loss_recovery=selective_repeat", "nic.dcqcn.enabled=false", "qos.pfc_enable=[]"});
  EXPECT_EQ(t.nic.mtu, 4096u);
  EXPECT_EQ(t.nic.loss_recovery, LossRecovery::kSelectiveRepeat);
  EXPECT_FALSE(t.nic.dcqcn.enabled);
  // nic.* went to the NICs only; the switch override still reached every switch.
  for (const FabricSwitch& s : t.switches) {
    EXPECT_EQ(s.overrides, std::vector<std::string>{"qos.pfc_enable=[]"}) << s.name;
  }
  try {
    load_topology_text(base, "t.yaml", ".", {"nic.mtu=1000"});
    ADD_FAILURE() << "mtu 1000 was accepted";
  } catch (const TopologyError& e) {
    // The --set made the value: it is named, not the file.
    EXPECT_EQ(std::string(e.what()),
              "--set nic.mtu=1000: nic.mtu: 1000: must be 256, 512, 1024, 2048 or 4096 "
              "(framing ethernet: the IB path MTUs)");
  }
  try {
    load_topology_text(base + "nic: {mtus: 1024}\n", "t.yaml", ".");
    ADD_FAILURE() << "an unknown NIC key was accepted";
  } catch (const TopologyError& e) {
    EXPECT_NE(std::string(e.what()).find("nic.mtus"), std::string::npos) << e.what();
  }
}

}  // namespace rocelb
