// What a config will allocate, estimated from the config alone before
// anything is allocated, and the rule the loader enforces on it:
// `limits.max_memory` (config_params.h). `rocelbctl show config` shows the
// estimate of the running switch.
//
// Items (in this order; each formula mirrors the code that allocates):
//   group_tables     every group's load-balancing table (lb_knobs.h
//                    group_table_bytes), once per forwarding worker
//   route_tables     per family (IPv4, IPv6), as dataplane/forward/
//                    route_table.h builds it (route_table_size.h decides):
//                    up to 2048 prefixes a compact range table, 2 * prefixes
//                    + 1 ranges of 9 bytes (IPv4) or 21 (IPv6); above, the
//                    DIR-24-8 FIB (IPv4) or the trie FIB (IPv6) (DPDK 22.11
//                    lib/fib): 2^24 first-level entries each (2 or 4 bytes
//                    IPv4, 4 bytes IPv6), 256 entries per tbl8 group, one
//                    tbl8 per IPv4 prefix longer than /24 and one per 8 bits
//                    beyond /24 of an IPv6 prefix (+16 spare), and the RIB's
//                    node pool (2 nodes of 192 bytes per route, +16 spare)
//   neighbor_table   the static-neighbor hash table (neighbor_table.cc)
//   egress_rings     one ring per (port, traffic class): 8 bytes a slot
//                    plus DPDK's 384-byte ring header (egress_queue.cc)
//   packet_pool      the mbuf pool: 2368 bytes an mbuf (64 mempool header +
//                    128 struct rte_mbuf + 2176 RTE_MBUF_DEFAULT_BUF_SIZE),
//                    as many as fit a page (an mbuf never crosses one: with
//                    4 KiB pages, --no-huge, one a page), its ring, and
//                    1 MiB of per-lcore caches; the RIB's pools likewise;
//                    plus the pool of its own each AF_XDP port receives into
//                    (xdp_pool_mbufs, ports[].device net_af_xdp...)
//   control_replies  what the control socket may hold in unsent replies
//                    (control_server.h max_queued_bytes, 16 MiB)
// Steady state: while a live apply swaps configs, changed route tables and
// groups exist twice for a grace period.
//
// Knobs: MemoryRuntime — what the config does not say: forwarding workers,
// mbufs in the pool, slots of each egress ring, the page size of DPDK's
// memory (the engine's and EAL's choices;
// dataplane/mgmt/memory_runtime.h has the live switch's). No counters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace rocelb {

struct ConfigParams;

// What DPDK 22.11 (x86-64, RTE_MAX_LCORE 128) takes for the objects above;
// dataplane/mgmt/memory_runtime.cc checks them against its headers.
namespace dpdk_bytes {
inline constexpr uint64_t kMbufObject = 64 + 128 + 2176;  // mempool header, rte_mbuf, buffer
inline constexpr uint64_t kMempoolWithCaches = 192 + 128 * 8256;  // rte_mempool + lcore caches
inline constexpr uint64_t kRingHeader = 384;                      // struct rte_ring
inline constexpr uint64_t kRibNode = 192;       // rte_rib(6)_node in its mempool (header, spread)
inline constexpr uint64_t kNeighborEntry = 28;  // sizeof(NeighborEntry): ours, checked alike
}  // namespace dpdk_bytes

struct MemoryRuntime {
  // The loader's default: one worker and the larger of the two engines'
  // pool and rings (replay: 65535 mbufs, rings of 65536, 4 KiB pages; live:
  // 32767 and 16384, hugepages when the machine has them). A live switch
  // checks again with its own (memory_runtime.h).
  uint32_t workers = 1;
  uint32_t pool_mbufs = 65535;
  uint32_t ring_capacity = 65536;
  uint64_t page_bytes = 4096;
  uint32_t xdp_pool_mbufs = 16383;  // each AF_XDP port's own pool (live only)
};

struct MemoryItem {
  std::string name;    // group_tables, route_tables, ...
  std::string key;     // the config key path that sizes it; "" when none does
  uint64_t bytes = 0;  // what it takes
  uint64_t floor = 0;  // what no config can shrink: all of it without a key
};

struct MemoryEstimate {
  MemoryRuntime runtime;
  std::vector<MemoryItem> items;  // in the order above
  uint32_t xdp_pools = 0;         // AF_XDP ports: each has a pool of xdp_pool_mbufs
  uint64_t total = 0;             // the sum of the items' bytes
};

MemoryEstimate estimate_memory(const ConfigParams& cfg, const MemoryRuntime& runtime = {});

// Why an estimate breaks `limit`: the key path to blame and the rule, or
// nullopt when it fits. The path is that of the item the config makes
// largest (bytes beyond its floor); `limits.max_memory` itself when even
// the floors (and the items no key sizes) do not fit.
struct MemoryRefusal {
  std::string path;
  std::string message;
};
std::optional<MemoryRefusal> memory_refusal(const MemoryEstimate& e, uint64_t limit);

}  // namespace rocelb
