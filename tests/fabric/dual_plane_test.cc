// The generated leaf-spine with `planes` (topology.h): N copies of the
// leaf-spine that meet only in the hosts. Its shape (switch and link counts,
// names with the plane, one NIC port per host per plane), addresses and
// MACs unique across planes, no link, neighbour, route or group member of
// one plane naming another, `planes: 1` the same fabric as no key, a host's
// bandwidth (Poisson load) counting its ports, the flows' plane draw, and
// one clear error for every wrong `planes`.
#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "dataplane/sim/flow_plane.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/topology_explicit.h"
#include "dataplane/sim/workload.h"

namespace rocelb {
namespace {

constexpr const char* kShape =
    "leaves: 2\nspines: 3\nhosts_per_leaf: 4\nhost_speed: 100G\nuplink_speed: 100G\n"
    "link_delay: 1us\n";

Topology load(const std::string& text, const std::vector<std::string>& sets = {}) {
  return load_topology_text(text, "t.yaml", ".", sets);
}

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const TopologyError& e) {
    return e.what();
  }
  return "";
}

// "p1-leaf0" -> 1; a name without the prefix -> -1.
int plane_of(const std::string& name) {
  if (name.size() < 3 || name[0] != 'p' || name.find('-') == std::string::npos) return -1;
  return std::stoi(name.substr(1, name.find('-') - 1));
}

// Concatenated by append (GCC 12 warns falsely on "h" + std::to_string).
std::string cat(std::initializer_list<std::string> parts) {
  std::string s;
  for (const std::string& p : parts) s += p;
  return s;
}

uint8_t first_octet(const IpAddr& a) {
  return static_cast<uint8_t>(a.v4_host_order() >> 24);
}

TEST(DualPlane, EveryPlaneIsACopyOfTheLeafSpineWithItsNameInTheSwitches) {
  const Topology t = load(std::string(kShape) + "planes: 2\n");
  EXPECT_EQ(t.planes, 2u);
  // leaves and spines count one plane's.
  EXPECT_EQ(t.leaves, 2u);
  EXPECT_EQ(t.spines, 3u);
  EXPECT_EQ(t.hosts_per_leaf, 4u);
  ASSERT_EQ(t.switches.size(), 10u);  // 2 x (2 leaves + 3 spines)
  const std::vector<std::string> names = {"p0-leaf0",  "p0-leaf1",  "p1-leaf0",  "p1-leaf1",
                                          "p0-spine0", "p0-spine1", "p0-spine2", "p1-spine0",
                                          "p1-spine1", "p1-spine2"};
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(t.switches[i].name, names[i]);
    EXPECT_EQ(t.switches[i].params.sw.name, names[i]);
    EXPECT_EQ(t.switches[i].role, i < 4 ? SwitchRole::kLeaf : SwitchRole::kSpine) << names[i];
  }
  EXPECT_EQ(t.links.size(), 12u);  // 2 x 2 leaves x 3 spines
  // Hosts are named once; each has one port per plane, on that plane's leaf.
  ASSERT_EQ(t.hosts.size(), 8u);
  ASSERT_EQ(t.plane_ports.size(), 8u);
  ASSERT_EQ(t.port_count(), 16u);
  for (uint32_t h = 0; h < 8; ++h) {
    const std::string host = cat({"h", std::to_string(h)});
    EXPECT_EQ(t.hosts[h].name, host);
    EXPECT_EQ(t.host_bps(h), 200'000'000'000u);
    for (uint32_t p = 0; p < 2; ++p) {
      const uint32_t k = t.port_of(h, p);
      const FabricHost& port = t.port(k);
      EXPECT_EQ(port.name, t.hosts[h].name);
      EXPECT_EQ(port.plane, p);
      EXPECT_EQ(t.switches[port.sw].name,
                cat({"p", std::to_string(p), "-leaf", std::to_string(h / 4)}));
      EXPECT_EQ(port.port, h % 4);
      EXPECT_EQ(t.port_name(k), p == 0 ? host : cat({host, ".", std::to_string(p)}));
      EXPECT_EQ(t.port_index(t.port_name(k)), k);
      // The leaf's port faces this port: its name, its gateway.
      const PortParams& lp = t.switches[port.sw].params.ports[port.port];
      EXPECT_EQ(lp.name, t.port_name(k));
      ASSERT_TRUE(lp.ipv4);
      EXPECT_EQ(lp.ipv4->addr, port.gateway);
      EXPECT_EQ(lp.mac, port.gateway_mac);
    }
  }
  EXPECT_EQ(t.port_index("h3"), 3u);
  EXPECT_EQ(t.port_index("h3.1"), 11u);
  EXPECT_FALSE(t.port_index("h3.2"));  // no plane 2
  EXPECT_FALSE(t.port_index("h3.x"));
  EXPECT_FALSE(t.port_index("h9.1"));
}

TEST(DualPlane, AddressesAndMacsAreUniqueAndNoPlaneNamesAnother) {
  const Topology t = load(std::string(kShape) + "planes: 3\n");
  ASSERT_EQ(t.switches.size(), 15u);
  std::set<uint32_t> ips;
  std::set<std::string> macs;
  for (size_t k = 0; k < t.port_count(); ++k) {
    const FabricHost& h = t.port(k);
    EXPECT_TRUE(ips.insert(h.ip.v4_host_order()).second) << t.port_name(k);
    EXPECT_TRUE(macs.insert(to_string(h.mac)).second) << t.port_name(k);
    EXPECT_EQ(first_octet(h.ip), 10 + h.plane) << t.port_name(k);
    EXPECT_EQ(plane_of(t.switches[h.sw].name), int(h.plane)) << t.port_name(k);
  }
  for (const FabricSwitch& s : t.switches) {
    const int p = plane_of(s.name);
    ASSERT_GE(p, 0) << s.name;
    for (const PortParams& port : s.params.ports) {
      ASSERT_TRUE(port.ipv4) << s.name;
      EXPECT_TRUE(ips.insert(port.ipv4->addr.v4_host_order()).second) << s.name << " " << port.id;
      EXPECT_TRUE(macs.insert(to_string(port.mac)).second) << s.name << " " << port.id;
      EXPECT_EQ(first_octet(port.ipv4->addr), 10 + p) << s.name;
    }
    // Every neighbour, route and group member stays in the switch's plane.
    for (const NeighborParams& n : s.params.neighbors)
      EXPECT_EQ(first_octet(n.ip), 10 + p) << s.name << " " << to_string(n.ip);
    for (const RouteParams& r : s.params.routes) {
      if (r.prefix.len > 0) {
        EXPECT_EQ(first_octet(r.prefix.addr), 10 + p) << s.name;
      }
      if (r.target == RouteTarget::kVia) {
        EXPECT_EQ(first_octet(r.via), 10 + p) << s.name;
      }
    }
    for (const GroupParams& g : s.params.groups)
      for (const GroupMemberParams& m : g.members) EXPECT_EQ(first_octet(m.via), 10 + p) << s.name;
  }
  // Links join switches of one plane only: the planes are the fabric's
  // connected parts, and they meet only in the hosts.
  for (const FabricLink& l : t.links)
    EXPECT_EQ(plane_of(t.switches[l.a_sw].name), plane_of(t.switches[l.b_sw].name))
        << t.switches[l.a_sw].name << " - " << t.switches[l.b_sw].name;
  // Each plane on its own is a whole leaf-spine: every leaf reaches every
  // spine of its plane.
  std::map<int, std::set<std::pair<uint32_t, uint32_t>>> pairs;
  for (const FabricLink& l : t.links)
    pairs[plane_of(t.switches[l.a_sw].name)].insert({l.a_sw, l.b_sw});
  ASSERT_EQ(pairs.size(), 3u);
  for (const auto& [p, set] : pairs) EXPECT_EQ(set.size(), 6u) << p;
}

TEST(DualPlane, OnePlaneIsTheFabricWithoutTheKey) {
  const Topology a = load(kShape, {"groups.uplinks.mode=drill", "leaf1:switch.hash_seed=9"});
  const Topology b = load(std::string(kShape) + "planes: 1\n",
                          {"groups.uplinks.mode=drill", "leaf1:switch.hash_seed=9"});
  EXPECT_EQ(b.planes, 1u);
  EXPECT_TRUE(b.plane_ports.empty());
  ASSERT_EQ(a.switches.size(), b.switches.size());
  for (size_t i = 0; i < a.switches.size(); ++i) {
    EXPECT_EQ(a.switches[i].name, b.switches[i].name);
    EXPECT_EQ(a.switches[i].config_yaml, b.switches[i].config_yaml);
    EXPECT_EQ(a.switches[i].overrides, b.switches[i].overrides);
  }
  EXPECT_EQ(a.switches[0].name, "leaf0");
  ASSERT_EQ(a.hosts.size(), b.hosts.size());
  for (size_t i = 0; i < a.hosts.size(); ++i) {
    EXPECT_EQ(a.hosts[i].ip, b.hosts[i].ip);
    EXPECT_EQ(a.hosts[i].mac, b.hosts[i].mac);
    EXPECT_EQ(a.hosts[i].sw, b.hosts[i].sw);
    EXPECT_EQ(b.port_name(i), b.hosts[i].name);
    EXPECT_EQ(b.host_bps(uint32_t(i)), 100'000'000'000u);
  }
  EXPECT_FALSE(b.port_index("h1.0"));  // one plane: no HOST.PLANE names
}

TEST(DualPlane, AHostOffersItsLoadOverAllItsPorts) {
  // Poisson: a host's rate is load x its ports' speeds, so on two planes
  // the same seed draws the same flows twice as fast: the flows of 100 us
  // on two planes are those of 200 us on one, at half the time.
  const Topology one = load(kShape);
  const Topology two = load(std::string(kShape) + "planes: 2\n");
  const std::string wl = "type: poisson\ncdf: AliStorage2019\nload: 0.5\npairs: any\nduration: ";
  const Workload w1 = load_workload_text(wl + "200us\n", "w.yaml", ".", one, 5);
  const Workload w2 = load_workload_text(wl + "100us\n", "w.yaml", ".", two, 5);
  using Row = std::tuple<uint32_t, uint64_t, uint32_t, uint64_t>;  // src, start, dst, size
  std::vector<Row> a, b;
  for (const FabricFlow& f : w1.flows) a.emplace_back(f.src, f.start_ns / 2, f.dst, f.size_bytes);
  for (const FabricFlow& f : w2.flows) b.emplace_back(f.src, f.start_ns, f.dst, f.size_bytes);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  ASSERT_GT(a.size(), 20u);
  EXPECT_EQ(a, b);
  // load_of: network divides by the oversubscription of a plane (a leaf's
  // 4 x 100G down, 3 x 100G up, the same on both planes): the same on one
  // plane or two.
  const std::string net =
      "type: poisson\ncdf: WebSearch\nload: 0.5\nload_of: network\nduration: 100us\n";
  const Workload n1 = load_workload_text(net, "w.yaml", ".", one, 5);
  const Workload n2 = load_workload_text(net, "w.yaml", ".", two, 5);
  EXPECT_EQ(n1.load, n2.load);
  EXPECT_DOUBLE_EQ(n1.load, 0.5 * 3 / 4);
}

TEST(DualPlane, EachFlowDrawsItsPlaneFromTheSeed) {
  EXPECT_EQ(flow_plane(1, 7, 1), 0u);
  for (uint32_t planes : {2u, 3u, 8u}) {
    std::vector<uint32_t> count(planes, 0);
    for (uint64_t id = 0; id < 4000; ++id) {
      const uint32_t p = flow_plane(11, id, planes);
      ASSERT_LT(p, planes);
      ++count[p];
      EXPECT_EQ(p, flow_plane(11, id, planes));  // a function of (seed, flow)
    }
    for (uint32_t p = 0; p < planes; ++p) {
      EXPECT_GT(count[p], 4000 / planes * 8 / 10) << planes << " planes, plane " << p;
      EXPECT_LT(count[p], 4000 / planes * 12 / 10) << planes << " planes, plane " << p;
    }
  }
  // Another seed, another draw.
  int same = 0;
  for (uint64_t id = 0; id < 1000; ++id) same += flow_plane(1, id, 2) == flow_plane(2, id, 2);
  EXPECT_GT(same, 400);
  EXPECT_LT(same, 600);
}

TEST(DualPlane, AWrongPlanesIsOneClearError) {
  EXPECT_EQ(error_of(std::string(kShape) + "planes: 0\n"),
            "t.yaml: planes: 0: must be an integer 1..8");
  EXPECT_EQ(error_of(std::string(kShape) + "planes: 9\n"),
            "t.yaml: planes: 9: must be an integer 1..8");
  EXPECT_EQ(error_of(std::string(kShape) + "planes: two\n"),
            "t.yaml: planes: \"two\": must be an integer 1..8");
  EXPECT_EQ(error_of(std::string(kShape) + "planes: [2]\n"),
            "t.yaml: planes: expected an integer, found a list");
  // A fat tree and the explicit form have one NIC port per host.
  EXPECT_EQ(error_of("k: 4\nhost_speed: 100G\nlink_delay: 1us\nplanes: 2\n"),
            "t.yaml: planes: a fat tree has one plane: planes is a key of the generated "
            "leaf-spine (leaves, spines, hosts_per_leaf, ...)");
  EXPECT_EQ(error_of("switches: {}\nlinks: []\nhosts: []\nplanes: 2\n"),
            "t.yaml: planes: a host of the explicit form has one NIC port (one plane); planes "
            "is a key of the generated leaf-spine (leaves, spines, hosts_per_leaf, ...)");
  // Nor can a fabric of two planes be written in the explicit form.
  try {
    export_explicit_topology(load(std::string(kShape) + "planes: 2\n"));
    ADD_FAILURE() << "a dual-plane fabric exported";
  } catch (const TopologyError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml: planes: 2: a host of the explicit form has one NIC port, so a fabric of "
              "more than one plane has no explicit form to export");
  }
  // A --set for one switch names it with its plane.
  try {
    load(std::string(kShape) + "planes: 2\n", {"leaf0:switch.hash_seed=3"});
    ADD_FAILURE() << "leaf0 found on a dual-plane fabric";
  } catch (const TopologyError& e) {
    EXPECT_EQ(std::string(e.what()),
              "t.yaml: --set leaf0:switch.hash_seed=3: no such switch \"leaf0\" (switches: "
              "p0-leaf0..p1-spine2)");
  }
  const Topology t = load(std::string(kShape) + "planes: 2\n", {"p1-spine2:switch.hash_seed=3"});
  EXPECT_EQ(t.switches.back().params.sw.hash_seed, 3u);
}

TEST(DualPlane, TheShippedDualPlaneFabricsLoad) {
  const Topology t = load_topology_file(std::string(ROCELB_SOURCE_DIR) +
                                        "/configs/fabrics/dual_plane_32_100G_OS2.yaml");
  EXPECT_EQ(t.planes, 2u);
  EXPECT_EQ(t.hosts.size(), 32u);
  EXPECT_EQ(t.port_count(), 64u);
  EXPECT_EQ(t.switches.size(), 16u);  // 2 x (4 leaves + 4 spines)
  EXPECT_EQ(t.links.size(), 32u);
  EXPECT_EQ(t.host_bps(0), 200'000'000'000u);
  const Topology hpn = load_topology_file(std::string(ROCELB_SOURCE_DIR) +
                                          "/configs/fabrics/dual_plane_512_200G.yaml");
  EXPECT_EQ(hpn.planes, 2u);
  EXPECT_EQ(hpn.hosts.size(), 512u);
  EXPECT_EQ(hpn.switches.size(), 64u);  // 2 x (16 leaves + 16 spines)
  EXPECT_EQ(hpn.host_bps(511), 400'000'000'000u);
  EXPECT_EQ(hpn.switches.back().name, "p1-spine15");
}

}  // namespace
}  // namespace rocelb
