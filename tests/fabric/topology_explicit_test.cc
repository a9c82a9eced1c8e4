// The explicit topology form: the shipped asymmetric fabric, a generated
// fabric exported and loaded back unchanged, and one clear error per rule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dataplane/sim/ideal_fct.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/topology_explicit.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

const std::string kDir = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/";

class ExplicitTopology : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-explicit-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    // Switch configs to point at: the shipped asymmetric fabric's.
    for (const char* s : {"leaf0", "leaf1", "spine0", "spine1"})
      fs::copy_file(kDir + "asymmetric_2x2/" + s + ".yaml", dir_ / (std::string(s) + ".yaml"));
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string error_of(const std::string& text) {
    try {
      load_topology_text(text, "f.yaml", dir_.string());
    } catch (const TopologyError& e) {
      return e.what();
    }
    return "(loaded)";
  }

  fs::path dir_;
};

TEST_F(ExplicitTopology, TheShippedAsymmetricFabricHasItsSlowAndLongLinks) {
  const Topology t = load_topology_file(kDir + "asymmetric_2x2/fabric.yaml");
  ASSERT_EQ(t.switches.size(), 4u);
  EXPECT_EQ(t.leaves, 2u);
  EXPECT_EQ(t.spines, 2u);
  EXPECT_EQ(t.hosts_per_leaf, 4u);
  EXPECT_EQ(t.switches[0].role, SwitchRole::kLeaf);
  EXPECT_EQ(t.switches[3].role, SwitchRole::kSpine);
  ASSERT_EQ(t.links.size(), 4u);
  EXPECT_EQ(t.links[1].speed_bps, 25'000'000'000u);  // leaf0:5 - spine1:0
  EXPECT_EQ(t.links[3].delay_ns, 6'000u);            // leaf1:5 - spine1:1
  ASSERT_EQ(t.hosts.size(), 8u);
  EXPECT_EQ(t.hosts[4].name, "h4");
  EXPECT_EQ(t.hosts[4].sw, 1u);
  EXPECT_EQ(t.hosts[4].gateway_mac, t.switches[1].params.find_port(0)->mac);
  // The ideal path avoids the slow link: through spine0, 100G everywhere.
  const auto path = host_path(t, 0, 4);
  ASSERT_EQ(path.size(), 4u);
  for (const PathLink& l : path) EXPECT_EQ(l.speed_bps, 100'000'000'000u);
}

TEST_F(ExplicitTopology, AGeneratedFabricExportedLoadsBackTheSame) {
  const Topology g = load_topology_file(kDir + "leaf_spine_2x2_8h.yaml",
                                        {"leaf0:qos.pfc_enable=[]", "nic.mtu=4096"});
  for (const auto& [name, text] : export_explicit_topology(g)) std::ofstream(dir_ / name) << text;
  const Topology e = load_topology_file((dir_ / "fabric.yaml").string());
  ASSERT_EQ(e.switches.size(), g.switches.size());
  for (size_t i = 0; i < g.switches.size(); ++i) {
    EXPECT_EQ(e.switches[i].name, g.switches[i].name);
    EXPECT_EQ(e.switches[i].role, g.switches[i].role);
    EXPECT_EQ(e.switches[i].params.ports.size(), g.switches[i].params.ports.size());
    EXPECT_EQ(e.switches[i].params.routes.size(), g.switches[i].params.routes.size());
    EXPECT_EQ(e.switches[i].params.qos.lossless.pfc.enable_mask,
              g.switches[i].params.qos.lossless.pfc.enable_mask);
  }
  ASSERT_EQ(e.links.size(), g.links.size());
  for (size_t i = 0; i < g.links.size(); ++i) {
    EXPECT_EQ(e.links[i].a_sw, g.links[i].a_sw);
    EXPECT_EQ(e.links[i].b_port, g.links[i].b_port);
    EXPECT_EQ(e.links[i].speed_bps, g.links[i].speed_bps);
    EXPECT_EQ(e.links[i].delay_ns, g.links[i].delay_ns);
  }
  ASSERT_EQ(e.hosts.size(), g.hosts.size());
  for (size_t i = 0; i < g.hosts.size(); ++i) {
    EXPECT_EQ(e.hosts[i].name, g.hosts[i].name);
    EXPECT_EQ(e.hosts[i].ip, g.hosts[i].ip);
    EXPECT_EQ(e.hosts[i].mac, g.hosts[i].mac);
    EXPECT_EQ(e.hosts[i].gateway_mac, g.hosts[i].gateway_mac);
    EXPECT_EQ(e.hosts[i].speed_bps, g.hosts[i].speed_bps);
  }
  EXPECT_EQ(e.nic.mtu, 4096u);
  // A 4096-byte RoCE MTU needs jumbo ports, which the generated form set.
  EXPECT_GE(e.switches[0].params.ports[0].mtu, 4096u + 64);
}

TEST_F(ExplicitTopology, EachBadKeyGetsOneClearError) {
  const std::string sw = "switches: {leaf0: leaf0.yaml, leaf1: leaf1.yaml, spine0: spine0.yaml}\n";
  const std::string host = "hosts:\n  - {name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}\n";
  const std::string link = "links:\n  - {a: leaf0:4, b: spine0:0, delay: 1us}\n";
  EXPECT_EQ(error_of(sw + link + host + "extra: 1\n"),
            "f.yaml: extra: unknown key (known: switches, links, hosts, nic)");
  EXPECT_EQ(error_of(sw + host), "f.yaml: missing required key \"links\"");
  EXPECT_EQ(error_of("switches: {leaf0: nope.yaml}\nlinks: []\n" + host)
                .rfind("f.yaml: switches.leaf0: ", 0),
            0u);
  EXPECT_EQ(error_of("switches: {\"a b\": leaf0.yaml}\nlinks: []\n" + host),
            "f.yaml: switches.a b: switch name must match [A-Za-z0-9_.-]+ (1..64 characters)");
  EXPECT_EQ(error_of(sw + "links:\n  - {a: leaf0:4, b: spine0:9, delay: 1us}\n" + host),
            "f.yaml: links[0].b: \"spine0:9\": spine0's config has no port 9");
  EXPECT_EQ(error_of(sw +
                     "links:\n  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
                     "  - {a: leaf0:4, b: spine0:1, delay: 1us}\n" +
                     host),
            "f.yaml: links[1].a: \"leaf0:4\": the port already has a link or a host");
  EXPECT_EQ(error_of(sw + "links:\n  - {a: leaf0:4, b: spine9:0, delay: 1us}\n" + host),
            "f.yaml: links[0].b: \"spine9:0\": no switch \"spine9\"");
  EXPECT_EQ(
      error_of(sw + "links:\n  - {a: leaf0:4, b: spine0:0, delay: 1us, speed: 40G}\n" + host),
      "f.yaml: links[0].speed: the link says 40G but leaf0's port 4 is 100G and spine0's port "
      "0 is 100G: a port sends at its configured speed (set ports[].speed in their "
      "configs)");
  EXPECT_EQ(error_of(sw + "links:\n  - {a: leaf0:4, b: spine0:0, delay: 1us, state: off}\n" + host),
            "f.yaml: links[0].state: \"off\": must be one of up, down");
  EXPECT_EQ(error_of(sw + link +
                     "hosts:\n  - {name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}\n"
                     "  - {name: h1, at: leaf0:1, ip: 10.0.0.2, delay: 1us}\n"),
            "f.yaml: hosts[1].ip: \"10.0.0.2\": another host has it");
  EXPECT_EQ(error_of(sw + link + "hosts:\n  - {name: h0, at: leaf0:0, ip: fd00::2, delay: 1us}\n"),
            "f.yaml: hosts[0].ip: \"fd00::2\": must be an IPv4 address (the NIC model is IPv4)");
  EXPECT_EQ(
      error_of(sw + link + "hosts:\n  - {name: leaf1, at: leaf0:0, ip: 10.0.0.2, delay: 1us}\n"),
      "f.yaml: hosts[0].name: \"leaf1\": the name is taken");
  EXPECT_EQ(error_of(sw + link + "hosts:\n  - {name: h0, at: leaf0:0, ip: 10.0.0.2}\n"),
            "f.yaml: hosts[0]: missing required key \"delay\"");
  // --set reaches the named switch; a bad key names it.
  EXPECT_NE(std::string([&] {
              try {
                load_topology_text(sw + link + host, "f.yaml", dir_.string(), {"leaf1:qos.nope=1"});
              } catch (const TopologyError& e) {
                return std::string(e.what());
              }
              return std::string();
            }())
                .find("f.yaml: leaf1: "),
            std::string::npos);
}

}  // namespace
}  // namespace rocelb
