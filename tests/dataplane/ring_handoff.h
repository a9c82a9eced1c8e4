// Frames passed between a test thread and a worker lcore through an
// rte_ring (a net_ring port's RX or TX side), with the ThreadSanitizer
// hand-over annotations of dataplane/forward/mbuf_handoff.h.
#pragma once

#include <rte_mbuf.h>
#include <rte_ring.h>

#include "dataplane/forward/mbuf_handoff.h"

namespace rocelb::test {

// A frame handed to a worker through a ring (a net_ring port's RX side).
inline int ring_put(rte_ring* r, rte_mbuf* m) {
  mbufs_given(&m, 1);
  return rte_ring_enqueue(r, m);
}
// Frames a worker handed over through a ring (a net_ring port's TX side).
inline unsigned ring_take(rte_ring* r, rte_mbuf** out, unsigned max) {
  const unsigned n = rte_ring_dequeue_burst(r, reinterpret_cast<void**>(out), max, nullptr);
  mbufs_taken(out, n);
  return n;
}
// Frees every frame still in a ring.
inline unsigned ring_free_all(rte_ring* r) {
  rte_mbuf* m[64];
  unsigned total = 0;
  while (unsigned n = ring_take(r, m, 64)) {
    for (unsigned i = 0; i < n; ++i) mbuf_free(m[i]);
    total += n;
  }
  return total;
}

}  // namespace rocelb::test
