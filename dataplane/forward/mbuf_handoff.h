// Where an mbuf changes thread: taken from a device or a pool, given to a
// device, freed to its pool. Outside a ThreadSanitizer build these are
// rte_pktmbuf_alloc / rte_pktmbuf_free and nothing else; in one they tell
// TSan that the next owner sees what the last one wrote (per segment), and
// hide the pool's own reinitialisation of the mbuf, which DPDK orders with
// code TSan does not see (tsan.h). Every alloc and free of the switch and
// of the tests that run worker lcores goes through here. No knobs, no
// counters.
#pragma once

#include <rte_mbuf.h>

#include "dataplane/forward/tsan.h"

namespace rocelb {

// After rte_eth_rx_burst or a dequeue from a ring another thread fills.
inline void mbufs_taken(rte_mbuf* const* m, unsigned n) {
#ifdef ROCELB_TSAN
  for (unsigned i = 0; i < n; ++i)
    for (rte_mbuf* s = m[i]; s; s = s->next) ROCELB_TSAN_ACQUIRE(s);
#else
  (void)m;
  (void)n;
#endif
}

// Before rte_eth_tx_burst or an enqueue into a ring another thread empties.
inline void mbufs_given(rte_mbuf* const* m, unsigned n) {
#ifdef ROCELB_TSAN
  for (unsigned i = 0; i < n; ++i)
    for (rte_mbuf* s = m[i]; s; s = s->next) ROCELB_TSAN_RELEASE(s);
#else
  (void)m;
  (void)n;
#endif
}

inline void mbuf_free(rte_mbuf* m) {
  mbufs_given(&m, 1);
  ROCELB_TSAN_IGNORE_BEGIN();
  rte_pktmbuf_free(m);
  ROCELB_TSAN_IGNORE_END();
}

inline rte_mbuf* mbuf_alloc(rte_mempool* pool) {
  ROCELB_TSAN_IGNORE_BEGIN();
  rte_mbuf* m = rte_pktmbuf_alloc(pool);
  ROCELB_TSAN_IGNORE_END();
  if (m) ROCELB_TSAN_ACQUIRE(m);
  return m;
}

}  // namespace rocelb
