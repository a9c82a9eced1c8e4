#include "dataplane/forward/egress_queue.h"

#include <rte_errno.h>

#include <stdexcept>

namespace rocelb {

EgressQueue::~EgressQueue() {
  if (ring_) {
    flush();
    rte_ring_free(ring_);
  }
}

void EgressQueue::init(const std::string& name, unsigned capacity, uint64_t limit_bytes) {
  ring_ = rte_ring_create(name.c_str(), capacity, SOCKET_ID_ANY, RING_F_SC_DEQ);
  if (!ring_)
    throw std::runtime_error("cannot create egress queue " + name + ": " + rte_strerror(rte_errno));
  set_limit(limit_bytes);
}

uint64_t EgressQueue::flush() {
  uint64_t n = 0;
  while (rte_mbuf* m = pop()) {
    rte_pktmbuf_free(m);
    ++n;
  }
  return n;
}

}  // namespace rocelb
