// The whole config's memory estimate (control/memory_estimate.h) and the
// loader's limits.max_memory rule: the breakdown adds up, each item follows
// the arithmetic of the code that allocates it, and a config over the limit
// is refused naming the key that asks the most (or the limit itself when
// even the fixed parts do not fit).
#include "control/memory_estimate.h"

#include <gtest/gtest.h>

#include <numeric>

#include "config_test_util.h"

namespace rocelb {
namespace {

using test::Doc;
using test::error_of;
using test::load;

const MemoryItem& item(const MemoryEstimate& e, const std::string& name) {
  for (const auto& i : e.items)
    if (i.name == name) return i;
  static const MemoryItem none{"(missing)", "", 0, 0};
  ADD_FAILURE() << "no item " << name;
  return none;
}

uint64_t sum(const MemoryEstimate& e) {
  return std::accumulate(e.items.begin(), e.items.end(), uint64_t{0},
                         [](uint64_t s, const MemoryItem& i) { return s + i.bytes; });
}

// Doc (tests/control/config_test_util.h): 2 ports with a /24 and a /64, three
// neighbors, a `fixed` group, a default route. Every figure by hand.
TEST(MemoryEstimate, BreakdownOfASmallConfigAddsUp) {
  const MemoryEstimate e = estimate_memory(load(Doc().text()));
  std::vector<std::string> names;
  for (const auto& i : e.items) names.push_back(i.name);
  EXPECT_EQ(names, (std::vector<std::string>{"group_tables", "route_tables", "neighbor_table",
                                             "egress_rings", "packet_pool", "control_replies"}));
  EXPECT_EQ(e.total, sum(e));
  EXPECT_EQ(e.runtime.workers, 1u);

  EXPECT_EQ(item(e, "group_tables").bytes, 0u);  // fixed keeps no table
  // IPv4: 5 prefixes (the default route, two /24s, two /32s), IPv6: 4 (two
  // /64s, two /128s): compact tables of 2 * prefixes + 1 ranges, 9 and 21
  // bytes a range, and IPv4's two-step index (16 starts, then the 11
  // starts padded to 16, 4 bytes each).
  const uint64_t v4 = 11 * 9 + 4 * 32;
  const uint64_t v6 = 9 * 21;
  EXPECT_EQ(item(e, "route_tables").bytes, v4 + v6);
  EXPECT_EQ(item(e, "route_tables").key, "routes");
  // 3 neighbors + 2 * 2 ports expected: 16 slots of 28 bytes.
  EXPECT_EQ(item(e, "neighbor_table").bytes, 16u * 28);
  // 2 ports * 8 classes, rings of 65536 slots.
  EXPECT_EQ(item(e, "egress_rings").bytes, 16u * (384 + 8 * 65536));
  EXPECT_EQ(item(e, "egress_rings").key, "ports");
  // 65535 mbufs of 2368 bytes, one a 4 KiB page (an mbuf never crosses
  // one; the last one's page not counted whole, a margin of one mbuf),
  // their ring (65536 slots), the lcore caches.
  const uint64_t rest = (384 + 8 * 65536) + 192 + 128 * 8256;
  EXPECT_EQ(item(e, "packet_pool").bytes, 65534u * 4096 + 2368 + 2367 + rest);
  EXPECT_EQ(item(e, "packet_pool").key, "");
  EXPECT_EQ(item(e, "control_replies").bytes, 16u << 20);
  // On 2 MiB hugepages: 885 a page, 74 pages and 45 mbufs.
  MemoryRuntime huge;
  huge.page_bytes = 2u << 20;
  EXPECT_EQ(item(estimate_memory(load(Doc().text()), huge), "packet_pool").bytes,
            74u * (2u << 20) + 45 * 2368 + 2367 + rest);
}

// Each AF_XDP port receives into a pool of its own (rocelb-dp run --mbufs
// sizes both): packet_pool counts one per af_xdp device, no other device.
TEST(MemoryEstimate, AfXdpPortsAddAPoolEach) {
  Doc d;
  const MemoryRuntime rt{1, 8191, 16384, 4096, 4095};
  const MemoryEstimate none = estimate_memory(load(d.text()), rt);
  EXPECT_EQ(none.xdp_pools, 0u);
  // 8191 mbufs a page each, less the last page's slack; the ring of 8192
  // slots; the caches.
  const uint64_t caches = 192 + 128 * 8256;
  EXPECT_EQ(item(none, "packet_pool").bytes, 8190u * 4096 + 2368 + 2367 + 384 + 8 * 8192 + caches);
  d.ports =
      "ports:\n"
      "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.1/24, device: "
      "\"net_af_xdp0,iface=a\"}\n"
      "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\", ipv4: 10.0.1.1/24, device: "
      "\"net_tap1,iface=b\"}\n";
  d.neighbors =
      "neighbors:\n"
      "  - {ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 0}\n"
      "  - {ip: 10.0.1.2, mac: \"02:00:00:00:01:01\", port: 1}\n";
  const MemoryEstimate one = estimate_memory(load(d.text()), rt);
  EXPECT_EQ(one.xdp_pools, 1u);
  EXPECT_EQ(item(one, "packet_pool").bytes - item(none, "packet_pool").bytes,
            4094u * 4096 + 2368 + 2367 + 384 + 8 * 4096 + caches);
  EXPECT_EQ(one.total, sum(one));
}

TEST(MemoryEstimate, GroupTablesCountOncePerWorkerAndNameTheBiggestGroup) {
  Doc d;
  d.groups =
      "groups:\n"
      "  g: {members: [10.0.0.2, 10.0.1.2], mode: flowlet_quality, max_flows: 65536}\n"
      "  r: {members: [10.0.0.2, 10.0.1.2], mode: resilient, buckets: 4096}\n"
      "  w: {members: [10.0.0.2, 10.0.1.2], mode: wcmp}\n";
  const ConfigParams p = load(d.text());
  const uint64_t per_worker = 65536 * 16 + 4096 * 4 + 4096 * 2;
  EXPECT_EQ(item(estimate_memory(p), "group_tables").bytes, per_worker);
  const MemoryEstimate four = estimate_memory(p, MemoryRuntime{4, 32767, 16384});
  EXPECT_EQ(item(four, "group_tables").bytes, 4 * per_worker);
  EXPECT_EQ(item(four, "group_tables").key, "groups.g.max_flows");
  EXPECT_EQ(item(four, "egress_rings").bytes, 16u * (384 + 8 * 16384));
  EXPECT_EQ(four.total, sum(four));
}

// A routes section of `n` /25 prefixes through group g.
std::string routes_of(int n) {
  std::string r = "routes:\n";
  for (int i = 0; i < n; ++i)
    r += "  - {prefix: 11." + std::to_string(i / 256) + "." + std::to_string(i % 256) +
         ".0/25, group: g}\n";
  return r;
}

// Up to 2048 prefixes a family: a compact table that grows by 2 ranges of
// 9 bytes a prefix.
TEST(MemoryEstimate, FewRoutesTakeACompactTable) {
  Doc d;
  d.routes = routes_of(1000);
  const uint64_t few = item(estimate_memory(load(d.text())), "route_tables").bytes;
  d.routes = routes_of(2000);
  const uint64_t more = item(estimate_memory(load(d.text())), "route_tables").bytes;
  EXPECT_EQ(more - few, 1000u * 2 * 9);
  EXPECT_LT(more, 64u << 10);
}

// Above 2048, DIR-24-8: a /25 takes a tbl8.
TEST(MemoryEstimate, LongPrefixesTakeTbl8Groups) {
  Doc d;
  d.routes = routes_of(3000);
  const uint64_t few = item(estimate_memory(load(d.text())), "route_tables").bytes;
  d.routes = routes_of(4000);
  const uint64_t more = item(estimate_memory(load(d.text())), "route_tables").bytes;
  // The IPv6 table stays compact. tbl8 groups of 512 bytes: 3002 + 16
  // rounded to 3072, then 4032 (and their bitmap); RIB nodes from 6042 (287
  // pages of 21 and 15) to 8042 (382 and 20), in a ring of 8192 slots both.
  EXPECT_EQ(more - few, (4032 - 3072) * (512 + 1.0 / 8) + (382 - 287) * 4096 + (20 - 15) * 192);
  EXPECT_GT(few, 32u << 20);  // the 2-byte tbl24
}

// ---- the loader's rule ------------------------------------------------------

TEST(MemoryLimit, DefaultIsFourGigabytesAndAKeyChangesIt) {
  EXPECT_EQ(load(Doc().text()).limits.max_memory_bytes, 4'000'000'000u);
  Doc d;
  d.sw = "limits: {max_memory: 8GiB}\n";
  EXPECT_EQ(load(d.text()).limits.max_memory_bytes, uint64_t{8} << 30);
  EXPECT_EQ(load(Doc().text(), {"limits.max_memory=512MB"}).limits.max_memory_bytes, 512'000'000u);
  d.sw = "limits: {max_memory: lots}\n";
  EXPECT_EQ(error_of(d.text()).rfind("x.yaml: limits.max_memory: \"lots\": ", 0), 0u)
      << error_of(d.text());
  d.sw = "limits: {max_memory: 1KB}\n";
  EXPECT_EQ(error_of(d.text()),
            "x.yaml: limits.max_memory: \"1KB\": must be a byte size 1MB .. 1000TB");
  d.sw = "limits: {memory: 1GB}\n";
  EXPECT_EQ(error_of(d.text()), "x.yaml: limits.memory: unknown key (known: max_memory)");
}

// With the loader's runtime Doc takes about 295 MB, of which 287 MB
// whatever the config says (the packet pool, the control replies); its
// route tables are compact (a few hundred bytes).
TEST(MemoryLimit, OverTheLimitNamesTheKeyThatAsksTheMost) {
  Doc d;
  d.groups = "groups:\n  g: {members: [10.0.0.2, 10.0.1.2], mode: flowlet_random}\n";
  EXPECT_EQ(error_of(d.text(), {"limits.max_memory=300MB"}), "no error");
  const std::vector<std::string> big = {"limits.max_memory=300MB", "groups.g.max_flows=1048576"};
  EXPECT_EQ(error_of(d.text(), big),
            "--set groups.g.max_flows=1048576: groups.g.max_flows: the config needs about 312 MB "
            "with 1 worker (packet_pool 270 MB, group_tables 16.8 MB, control_replies 16.8 MB, "
            "egress_rings 8.39 MB, neighbor_table 448 B, route_tables 416 B), more than "
            "limits.max_memory (300 MB)");
  // The same from the file: the file is named.
  d.sw = "limits: {max_memory: 300MB}\n";
  d.groups =
      "groups:\n  g: {members: [10.0.0.2, 10.0.1.2], mode: flowlet_random, max_flows: 1048576}\n";
  EXPECT_EQ(
      error_of(d.text()).rfind("x.yaml: groups.g.max_flows: the config needs about 312 MB", 0), 0u)
      << error_of(d.text());
}

TEST(MemoryLimit, ManyLongIpv6RoutesAreBlamedOnRoutes) {
  Doc d;
  d.sw = "limits: {max_memory: 450MB}\n";
  d.routes = "routes:\n";
  for (int i = 0; i < 10000; ++i)  // 13 tbl8 of 1 KiB each: about 138 MB
    d.routes += "  - {prefix: \"fd10::" + std::to_string(i) + "/128\", port: 0}\n";
  const std::string err = error_of(d.text());
  EXPECT_EQ(err.rfind("x.yaml: routes: the config needs about 500 MB with 1 worker (packet_pool "
                      "270 MB, route_tables 205 MB, ",
                      0),
            0u)
      << err;
  EXPECT_NE(err.find("more than limits.max_memory (450 MB)"), std::string::npos) << err;
  d.sw = "limits: {max_memory: 600MB}\n";
  EXPECT_EQ(error_of(d.text()), "no error");
}

TEST(MemoryLimit, ALimitBelowWhatAnyConfigNeedsNamesTheLimit) {
  const std::string err = error_of(Doc().text(), {"limits.max_memory=250MB"});
  EXPECT_EQ(err,
            "--set limits.max_memory=250MB: limits.max_memory: must be at least 287 MB, what the "
            "switch needs whatever the rest of the config says (this config: about 295 MB with 1 "
            "worker: packet_pool 270 MB, control_replies 16.8 MB, egress_rings 8.39 MB, "
            "neighbor_table 448 B, route_tables 416 B)");
}

// Every worker keeps every group's table: what one worker fits (64 groups
// of a million flowlets, 1 GiB) does not fit four times under 4 GB.
TEST(MemoryLimit, WorkersMultiplyTheGroupTables) {
  Doc d;
  d.groups = "groups:\n";
  for (int i = 0; i < 64; ++i)
    d.groups += "  g" + std::to_string(i) +
                ": {members: [10.0.0.2], mode: flowlet_random, max_flows: 1048576}\n";
  d.routes = "routes:\n  - {prefix: 0.0.0.0/0, group: g0}\n";
  EXPECT_NO_THROW(load_config_text(d.text(), "x.yaml", {}, MemoryRuntime{1, 32767, 16384}));
  EXPECT_NO_THROW(load_config_text(d.text(), "x.yaml", {}, MemoryRuntime{2, 32767, 16384}));
  try {
    load_config_text(d.text(), "x.yaml", {}, MemoryRuntime{4, 32767, 16384});
    FAIL() << "4 workers of 1 GiB tables were accepted";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()).rfind(
                  "x.yaml: groups.g0.max_flows: the config needs about 4.45 GB with 4 workers "
                  "(group_tables 4.29 GB, ",
                  0),
              0u)
        << e.what();
  }
}

}  // namespace
}  // namespace rocelb
