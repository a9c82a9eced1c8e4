// An mbuf pool for the runs in virtual time that holds up to `capacity`
// mbufs but fills itself with memory only as packets need it: a chunk of
// mbufs at a time, from ordinary process memory, never given back before the
// pool goes. A replay that holds a few thousand packets at once touches a
// few thousand mbufs, not the 65,535 its bound allows; start-up does not
// fault in the whole pool. What an allocation sees is the same as with a
// pool populated up front: keep_free() is called before each event and
// keeps at least `headroom` mbufs free until the pool is full, so an
// allocation fails only once `capacity` mbufs are in use.
//
// The mbufs are for software only (no device does DMA to them: IOVA unset),
// packed back to back (no page alignment per mbuf), kept in a ring_mp_mc
// pool (DPDK's default software pool).
//
// Knobs: capacity, chunk (mbufs per growth), headroom, private area and data
// room per mbuf. Counters: populated() (mbufs made so far).
#pragma once

#include <rte_mempool.h>

#include <cstdint>
#include <string>

namespace rocelb {

class GrowingMbufPool {
 public:
  static constexpr unsigned kDefaultChunk = 4096;
  static constexpr unsigned kDefaultHeadroom = 512;

  // Throws std::runtime_error when DPDK refuses the pool (EAL not started,
  // name taken, no memory).
  GrowingMbufPool(const std::string& name, unsigned capacity, uint16_t priv_size,
                  uint16_t data_room, unsigned chunk = kDefaultChunk,
                  unsigned headroom = kDefaultHeadroom);
  ~GrowingMbufPool();
  GrowingMbufPool(const GrowingMbufPool&) = delete;
  GrowingMbufPool& operator=(const GrowingMbufPool&) = delete;

  rte_mempool* get() const { return mp_; }
  unsigned capacity() const { return mp_->size; }
  unsigned populated() const { return mp_->populated_size; }

  // Adds chunks until `headroom` mbufs are free or the pool is full. Cheap
  // when there is room: the pool's count and this lcore's cache, no loop.
  void keep_free() {
    if (mp_->populated_size < mp_->size && free_now() < headroom_) grow();
  }

 private:
  unsigned free_now() const;
  void grow();

  rte_mempool* mp_ = nullptr;
  unsigned chunk_;
  unsigned headroom_;
};

}  // namespace rocelb
