// One egress queue: a (port, traffic class) FIFO of mbufs with live depth in
// bytes and packets, a byte watermark and a tail-drop limit. Any lcore may
// hand packets over (multi-producer ring, whole bursts at a time); only the
// port's transmitting lcore takes them out.
//
// Producer: enqueue_burst() reserves the burst's bytes and packets in the
// depth counters first (one atomic add each), checks the limit against what
// the add returned, then hands the mbufs to the ring with one burst enqueue.
// Accounting comes before the hand-off, so the consumer can never take out
// what was not yet counted in: the depth never wraps. What did not fit
// (limit passed because another lcore filled the queue meanwhile, or ring
// full) is returned from the tail of the burst, its reservation undone.
//
// Consumer: the owner keeps a small cache of mbufs dequeued from the ring in
// one burst; peek() shows the head (the scheduler needs its size) and take()
// takes it. Popped packets count in the depth until commit(), which
// publishes a whole dequeue burst with one atomic subtract each;
// own_depth_bytes() is the depth the owner sees meanwhile (without its
// uncommitted pops). Cached packets still count in the depth.
//
// Non-empty mask: a queue attached to its port's mask (attach_mask) keeps
// its bit set while it holds packets, so the owner finds the classes with
// work in one byte instead of eight depth lines. A producer sets the bit
// once its packets are in the ring; the consumer clears it when a commit
// empties the queue and sets it again if a producer added meanwhile (both
// sequentially consistent, so no bit is lost), or, when one thread is both
// producer and consumer, with plain stores.
//
// Knobs: limit (passed per burst from the epoch's config), ring capacity,
// single producer (one worker lcore). The ring is in process memory and
// takes no memzone (alloc_ring below), so a fabric of many switches has no
// count limit on its queues.
// Counters: depth_bytes, depth_packets, watermark_bytes (any reader);
//           dequeued_packets/bytes (consumer-owned). Enqueue and drop counts
//           are per lcore (counters.h).
#pragma once

#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <string>

#include "common/counter.h"

namespace rocelb {

// A ring of `count` (a power of two) slots of `elem_bytes` in process
// memory, taking no memzone (rte_ring_create takes one of RTE_MAX_MEMZONE)
// and no resident memory for slots never used; free it with free_ring,
// never rte_ring_free or rte_free. Null and rte_errno set on failure.
rte_ring* alloc_ring(const std::string& name, unsigned elem_bytes, unsigned count, unsigned flags);
void free_ring(rte_ring* r);

class EgressQueue {
 public:
  static constexpr unsigned kCacheSize = 32;

  EgressQueue() = default;
  ~EgressQueue();
  EgressQueue(const EgressQueue&) = delete;
  EgressQueue& operator=(const EgressQueue&) = delete;

  // Throws std::runtime_error if the ring cannot be created. With one
  // producer (a single worker) the ring's enqueue needs no compare-and-swap.
  void init(const std::string& name, unsigned capacity, bool single_producer);

  // Producer side: hands over pkts[0..n) whose lengths sum to `bytes`
  // (each len[i]), keeping the depth at or under `limit` bytes. Returns how
  // many from the front were queued; the caller still owns the rest.
  uint32_t enqueue_burst(rte_mbuf* const* pkts, const uint32_t* len, uint32_t n, uint64_t bytes,
                         uint64_t limit);

  // One packet (tests, tools): enqueue_burst of one.
  bool enqueue(rte_mbuf* m, uint64_t limit = UINT64_MAX) {
    const uint32_t len = m->pkt_len;
    return enqueue_burst(&m, &len, 1, len, limit) == 1;
  }

  // Consumer side (the port's TX owner).
  rte_mbuf* peek() {
    if (cache_pos_ == cache_len_) {
      // Everything counted in is in our hands already: no need to look at
      // the ring (its tail is on a line producers write; this is one load).
      if (packets_.load(std::memory_order_relaxed) == popped_packets_) return nullptr;
      if (!refill()) return nullptr;
    }
    return cache_[cache_pos_];
  }
  // Takes the head peek() showed (it must have shown one).
  rte_mbuf* take() {
    rte_mbuf* m = cache_[cache_pos_++];
    // The next head's header has waited in the queue: fetch it now, the
    // scheduler reads its length next.
    if (cache_pos_ < cache_len_) rte_prefetch0(cache_[cache_pos_]);
    popped_bytes_ += m->pkt_len;
    ++popped_packets_;
    return m;
  }
  // This queue's bit in its port's non-empty mask; `one_thread`: the
  // producer is the consumer's own thread (the depth is then kept with
  // plain stores too).
  void attach_mask(std::atomic<uint8_t>* mask, uint8_t bit, bool one_thread) {
    mask_ = mask;
    bit_ = bit;
    one_thread_ = one_thread;
  }

  // Publishes the pops since the last commit.
  void commit() {
    if (popped_packets_ == 0) return;
    uint64_t before;
    if (one_thread_) {  // the producer is this thread: no locked subtract
      bytes_.store(bytes_.load(std::memory_order_relaxed) - popped_bytes_,
                   std::memory_order_relaxed);
      before = packets_.load(std::memory_order_relaxed);
      packets_.store(before - popped_packets_, std::memory_order_relaxed);
    } else {
      bytes_.fetch_sub(popped_bytes_, std::memory_order_relaxed);
      before = packets_.fetch_sub(popped_packets_, std::memory_order_seq_cst);
    }
    if (mask_ && before == popped_packets_) clear_bit();
    dequeued_packets_ += popped_packets_;
    dequeued_bytes_ += popped_bytes_;
    popped_bytes_ = 0;
    popped_packets_ = 0;
  }
  // One packet (tests, flushes): peek, take and commit; null when empty.
  rte_mbuf* pop() {
    if (!peek()) return nullptr;
    rte_mbuf* m = take();
    commit();
    return m;
  }
  // Depth as the consumer sees it: without what it took and not committed.
  uint64_t own_depth_bytes() const { return depth_bytes() - popped_bytes_; }
  // Nothing queued, committed pops taken into account (any thread).
  bool empty() const { return packets_.load(std::memory_order_relaxed) == 0; }

  // Frees everything queued (consumer side; used at shutdown and by tests).
  uint64_t flush();

  uint64_t depth_bytes() const { return bytes_.load(std::memory_order_relaxed); }
  uint64_t depth_packets() const { return packets_.load(std::memory_order_relaxed); }
  uint64_t watermark_bytes() const { return watermark_.load(std::memory_order_relaxed); }
  void clear_watermark() { watermark_.store(depth_bytes(), std::memory_order_relaxed); }
  uint64_t dequeued_packets() const { return dequeued_packets_; }
  uint64_t dequeued_bytes() const { return dequeued_bytes_; }

 private:
  bool refill();
  void set_bit() {
    if (one_thread_) {
      mask_->store(mask_->load(std::memory_order_relaxed) | bit_, std::memory_order_relaxed);
    } else if (!(mask_->load(std::memory_order_seq_cst) & bit_)) {
      mask_->fetch_or(bit_, std::memory_order_seq_cst);
    }
  }
  // Emptied by a commit: a producer that added since finds the bit clear
  // (and sets it), or its packets are seen here.
  void clear_bit() {
    const uint8_t keep = static_cast<uint8_t>(~bit_);
    if (one_thread_) {
      mask_->store(mask_->load(std::memory_order_relaxed) & keep, std::memory_order_relaxed);
      return;
    }
    mask_->fetch_and(keep, std::memory_order_seq_cst);
    if (packets_.load(std::memory_order_seq_cst) != 0)
      mask_->fetch_or(bit_, std::memory_order_seq_cst);
  }

  rte_ring* ring_ = nullptr;
  std::atomic<uint8_t>* mask_ = nullptr;  // the port's non-empty mask (attach_mask)
  uint8_t bit_ = 0;
  bool one_thread_ = false;
  // Shared: producers add, the consumer subtracts (atomic read-modify-write;
  // plain stores when one thread is both: attach_mask).
  alignas(64) std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> packets_{0};
  std::atomic<uint64_t> watermark_{0};
  // The consumer's own.
  alignas(64) rte_mbuf* cache_[kCacheSize];
  uint32_t cache_pos_ = 0;
  uint32_t cache_len_ = 0;
  uint64_t popped_bytes_ = 0;
  uint64_t popped_packets_ = 0;
  Counter dequeued_packets_;
  Counter dequeued_bytes_;
};

}  // namespace rocelb
