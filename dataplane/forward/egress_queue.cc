#include "dataplane/forward/egress_queue.h"

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_ring_elem.h>

#include <cstdlib>
#include <stdexcept>

#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/tsan.h"

namespace rocelb {

EgressQueue::~EgressQueue() {
  if (ring_) {
    flush();
    free_ring(ring_);
  }
}

// The ring lives in process memory, not in a memzone of its own as
// rte_ring_create would put it: memzones are few (RTE_MAX_MEMZONE, 2560),
// and a fabric has eight rings a port on every switch.
void EgressQueue::init(const std::string& name, unsigned capacity, bool single_producer) {
  ring_ = alloc_ring(name, sizeof(rte_mbuf*), capacity,
                     RING_F_SC_DEQ | (single_producer ? RING_F_SP_ENQ : 0));
  if (!ring_)
    throw std::runtime_error("cannot create egress queue " + name + ": " + rte_strerror(rte_errno));
}

// Not DPDK's heap: rte_free zeroes what it frees (DPDK 22.11), so a fabric's
// rings, mostly never used, became resident at teardown. Not zeroed either:
// rte_ring_init writes the header and a slot is written before it is read,
// so a slot never used costs no resident memory.
rte_ring* alloc_ring(const std::string& name, unsigned elem_bytes, unsigned count, unsigned flags) {
  const ssize_t bytes = rte_ring_get_memsize_elem(elem_bytes, count);
  if (bytes < 0) {
    rte_errno = static_cast<int>(-bytes);
    return nullptr;
  }
  const size_t size = (static_cast<size_t>(bytes) + RTE_CACHE_LINE_SIZE - 1) / RTE_CACHE_LINE_SIZE *
                      RTE_CACHE_LINE_SIZE;
  auto* r = static_cast<rte_ring*>(std::aligned_alloc(RTE_CACHE_LINE_SIZE, size));
  if (!r) {
    rte_errno = ENOMEM;
    return nullptr;
  }
  const int rc = rte_ring_init(r, name.c_str(), count, flags);
  if (rc < 0) {
    std::free(r);
    rte_errno = -rc;
    return nullptr;
  }
  return r;
}

void free_ring(rte_ring* r) {
  std::free(r);
}

uint32_t EgressQueue::enqueue_burst(rte_mbuf* const* pkts, const uint32_t* len, uint32_t n,
                                    uint64_t bytes, uint64_t limit) {
  if (n == 0) return 0;
  // What the caller counted before (rx, generated) is published before the
  // frames count in the depth (Dataplane::snapshot reads depths first).
  std::atomic_thread_fence(std::memory_order_release);
  // Reserve first: the consumer may take these packets out the moment the
  // ring has them, and must find them counted.
  uint64_t before;
  if (one_thread_) {
    before = bytes_.load(std::memory_order_relaxed);
    bytes_.store(before + bytes, std::memory_order_relaxed);
  } else {
    before = bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  uint32_t keep = n;
  uint64_t kept = bytes;
  // Another producer may have filled the queue since the caller read its
  // depth: give back from the tail until the burst fits.
  while (keep > 0 && before + kept > limit) kept -= len[--keep];
  if (one_thread_)
    packets_.store(packets_.load(std::memory_order_relaxed) + keep, std::memory_order_relaxed);
  else
    packets_.fetch_add(keep, std::memory_order_seq_cst);
  ROCELB_TSAN_RELEASE(ring_);
  const uint32_t queued =
      keep ? rte_ring_enqueue_burst(ring_, reinterpret_cast<void* const*>(pkts), keep, nullptr) : 0;
  for (uint32_t i = queued; i < keep; ++i) kept -= len[i];  // ring full
  if (kept != bytes) bytes_.fetch_sub(bytes - kept, std::memory_order_relaxed);
  if (queued != keep) {
    const uint64_t back = keep - queued;
    // A consumer that emptied the ring meanwhile left the bit to this
    // reservation: clear it if the queue is empty now.
    if (packets_.fetch_sub(back, std::memory_order_seq_cst) == back && mask_) clear_bit();
    // The caller counts these dropped next: out of the depth first
    // (Dataplane::snapshot reads drops before depths).
    std::atomic_thread_fence(std::memory_order_release);
  }
  if (queued && mask_) set_bit();  // in the ring: the owner may take them
  const uint64_t now = before + kept;
  uint64_t wm = watermark_.load(std::memory_order_relaxed);
  while (now > wm && !watermark_.compare_exchange_weak(wm, now, std::memory_order_relaxed)) {
  }
  return queued;
}

bool EgressQueue::refill() {
  cache_pos_ = 0;
  cache_len_ = 0;
  cache_len_ =
      rte_ring_sc_dequeue_burst(ring_, reinterpret_cast<void**>(cache_), kCacheSize, nullptr);
  if (cache_len_) {
    ROCELB_TSAN_ACQUIRE(ring_);
    rte_prefetch0(cache_[0]);
  }
  return cache_len_ != 0;
}

uint64_t EgressQueue::flush() {
  uint64_t n = 0;
  while (rte_mbuf* m = peek()) {
    take();
    mbuf_free(m);
    ++n;
  }
  commit();
  return n;
}

}  // namespace rocelb
