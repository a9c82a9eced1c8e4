// Copying frames between byte buffers and (possibly chained) mbufs, for the
// replay and fabric runs, the recorder and the tests. Not used on the live hot path.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

namespace rocelb {

// A new mbuf (chained if the frame exceeds one segment) holding `len` bytes,
// or nullptr if the pool is exhausted (nothing leaks).
rte_mbuf* mbuf_from_bytes(rte_mempool* pool, const uint8_t* data, uint32_t len);

// Pointer to the whole frame: into the mbuf when it is one segment, else
// copied into `scratch` (at least pkt_len bytes).
inline const uint8_t* mbuf_bytes(const rte_mbuf* m, uint8_t* scratch) {
  return static_cast<const uint8_t*>(rte_pktmbuf_read(m, 0, m->pkt_len, scratch));
}

// mbufs of `pool` currently allocated (in-use count, all lcore caches
// included). Of the mbufs populated: a pool may fill itself as it goes
// (run/growing_mbuf_pool.h).
inline unsigned mbufs_in_use(const rte_mempool* pool) {
  return pool->populated_size - rte_mempool_avail_count(pool);
}

}  // namespace rocelb
