// Longest-prefix match as the switch builds it (SwitchConfig::build → the
// rte_fib / rte_fib6 RouteTable and the next-hop table): the default leaf
// config, then a config of nested IPv4 and IPv6 prefixes where the longest
// one must win; and the exact-match neighbor table.
#include "dataplane/forward/route_table.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "control/config_loader.h"
#include "dataplane/forward/neighbor_table.h"
#include "dataplane/forward/switch_config.h"
#include "dataplane/wire/packet_builder.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

constexpr uint32_t v4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return (uint32_t{a} << 24) | (uint32_t{b} << 16) | (uint32_t{c} << 8) | d;
}
IpBytes v6(std::array<uint16_t, 8> g) {
  return ipv6_bytes(g);
}

std::string text(NextHopKind k) {
  switch (k) {
    case NextHopKind::kNone:
      return "kNone";
    case NextHopKind::kLocal:
      return "kLocal";
    case NextHopKind::kConnected:
      return "kConnected";
    case NextHopKind::kNeighbor:
      return "kNeighbor";
    case NextHopKind::kGroup:
      return "kGroup";
  }
  return "?";
}

std::string ip_text(uint32_t a) {
  return std::to_string(a >> 24) + "." + std::to_string((a >> 16) & 255) + "." +
         std::to_string((a >> 8) & 255) + "." + std::to_string(a & 255);
}

std::string ip_text(const IpBytes& a) {
  static const char* hex = "0123456789abcdef";
  std::string s;
  for (int i = 0; i < 16; i += 2) {
    if (i) s += ':';
    const unsigned w = (unsigned{a[i]} << 8) | a[i + 1];
    for (int sh = 12; sh >= 0; sh -= 4) s += hex[(w >> sh) & 15];
  }
  return s;
}

// What a lookup should find.
struct Want {
  NextHopKind kind = NextHopKind::kNone;
  uint16_t port = 0;             // kConnected, kNeighbor
  std::string group;             // kGroup: the group's name
  std::array<uint8_t, 6> mac{};  // kNeighbor
};

Want none() {
  return {};
}
Want local() {
  return {NextHopKind::kLocal, 0, {}, {}};
}
Want connected(uint16_t port) {
  return {NextHopKind::kConnected, port, {}, {}};
}
Want group(const std::string& name) {
  return {NextHopKind::kGroup, 0, name, {}};
}
Want neighbor(uint16_t port, std::array<uint8_t, 6> mac) {
  return {NextHopKind::kNeighbor, port, {}, mac};
}

class RouteTableTest : public test::DpdkTest {
 protected:
  void build(const ConfigParams& p) { cfg_ = SwitchConfig::build(p); }

  uint64_t lookup4(uint32_t ip) {
    uint64_t nh = ~0ull;
    cfg_->routes->lookup_v4(&ip, &nh, 1);
    return nh;
  }
  uint64_t lookup6(const IpBytes& ip) {
    uint8_t a[1][16];
    std::copy(ip.begin(), ip.end(), a[0]);
    uint64_t nh = ~0ull;
    cfg_->routes->lookup_v6(a, &nh, 1);
    return nh;
  }

  void expect_nh(uint64_t nh, const Want& w) {
    ASSERT_LT(nh, cfg_->nexthops.size()) << "next-hop index out of the table";
    const NextHop& h = cfg_->nexthops[nh];
    EXPECT_EQ(text(h.kind), text(w.kind));
    if (w.kind == NextHopKind::kNone) {
      EXPECT_EQ(nh, kNoRoute);
    }
    if (w.kind == NextHopKind::kConnected || w.kind == NextHopKind::kNeighbor) {
      EXPECT_EQ(h.port, w.port);
    }
    if (w.kind == NextHopKind::kNeighbor) {
      EXPECT_EQ(std::vector<uint8_t>(h.mac, h.mac + 6),
                std::vector<uint8_t>(w.mac.begin(), w.mac.end()));
    }
    if (w.kind == NextHopKind::kGroup) {
      ASSERT_LT(h.group, cfg_->groups.size());
      EXPECT_EQ(cfg_->groups[h.group].name, w.group);
    }
  }
  void expect4(uint32_t ip, const Want& w) {
    SCOPED_TRACE(ip_text(ip));
    expect_nh(lookup4(ip), w);
  }
  void expect6(const IpBytes& ip, const Want& w) {
    SCOPED_TRACE(ip_text(ip));
    expect_nh(lookup6(ip), w);
  }

  std::unique_ptr<SwitchConfig> cfg_;
};

TEST_F(RouteTableTest, DefaultConfigIpv4) {
  build(test::default_params());
  expect4(v4(10, 0, 2, 5), connected(2));
  expect4(v4(10, 0, 2, 2), connected(2));
  expect4(v4(10, 0, 0, 2), connected(0));
  expect4(v4(10, 0, 3, 255), connected(3));
  expect4(v4(10, 1, 7, 2), connected(7));
  expect4(v4(10, 9, 9, 9), group("uplinks"));
  expect4(v4(10, 0, 4, 1), group("uplinks"));  // just past the host subnets
  expect4(v4(0, 0, 0, 0), group("uplinks"));
  expect4(v4(255, 255, 255, 255), group("uplinks"));
  expect4(v4(10, 0, 1, 1), local());
  expect4(v4(10, 0, 0, 1), local());
  expect4(v4(10, 1, 4, 1), local());
}

// Tables are sized from the config: many prefixes longer than /24 (one
// tbl8 each), many IPv6 /64s, and more than 32767 IPv4 routes all build and
// are all found.
TEST_F(RouteTableTest, LargeTablesAreSizedFromTheConfig) {
  ConfigParams p = test::default_params();
  auto v4 = [](uint32_t host, uint8_t len) {
    IpPrefix x;
    x.addr.family = 4;
    for (int k = 0; k < 4; ++k) x.addr.b[k] = static_cast<uint8_t>(host >> (24 - 8 * k));
    x.len = len;
    return x;
  };
  auto to_port = [](IpPrefix x, uint16_t port) {
    RouteParams r;
    r.prefix = x;
    r.target = RouteTarget::kPort;
    r.port = port;
    return r;
  };
  const uint32_t k28 = 0x14000000;  // 20.0.0.0: 1,030 /28s
  for (uint32_t i = 0; i < 1030; ++i) p.routes.push_back(to_port(v4(k28 + 16 * i, 28), 3));
  const uint32_t k24 = 0x1e000000;  // 30.0.0.0: 32,760 /24s
  for (uint32_t i = 0; i < 32760; ++i) p.routes.push_back(to_port(v4(k24 + 256 * i, 24), 1));
  for (uint32_t i = 0; i < 1000; ++i) {  // fd10:i::/64
    IpPrefix x;
    x.addr.family = 6;
    x.addr.b[0] = 0xfd;
    x.addr.b[1] = 0x10;
    x.addr.b[2] = static_cast<uint8_t>(i >> 8);
    x.addr.b[3] = static_cast<uint8_t>(i);
    x.len = 64;
    p.routes.push_back(to_port(x, 2));
  }
  ASSERT_NO_THROW(build(p));
  expect4(k28 + 1, connected(3));
  expect4(k28 + 16 * 1029 + 15, connected(3));
  expect4(k28 + 16 * 1030, group("uplinks"));  // beyond: the default route
  expect4(k24 + 7, connected(1));
  expect4(k24 + 256 * 32759 + 200, connected(1));
  expect4(k24 + 256 * 32760, group("uplinks"));
  IpBytes a{};
  a[0] = 0xfd;
  a[1] = 0x10;
  a[2] = 0x03;
  a[3] = 0xe7;  // 999
  a[15] = 1;
  expect6(a, connected(2));
  a[3] = 0xe8;  // 1000
  expect6(a, group("uplinks"));
  // One next hop per target, not per route.
  EXPECT_LT(cfg_->nexthops.size(), 32u);
}

TEST_F(RouteTableTest, DefaultConfigIpv6) {
  build(test::default_params());
  expect6(v6({0xfd00, 0, 3, 0, 0, 0, 0, 2}), connected(3));
  expect6(v6({0xfd00, 0, 3, 0, 0xffff, 0xffff, 0xffff, 0xffff}), connected(3));
  expect6(v6({0xfd00, 1, 5, 0, 0, 0, 0, 2}), connected(5));
  expect6(v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}), group("uplinks"));
  expect6(v6({0xfd00, 2, 0, 0, 0, 0, 0, 2}), group("uplinks"));
  expect6(v6({0xfd00, 0, 4, 0, 0, 0, 0, 2}), group("uplinks"));
  expect6(v6({0, 0, 0, 0, 0, 0, 0, 0}), group("uplinks"));
  expect6(v6({0xfd00, 0, 1, 0, 0, 0, 0, 1}), local());
  expect6(v6({0xfd00, 1, 7, 0, 0, 0, 0, 1}), local());
}

TEST_F(RouteTableTest, BulkLookupMatchesSingleLookups) {
  build(test::default_params());
  std::vector<uint32_t> ips4 = {v4(10, 0, 2, 5),  v4(10, 9, 9, 9),  v4(10, 0, 1, 1),
                                v4(10, 0, 3, 2),  v4(192, 0, 2, 1), v4(10, 1, 6, 1),
                                v4(10, 0, 0, 77), v4(10, 1, 4, 2)};
  std::vector<uint64_t> bulk(ips4.size());
  std::vector<uint32_t> copy = ips4;
  cfg_->routes->lookup_v4(copy.data(), bulk.data(), static_cast<int>(copy.size()));
  for (size_t i = 0; i < ips4.size(); ++i) EXPECT_EQ(bulk[i], lookup4(ips4[i])) << i;

  const std::vector<IpBytes> ips6 = {
      v6({0xfd00, 0, 3, 0, 0, 0, 0, 2}), v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}),
      v6({0xfd00, 0, 1, 0, 0, 0, 0, 1}), v6({0xfd00, 1, 4, 0, 0, 0, 0, 9})};
  uint8_t a[4][16];
  for (size_t i = 0; i < ips6.size(); ++i) std::copy(ips6[i].begin(), ips6[i].end(), a[i]);
  uint64_t nh6[4];
  cfg_->routes->lookup_v6(a, nh6, 4);
  for (size_t i = 0; i < ips6.size(); ++i) EXPECT_EQ(nh6[i], lookup6(ips6[i])) << i;
}

// Four host ports of the default leaf, their neighbors, a group of two, and
// nested prefixes. `routes` is filled in per test.
constexpr const char* kNestedBase = R"(
switch: {name: nested, hash_seed: 1}
ports:
  - {id: 0, name: p0, speed: 100G, mac: "02:00:00:00:00:00", ipv4: 10.0.0.1/24, ipv6: "fd00:0:0::1/64"}
  - {id: 1, name: p1, speed: 100G, mac: "02:00:00:00:00:01", ipv4: 10.0.1.1/24, ipv6: "fd00:0:1::1/64"}
  - {id: 2, name: p2, speed: 100G, mac: "02:00:00:00:00:02", ipv4: 10.0.2.1/24, ipv6: "fd00:0:2::1/64"}
  - {id: 3, name: p3, speed: 100G, mac: "02:00:00:00:00:03", ipv4: 10.0.3.1/24, ipv6: "fd00:0:3::1/64"}
neighbors:
  - {ip: 10.0.0.2, mac: "02:00:00:00:01:00", port: 0}
  - {ip: "fd00:0:0::2", mac: "02:00:00:00:01:00", port: 0}
  - {ip: 10.0.1.2, mac: "02:00:00:00:01:01", port: 1}
  - {ip: "fd00:0:1::2", mac: "02:00:00:00:01:01", port: 1}
  - {ip: 10.0.2.2, mac: "02:00:00:00:01:02", port: 2}
  - {ip: "fd00:0:2::2", mac: "02:00:00:00:01:02", port: 2}
  - {ip: 10.0.3.2, mac: "02:00:00:00:01:03", port: 3}
  - {ip: "fd00:0:3::2", mac: "02:00:00:00:01:03", port: 3}
groups:
  pair:
    mode: fixed
    members: [10.0.1.2, 10.0.2.2]
)";

constexpr const char* kNestedRoutes = R"(
routes:
  - {prefix: 10.0.0.0/8, via: 10.0.3.2}
  - {prefix: 10.5.0.0/16, group: pair}
  - {prefix: 10.5.6.0/24, port: 2}
  - {prefix: "fd00:100::/32", via: "fd00:0:3::2"}
  - {prefix: "fd00:100:5::/48", group: pair}
  - {prefix: "fd00:100:5:6::/64", port: 1}
)";

// The same routes, most specific first: the order they are added in must not
// matter.
constexpr const char* kNestedRoutesReversed = R"(
routes:
  - {prefix: "fd00:100:5:6::/64", port: 1}
  - {prefix: 10.5.6.0/24, port: 2}
  - {prefix: "fd00:100:5::/48", group: pair}
  - {prefix: 10.5.0.0/16, group: pair}
  - {prefix: "fd00:100::/32", via: "fd00:0:3::2"}
  - {prefix: 10.0.0.0/8, via: 10.0.3.2}
)";

constexpr std::array<uint8_t, 6> kHost3 = {0x02, 0, 0, 0, 0x01, 0x03};

class RouteTableNestedTest : public RouteTableTest,
                             public ::testing::WithParamInterface<const char*> {
 protected:
  void SetUp() override {
    RouteTableTest::SetUp();
    if (HasFatalFailure()) return;
    build(load_config_text(std::string(kNestedBase) + GetParam(), "nested.yaml"));
  }
};

TEST_P(RouteTableNestedTest, LongestIpv4PrefixWins) {
  // /8 via a neighbor.
  expect4(v4(10, 9, 1, 1), neighbor(3, kHost3));
  expect4(v4(10, 0, 0, 0) + 0x00ffffff, neighbor(3, kHost3));
  expect4(v4(10, 4, 255, 255), neighbor(3, kHost3));
  expect4(v4(10, 6, 0, 0), neighbor(3, kHost3));
  // /16 to the group.
  expect4(v4(10, 5, 0, 0), group("pair"));
  expect4(v4(10, 5, 1, 1), group("pair"));
  expect4(v4(10, 5, 5, 255), group("pair"));
  expect4(v4(10, 5, 7, 0), group("pair"));
  expect4(v4(10, 5, 255, 255), group("pair"));
  // /24 to a port.
  expect4(v4(10, 5, 6, 0), connected(2));
  expect4(v4(10, 5, 6, 7), connected(2));
  expect4(v4(10, 5, 6, 255), connected(2));
  // Connected /24 and the switch's /32 inside the /8.
  expect4(v4(10, 0, 2, 9), connected(2));
  expect4(v4(10, 0, 1, 1), local());
  // Outside every prefix: no default route.
  expect4(v4(11, 0, 0, 1), none());
  expect4(v4(9, 255, 255, 255), none());
  expect4(v4(0, 0, 0, 0), none());
  expect4(v4(255, 255, 255, 255), none());
}

TEST_P(RouteTableNestedTest, LongestIpv6PrefixWins) {
  // /32 via a neighbor.
  expect6(v6({0xfd00, 0x100, 9, 0, 0, 0, 0, 1}), neighbor(3, kHost3));
  expect6(v6({0xfd00, 0x100, 0, 0, 0, 0, 0, 0}), neighbor(3, kHost3));
  expect6(v6({0xfd00, 0x100, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}), neighbor(3, kHost3));
  expect6(v6({0xfd00, 0x100, 4, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}), neighbor(3, kHost3));
  // /48 to the group.
  expect6(v6({0xfd00, 0x100, 5, 0, 0, 0, 0, 0}), group("pair"));
  expect6(v6({0xfd00, 0x100, 5, 7, 0, 0, 0, 1}), group("pair"));
  expect6(v6({0xfd00, 0x100, 5, 5, 0xffff, 0xffff, 0xffff, 0xffff}), group("pair"));
  expect6(v6({0xfd00, 0x100, 5, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}), group("pair"));
  // /64 to a port.
  expect6(v6({0xfd00, 0x100, 5, 6, 0, 0, 0, 0}), connected(1));
  expect6(v6({0xfd00, 0x100, 5, 6, 0, 0, 0, 0xabcd}), connected(1));
  expect6(v6({0xfd00, 0x100, 5, 6, 0xffff, 0xffff, 0xffff, 0xffff}), connected(1));
  // Connected and local addresses.
  expect6(v6({0xfd00, 0, 2, 0, 0, 0, 0, 2}), connected(2));
  expect6(v6({0xfd00, 0, 0, 0, 0, 0, 0, 1}), local());
  // Outside every prefix.
  expect6(v6({0xfd00, 0x101, 0, 0, 0, 0, 0, 1}), none());
  expect6(v6({0xfd00, 0x0ff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff}), none());
  expect6(v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 1}), none());
  expect6(v6({0, 0, 0, 0, 0, 0, 0, 0}), none());
}

INSTANTIATE_TEST_SUITE_P(RouteOrder, RouteTableNestedTest,
                         ::testing::Values(kNestedRoutes, kNestedRoutesReversed),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           return std::string(i.index == 0 ? "WidestFirst" : "NarrowestFirst");
                         });

// A host route and a static route for a connected subnet: the connected
// route wins for its own prefix (switch_config.cc adds it last), the /32 wins
// inside it.
TEST_F(RouteTableTest, ConnectedSubnetWinsOverStaticRouteForTheSamePrefix) {
  build(load_config_text(std::string(kNestedBase) + R"(
routes:
  - {prefix: 10.0.2.0/24, via: 10.0.3.2}
  - {prefix: 10.0.2.128/32, group: pair}
  - {prefix: "fd00:0:2::/64", via: "fd00:0:3::2"}
  - {prefix: "fd00:0:2::80/128", group: pair}
)",
                         "host_routes.yaml"));
  expect4(v4(10, 0, 2, 5), connected(2));
  expect4(v4(10, 0, 2, 128), group("pair"));
  expect4(v4(10, 0, 2, 129), connected(2));
  expect6(v6({0xfd00, 0, 2, 0, 0, 0, 0, 5}), connected(2));
  expect6(v6({0xfd00, 0, 2, 0, 0, 0, 0, 0x80}), group("pair"));
  expect6(v6({0xfd00, 0, 2, 0, 0, 0, 0, 0x81}), connected(2));
}

// ---------------------------------------------------------------------------
// Neighbor table

class RouteNeighborTableTest : public test::DpdkTest {};

NeighborEntry entry4(uint32_t ip, uint16_t port, uint8_t mac_low) {
  NeighborEntry e;
  e.family = 4;
  e.ip[0] = static_cast<uint8_t>(ip >> 24);
  e.ip[1] = static_cast<uint8_t>(ip >> 16);
  e.ip[2] = static_cast<uint8_t>(ip >> 8);
  e.ip[3] = static_cast<uint8_t>(ip);
  e.port = port;
  const uint8_t mac[6] = {0x02, 0, 0, 0, 0x05, mac_low};
  std::copy(mac, mac + 6, e.mac);
  return e;
}

NeighborEntry entry6(const IpBytes& ip, uint16_t port, uint8_t mac_low) {
  NeighborEntry e;
  e.family = 6;
  std::copy(ip.begin(), ip.end(), e.ip);
  e.port = port;
  const uint8_t mac[6] = {0x02, 0, 0, 0, 0x06, mac_low};
  std::copy(mac, mac + 6, e.mac);
  return e;
}

TEST_F(RouteNeighborTableTest, DefaultConfigNeighbors) {
  const auto cfg = SwitchConfig::build(test::default_params());
  const NeighborTable& t = cfg->neighbors;
  EXPECT_EQ(t.size(), 16u);
  for (uint8_t n = 0; n < 4; ++n) {
    SCOPED_TRACE("host " + std::to_string(n));
    const IpBytes a4 = ipv4_bytes(10, 0, n, 2);
    const NeighborEntry* e = t.find(4, a4.data());
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->port, n);
    EXPECT_EQ(std::vector<uint8_t>(e->mac, e->mac + 6),
              (std::vector<uint8_t>{0x02, 0, 0, 0, 0x01, n}));
    const IpBytes a6 = v6({0xfd00, 0, n, 0, 0, 0, 0, 2});
    e = t.find(6, a6.data());
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->port, n);
    EXPECT_EQ(e->mac[5], n);
  }
  for (uint8_t n = 4; n < 8; ++n) {
    const IpBytes a4 = ipv4_bytes(10, 1, n, 2);
    const NeighborEntry* e = t.find(4, a4.data());
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->port, n);
    EXPECT_EQ(e->mac[4], 0x02);
  }
  // Absent: another host, the switch's own address, a v4 address asked as v6.
  const IpBytes absent4 = ipv4_bytes(10, 0, 2, 77);
  EXPECT_EQ(t.find(4, absent4.data()), nullptr);
  const IpBytes own4 = ipv4_bytes(10, 0, 2, 1);
  EXPECT_EQ(t.find(4, own4.data()), nullptr);
  const IpBytes absent6 = v6({0xfd00, 0, 2, 0, 0, 0, 0, 0x77});
  EXPECT_EQ(t.find(6, absent6.data()), nullptr);
  const IpBytes h2 = ipv4_bytes(10, 0, 2, 2);  // rest zero: not fd00:0:2::2 either
  EXPECT_EQ(t.find(6, h2.data()), nullptr);
}

TEST_F(RouteNeighborTableTest, FindPresentAndAbsent) {
  NeighborTable t(4);
  ASSERT_TRUE(t.insert(entry4(v4(192, 168, 1, 10), 3, 10)));
  ASSERT_TRUE(t.insert(entry6(v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 10}), 5, 11)));
  EXPECT_EQ(t.size(), 2u);

  const IpBytes a = ipv4_bytes(192, 168, 1, 10);
  const NeighborEntry* e = t.find(4, a.data());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->port, 3);
  EXPECT_EQ(e->mac[5], 10);
  const IpBytes b = v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 10});
  e = t.find(6, b.data());
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->port, 5);
  EXPECT_EQ(e->mac[5], 11);

  const IpBytes c = ipv4_bytes(192, 168, 1, 11);
  EXPECT_EQ(t.find(4, c.data()), nullptr);
  const IpBytes d = v6({0x2001, 0xdb8, 0, 0, 0, 0, 0, 11});
  EXPECT_EQ(t.find(6, d.data()), nullptr);
  // Same leading bytes, other family.
  EXPECT_EQ(t.find(6, a.data()), nullptr);

  // A second insert of a present address is refused and changes nothing.
  EXPECT_FALSE(t.insert(entry4(v4(192, 168, 1, 10), 7, 99)));
  EXPECT_EQ(t.size(), 2u);
  EXPECT_EQ(t.find(4, a.data())->port, 3);
}

TEST_F(RouteNeighborTableTest, TwoHundredEntriesAreAllFound) {
  NeighborTable t;  // default capacity: grows several times on the way
  for (uint32_t i = 0; i < 100; ++i) {
    ASSERT_TRUE(t.insert(entry4(v4(10, 7, static_cast<uint8_t>(i / 50), static_cast<uint8_t>(i)),
                                static_cast<uint16_t>(i % 64), static_cast<uint8_t>(i))));
    ASSERT_TRUE(t.insert(entry6(v6({0xfd00, 7, 0, 0, 0, 0, 0, static_cast<uint16_t>(i)}),
                                static_cast<uint16_t>((i + 1) % 64), static_cast<uint8_t>(i))));
  }
  EXPECT_EQ(t.size(), 200u);
  for (uint32_t i = 0; i < 100; ++i) {
    SCOPED_TRACE(i);
    const IpBytes a = ipv4_bytes(10, 7, static_cast<uint8_t>(i / 50), static_cast<uint8_t>(i));
    const NeighborEntry* e = t.find(4, a.data());
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->port, static_cast<uint16_t>(i % 64));
    EXPECT_EQ(e->mac[4], 0x05);
    EXPECT_EQ(e->mac[5], static_cast<uint8_t>(i));
    const IpBytes b = v6({0xfd00, 7, 0, 0, 0, 0, 0, static_cast<uint16_t>(i)});
    e = t.find(6, b.data());
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->port, static_cast<uint16_t>((i + 1) % 64));
    EXPECT_EQ(e->mac[4], 0x06);
    EXPECT_EQ(e->mac[5], static_cast<uint8_t>(i));
  }
  for (uint32_t i = 100; i < 300; ++i) {
    const IpBytes a = ipv4_bytes(10, 7, 9, static_cast<uint8_t>(i));
    EXPECT_EQ(t.find(4, a.data()), nullptr) << i;
    const IpBytes b = v6({0xfd00, 7, 0, 0, 0, 0, 1, static_cast<uint16_t>(i)});
    EXPECT_EQ(t.find(6, b.data()), nullptr) << i;
  }
}

}  // namespace
}  // namespace rocelb
