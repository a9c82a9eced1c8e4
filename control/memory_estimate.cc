#include "control/memory_estimate.h"

#include "control/human_units.h"

#include <algorithm>
#include <cstdio>

#include "common/constants.h"
#include "control/config_params.h"
#include "control/control_server.h"
#include "control/route_table_size.h"
#include "lb/lb_knobs.h"

namespace rocelb {
namespace {

using namespace dpdk_bytes;

constexpr uint64_t kTbl24Entries = uint64_t{1} << 24;
constexpr uint64_t kTbl8Entries = 256;
constexpr uint64_t kMax2ByteEntry = (1u << 15) - 1;  // route_table.cc: 2-byte entries up to this

uint64_t pow2_at_least(uint64_t v) {
  uint64_t p = 1;
  while (p < v) p <<= 1;
  return p;
}

// rte_ring_get_memsize: the header and one pointer a slot, in cache lines.
uint64_t ring_bytes(uint64_t slots) {
  return (kRingHeader + 8 * slots + 63) / 64 * 64;
}

// A mempool of `n` objects of `object_bytes` (header included) on pages of
// `page` bytes, no object crossing a page, as rte_mempool_op_calc_mem_size_
// helper reserves it: whole pages but the last, a margin of one object for
// alignment; and the ring that holds the objects when free.
uint64_t mempool_bytes(uint64_t n, uint64_t object_bytes, uint64_t page) {
  const uint64_t per_page = page ? page / object_bytes : 0;
  uint64_t objects = 0;
  if (page == 0) {  // no page to respect (DPDK's pg_shift 0)
    objects = n * object_bytes;
  } else if (per_page == 0) {
    objects = (object_bytes + page - 1) / page * page * n;
  } else if (n > 0) {
    const uint64_t last = (n - 1) % per_page + 1;
    objects = last * object_bytes + (n - last) / per_page * page + object_bytes - 1;
  }
  return objects + ring_bytes(pow2_at_least(n + 1));
}

// rte_fib / rte_fib6 keep a RIB of max_routes * 2 nodes; route_table.cc
// asks max(16, routes + 16).
uint64_t rib_bytes(uint64_t routes, uint64_t page) {
  return mempool_bytes(2 * std::max<uint64_t>(16, routes + 16), kRibNode, page);
}

MemoryItem route_tables(const ConfigParams& cfg, uint64_t page) {
  // As SwitchConfig::build counts them: every static route, and per
  // interface address its subnet and its host route.
  RouteTableSize n;
  for (const RouteParams& r : cfg.routes) n.add(r.prefix.addr.is_v4(), r.prefix.len);
  for (const PortParams& p : cfg.ports) {
    if (p.ipv4) n.add(true, p.ipv4->len), n.add(true, 32);
    if (p.ipv6) n.add(false, p.ipv6->len), n.add(false, 128);
  }
  // Next hops are shared by target: at most one per group, neighbor or
  // port a route names, one per port's subnet, "none" and "local".
  const uint64_t targets = std::min<uint64_t>(
      cfg.routes.size(), cfg.groups.size() + cfg.neighbors.size() + cfg.ports.size());
  const uint64_t next_hops = 2 + cfg.ports.size() + targets;

  // Up to kCompactRoutesMax prefixes a family: a range table (range_table.h),
  // 2 * prefixes + 1 ranges of a start, a next hop and a length; IPv4 up to
  // 256 ranges also its two-step index: 16 starts, then every start, padded
  // to a multiple of 16.
  const uint64_t ranges_v4 = 2 * uint64_t{n.routes_v4} + 1;
  const uint64_t seek_v4 = ranges_v4 <= 256 ? 4 * 16 * (1 + (ranges_v4 + 15) / 16) : 0;
  const uint64_t compact_v4 = ranges_v4 * (4 + 4 + 1) + seek_v4;
  const uint64_t compact_v6 = (2 * uint64_t{n.routes_v6} + 1) * (16 + 4 + 1);
  // IPv4, DIR-24-8 (dir24_8_create): tbl24, tbl8 groups (+1), their bitmap.
  const uint64_t want_v4 = uint64_t{n.tbl8_v4} + 16;
  const uint64_t w4 = want_v4 > kMax2ByteEntry || next_hops > kMax2ByteEntry ? 4 : 2;
  const uint64_t tbl8_v4 = (want_v4 + 63) / 64 * 64;
  const uint64_t v4 = n.compact_v4() ? compact_v4
                                     : kTbl24Entries * w4 + kTbl8Entries * w4 * (tbl8_v4 + 1) +
                                           tbl8_v4 / 8 + rib_bytes(n.routes_v4, page);
  // IPv6, trie with 4-byte entries (trie_create): tbl24, tbl8 groups (+1), their pool.
  const uint64_t tbl8_v6 = uint64_t{n.tbl8_v6} + 16;
  const uint64_t v6 = n.compact_v6() ? compact_v6
                                     : kTbl24Entries * 4 + kTbl8Entries * 4 * (tbl8_v6 + 1) +
                                           4 * tbl8_v6 + rib_bytes(n.routes_v6, page);
  return {"route_tables", "routes", v4 + v6, 0};
}

MemoryItem group_tables(const ConfigParams& cfg, uint32_t workers) {
  MemoryItem item{"group_tables", "groups", 0, 0};
  uint64_t per_worker = 0, biggest = 0;
  for (const GroupParams& g : cfg.groups) {
    const uint64_t b = group_table_bytes(g.mode, g.knobs);
    per_worker += b;
    if (b > biggest) {
      biggest = b;
      item.key = "groups." + g.name + "." + (uses_flowlets(g.mode) ? "max_flows" : "buckets");
    }
  }
  item.bytes = per_worker * std::max<uint32_t>(workers, 1);
  return item;
}

MemoryItem neighbor_table(const ConfigParams& cfg) {
  // NeighborTable(neighbors + 2 * ports): a power of two, at least 16 and
  // twice what it expects.
  const uint64_t expected = cfg.neighbors.size() + 2 * cfg.ports.size();
  return {"neighbor_table", "neighbors",
          pow2_at_least(std::max<uint64_t>(16, 2 * expected)) * kNeighborEntry, 0};
}

MemoryItem egress_rings(const ConfigParams& cfg, uint32_t capacity) {
  return {"egress_rings", "ports",
          cfg.ports.size() * kNumTrafficClasses * ring_bytes(pow2_at_least(capacity)), 0};
}

uint32_t xdp_ports(const ConfigParams& cfg) {
  uint32_t n = 0;
  for (const auto& p : cfg.ports) n += is_af_xdp_device(p.device);
  return n;
}

// The switch's pool and one of its own for each of the `xdp_pools` AF_XDP ports.
MemoryItem packet_pool(uint32_t xdp_pools, const MemoryRuntime& runtime) {
  const uint64_t one =
      mempool_bytes(runtime.pool_mbufs, kMbufObject, runtime.page_bytes) + kMempoolWithCaches;
  const uint64_t b =
      one + xdp_pools * (mempool_bytes(runtime.xdp_pool_mbufs, kMbufObject, runtime.page_bytes) +
                         kMempoolWithCaches);
  return {"packet_pool", "", b, b};
}

MemoryItem control_replies() {
  const uint64_t b = ControlServerOptions{}.max_queued_bytes;
  return {"control_replies", "", b, b};
}

}  // namespace

MemoryEstimate estimate_memory(const ConfigParams& cfg, const MemoryRuntime& runtime) {
  MemoryEstimate e;
  e.runtime = runtime;
  e.xdp_pools = xdp_ports(cfg);
  e.items = {group_tables(cfg, runtime.workers),
             route_tables(cfg, runtime.page_bytes),
             neighbor_table(cfg),
             egress_rings(cfg, runtime.ring_capacity),
             packet_pool(e.xdp_pools, runtime),
             control_replies()};
  for (const MemoryItem& i : e.items) e.total += i.bytes;
  return e;
}

std::optional<MemoryRefusal> memory_refusal(const MemoryEstimate& e, uint64_t limit) {
  if (e.total <= limit) return std::nullopt;
  std::vector<const MemoryItem*> by_size;
  for (const MemoryItem& i : e.items)
    if (i.bytes) by_size.push_back(&i);
  std::stable_sort(by_size.begin(), by_size.end(),
                   [](const MemoryItem* a, const MemoryItem* b) { return a->bytes > b->bytes; });
  std::string parts;
  for (const MemoryItem* i : by_size)
    parts += (parts.empty() ? "" : ", ") + i->name + " " + human_bytes(i->bytes);
  const std::string workers =
      std::to_string(e.runtime.workers) + (e.runtime.workers == 1 ? " worker" : " workers");

  uint64_t floor = 0;
  const MemoryItem* blame = nullptr;
  for (const MemoryItem& i : e.items) {
    const uint64_t fixed = i.key.empty() ? i.bytes : i.floor;
    floor += fixed;
    if (!i.key.empty() && (!blame || i.bytes - fixed > blame->bytes - blame->floor)) blame = &i;
  }
  if (floor > limit || !blame)
    return MemoryRefusal{"limits.max_memory",
                         "must be at least " + human_bytes(floor) +
                             ", what the switch needs whatever the rest of the config says "
                             "(this config: about " +
                             human_bytes(e.total) + " with " + workers + ": " + parts + ")"};
  return MemoryRefusal{blame->key, "the config needs about " + human_bytes(e.total) + " with " +
                                       workers + " (" + parts + "), more than limits.max_memory (" +
                                       human_bytes(limit) + ")"};
}

}  // namespace rocelb
