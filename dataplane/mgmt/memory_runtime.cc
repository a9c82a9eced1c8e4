#include "dataplane/mgmt/memory_runtime.h"

#include <unistd.h>

#include <algorithm>
#include <thread>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_memory.h>
#include <rte_mempool.h>
#include <rte_ring.h>

#include "dataplane/forward/neighbor_table.h"

namespace rocelb {

// The figures control/memory_estimate.cc multiplies, against this DPDK.
static_assert(dpdk_bytes::kMbufObject ==
              RTE_MEMPOOL_ALIGN + sizeof(rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE);
static_assert(sizeof(rte_mempool_objhdr) <= RTE_MEMPOOL_ALIGN);
static_assert(dpdk_bytes::kMempoolWithCaches ==
              sizeof(rte_mempool) + RTE_MAX_LCORE * sizeof(rte_mempool_cache));
static_assert(dpdk_bytes::kRingHeader == sizeof(rte_ring));
static_assert(dpdk_bytes::kNeighborEntry == sizeof(NeighborEntry));

namespace {

// The smallest page of DPDK's memory: its hugepages, else the system's.
uint64_t page_bytes() {
  uint64_t page = 0;
  if (rte_eal_has_hugepages())
    rte_memseg_list_walk(
        [](const rte_memseg_list* msl, void* arg) {
          auto& p = *static_cast<uint64_t*>(arg);
          if (!msl->external && msl->page_sz && (p == 0 || msl->page_sz < p)) p = msl->page_sz;
          return 0;
        },
        &page);
  return page ? page : static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

namespace {

// What the live run's options say (pool, AF_XDP pools, rings), with `workers`
// forwarding workers on pages of `page` bytes.
MemoryRuntime runtime_of(const LiveOptions& opt, uint32_t workers, uint64_t page) {
  MemoryRuntime r;
  r.workers = workers;
  r.pool_mbufs = opt.pool_mbufs;
  r.xdp_pool_mbufs = opt.xdp_pool_mbufs;
  r.ring_capacity = opt.ring_capacity;
  r.page_bytes = page;
  return r;
}

}  // namespace

MemoryRuntime live_memory_runtime(const LiveOptions& opt) {
  return runtime_of(opt, rte_lcore_count() > 1 ? rte_lcore_count() - 1 : 1, page_bytes());
}

unsigned no_huge_memory_mb(const ConfigParams& cfg, const LiveOptions& opt) {
  const MemoryRuntime r = runtime_of(opt, std::max(1u, std::thread::hardware_concurrency()),
                                     static_cast<uint64_t>(::sysconf(_SC_PAGESIZE)));
  const uint64_t need = estimate_memory(cfg, r).total;
  return static_cast<unsigned>(std::max<uint64_t>(1024, (need + need / 4) / 1'000'000 + 1));
}

}  // namespace rocelb
