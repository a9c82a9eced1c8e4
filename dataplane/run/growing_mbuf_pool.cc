#include "dataplane/run/growing_mbuf_pool.h"

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

namespace rocelb {

namespace {

void free_chunk(rte_mempool_memhdr*, void* opaque) {
  std::free(opaque);
}

struct Range {
  const char* begin;
  const char* end;
};

// rte_pktmbuf_init on the objects of the chunk just added, not on the ones
// already handed out.
void init_in_range(rte_mempool* mp, void* range, void* obj, unsigned idx) {
  const Range& r = *static_cast<const Range*>(range);
  const char* p = static_cast<const char*>(obj);
  if (p >= r.begin && p < r.end) rte_pktmbuf_init(mp, nullptr, obj, idx);
}

[[noreturn]] void refuse(const std::string& what) {
  throw std::runtime_error("cannot create the packet pool: " + what + ": " +
                           rte_strerror(rte_errno));
}

}  // namespace

GrowingMbufPool::GrowingMbufPool(const std::string& name, unsigned capacity, uint16_t priv_size,
                                 uint16_t data_room, unsigned chunk, unsigned headroom)
    : chunk_(std::max(chunk, 1u)), headroom_(headroom) {
  const unsigned elt = sizeof(rte_mbuf) + priv_size + data_room;
  const unsigned cache = std::min(256u, capacity / 4);
  mp_ =
      rte_mempool_create_empty(name.c_str(), capacity, elt, cache, sizeof(rte_pktmbuf_pool_private),
                               SOCKET_ID_ANY, RTE_MEMPOOL_F_NO_IOVA_CONTIG);
  if (!mp_) refuse("rte_mempool_create_empty");
  if (rte_mempool_set_ops_byname(mp_, "ring_mp_mc", nullptr) != 0) {
    rte_mempool_free(mp_);
    refuse("rte_mempool_set_ops_byname");
  }
  rte_pktmbuf_pool_private priv{};
  priv.mbuf_data_room_size = data_room;
  priv.mbuf_priv_size = priv_size;
  rte_pktmbuf_pool_init(mp_, &priv);
}

GrowingMbufPool::~GrowingMbufPool() {
  rte_mempool_free(mp_);  // frees each chunk (free_chunk)
}

unsigned GrowingMbufPool::free_now() const {
  // The ring of "ring_mp_mc" holds the free mbufs not in a cache.
  unsigned n = mp_->populated_size ? rte_ring_count(static_cast<rte_ring*>(mp_->pool_data)) : 0;
  if (mp_->cache_size) {
    const unsigned lcore = rte_lcore_id();
    if (lcore < RTE_MAX_LCORE) n += mp_->local_cache[lcore].len;
  }
  return n;
}

void GrowingMbufPool::grow() {
  while (mp_->populated_size < mp_->size && free_now() < headroom_) {
    const unsigned n = std::min(chunk_, mp_->size - mp_->populated_size);
    const size_t obj = size_t{mp_->header_size} + mp_->elt_size + mp_->trailer_size;
    const size_t bytes = n * obj + RTE_CACHE_LINE_SIZE;
    void* mem = std::aligned_alloc(RTE_CACHE_LINE_SIZE, RTE_ALIGN_CEIL(bytes, RTE_CACHE_LINE_SIZE));
    if (!mem) throw std::runtime_error("cannot grow the packet pool: out of memory");
    const int added = rte_mempool_populate_iova(mp_, static_cast<char*>(mem), RTE_BAD_IOVA, bytes,
                                                free_chunk, mem);
    if (added <= 0) {
      std::free(mem);
      rte_errno = -added;
      refuse("rte_mempool_populate_iova");
    }
    Range r{static_cast<const char*>(mem), static_cast<const char*>(mem) + bytes};
    rte_mempool_obj_iter(mp_, init_in_range, &r);
  }
}

}  // namespace rocelb
