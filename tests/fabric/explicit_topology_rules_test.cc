// What makes an explicit topology workable is checked when it loads, with
// the key path: a host sits in its port's subnet, on none of the switches'
// own addresses, as a neighbor the switch can deliver to; every port a route
// leaves by has a link or a host; a link's ends run at one speed. Messages
// say what each side says.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "dataplane/sim/topology.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

const std::string kShipped = std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/asymmetric_2x2/";

// The shipped asymmetric fabric, its hosts without MACs.
const std::string kSwitches =
    "switches: {leaf0: leaf0.yaml, leaf1: leaf1.yaml, spine0: spine0.yaml, spine1: "
    "spine1.yaml}\n";
const std::string kLinks =
    "links:\n"
    "  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
    "  - {a: leaf0:5, b: spine1:0, delay: 1us}\n"
    "  - {a: leaf1:4, b: spine0:1, delay: 1us}\n"
    "  - {a: leaf1:5, b: spine1:1, delay: 6us}\n";
std::string hosts(const std::string& h0) {
  std::string s = "hosts:\n  - " + h0 + "\n";
  const char* at[] = {"leaf0:1", "leaf0:2", "leaf0:3", "leaf1:0", "leaf1:1", "leaf1:2", "leaf1:3"};
  const char* ip[] = {"10.0.1.2", "10.0.2.2", "10.0.3.2", "10.1.0.2",
                      "10.1.1.2", "10.1.2.2", "10.1.3.2"};
  for (int i = 0; i < 7; ++i)
    s += "  - {name: h" + std::to_string(i + 1) + ", at: " + at[i] + ", ip: " + ip[i] +
         ", delay: 1us}\n";
  return s;
}
const std::string kH0 = "{name: h0, at: leaf0:0, ip: 10.0.0.2, delay: 1us}";

class ExplicitTopologyRules : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rocelb-explicit-rules-" + std::to_string(getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (const char* s : {"leaf0", "leaf1", "spine0", "spine1"})
      fs::copy_file(kShipped + s + ".yaml", dir_ / (std::string(s) + ".yaml"));
  }
  void TearDown() override { fs::remove_all(dir_); }

  Topology load(const std::string& text, const std::vector<std::string>& sets = {}) {
    return load_topology_text(text, "f.yaml", dir_.string(), sets);
  }
  std::string error_of(const std::string& text, const std::vector<std::string>& sets = {}) {
    try {
      load(text, sets);
    } catch (const TopologyError& e) {
      return e.what();
    }
    return "(loaded)";
  }

  fs::path dir_;
};

TEST_F(ExplicitTopologyRules, AHostWithoutMacTakesTheMacItsSwitchDeliversTo) {
  const Topology t = load(kSwitches + kLinks + hosts(kH0));
  ASSERT_EQ(t.hosts.size(), 8u);
  for (const FabricHost& h : t.hosts) {
    const NeighborParams* nb = t.switches[h.sw].params.find_neighbor(h.ip);
    ASSERT_NE(nb, nullptr) << h.name;
    EXPECT_EQ(h.mac, nb->mac) << h.name;
  }
  EXPECT_EQ(to_string(t.hosts[0].mac), "02:00:0a:00:00:02");
  // A MAC the switch does not know for that address: refused.
  EXPECT_EQ(error_of(kSwitches + kLinks +
                     hosts("{name: h0, at: leaf0:0, ip: 10.0.0.2, mac: \"02:00:00:00:00:99\", "
                           "delay: 1us}")),
            "f.yaml: hosts[0].mac: \"02:00:00:00:00:99\": leaf0's neighbor 10.0.0.2 has MAC "
            "02:00:0a:00:00:02: the switch would send the host's frames there (leave mac out to "
            "take the neighbor's)");
}

TEST_F(ExplicitTopologyRules, AHostSitsInItsPortsSubnetAsANeighborOfItsSwitch) {
  EXPECT_EQ(
      error_of(kSwitches + kLinks + hosts("{name: h0, at: leaf0:0, ip: 10.5.0.2, delay: 1us}")),
      "f.yaml: hosts[0].ip: \"10.5.0.2\": not in the subnet of leaf0's port 0 "
      "(10.0.0.1/24)");
  EXPECT_EQ(
      error_of(kSwitches + kLinks + hosts("{name: h0, at: leaf0:0, ip: 10.0.0.1, delay: 1us}")),
      "f.yaml: hosts[0].ip: \"10.0.0.1\": the address of leaf0's port 0 itself");
  EXPECT_EQ(
      error_of(kSwitches + kLinks + hosts("{name: h0, at: leaf0:0, ip: 10.0.0.9, delay: 1us}")),
      "f.yaml: hosts[0].ip: \"10.0.0.9\": leaf0's config has no neighbor 10.0.0.9, so the "
      "switch could not deliver to the host (add {ip: 10.0.0.9, mac: MAC, port: 0} to its "
      "neighbors)");
}

TEST_F(ExplicitTopologyRules, EveryPortARouteLeavesByHasALinkOrAHost) {
  // links: [] used to load, and every frame to the uplinks vanished.
  EXPECT_EQ(error_of(kSwitches + "links: []\n" + hosts(kH0)),
            "f.yaml: switches.leaf0: routes[0] (0.0.0.0/0 to group uplinks, member 10.100.0.2) "
            "leaves by port 4, which has no link or host: list its link in links (with state: "
            "down for a failed one) or drop the route");
  // A spine's route via a leaf whose link is missing.
  const std::string three =
      "links:\n"
      "  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
      "  - {a: leaf0:5, b: spine1:0, delay: 1us}\n"
      "  - {a: leaf1:5, b: spine1:1, delay: 6us}\n";
  EXPECT_EQ(error_of(kSwitches + three + hosts(kH0), {"leaf1:groups.uplinks.members=[10.101.1.2]"}),
            "f.yaml: switches.spine0: routes[1] (10.1.0.0/16 via 10.100.1.1) leaves by port 1, "
            "which has no link or host: list its link in links (with state: down for a failed "
            "one) or drop the route");
  // A failed link is listed, down: that loads.
  const std::string down =
      "links:\n"
      "  - {a: leaf0:4, b: spine0:0, delay: 1us}\n"
      "  - {a: leaf0:5, b: spine1:0, delay: 1us}\n"
      "  - {a: leaf1:4, b: spine0:1, delay: 1us, state: down}\n"
      "  - {a: leaf1:5, b: spine1:1, delay: 6us}\n";
  EXPECT_EQ(error_of(kSwitches + down + hosts(kH0)), "(loaded)");
}

TEST_F(ExplicitTopologyRules, ALinksEndsRunAtOneSpeedAndMessagesSayWhatEachSideSays) {
  // leaf0's port 5 is 25G, spine0's port 0 100G: accepted before, the link
  // then ran at 25G one way and 100G the other.
  const std::string mixed =
      "links:\n"
      "  - {a: leaf0:5, b: spine0:0, delay: 1us}\n"
      "  - {a: leaf0:4, b: spine1:0, delay: 1us}\n"
      "  - {a: leaf1:4, b: spine0:1, delay: 1us}\n"
      "  - {a: leaf1:5, b: spine1:1, delay: 6us}\n";
  EXPECT_EQ(error_of(kSwitches + mixed + hosts(kH0)),
            "f.yaml: links[0]: the ends differ: leaf0's port 5 is 25G, spine0's port 0 is 100G: "
            "a link has one speed (set ports[].speed in their configs)");
  // "ports say 100G and 100G" when the link said 25G.
  EXPECT_EQ(error_of(kSwitches + "links:\n  - {a: leaf0:4, b: spine0:0, delay: 1us, speed: 25G}\n" +
                     hosts(kH0)),
            "f.yaml: links[0].speed: the link says 25G but leaf0's port 4 is 100G and spine0's "
            "port 0 is 100G: a port sends at its configured speed (set ports[].speed in their "
            "configs)");
  EXPECT_EQ(error_of(kSwitches + kLinks + "hosts: {}\n"),
            "f.yaml: hosts: must be a non-empty list (found an empty map)");
}

}  // namespace
}  // namespace rocelb
