// One egress queue: a (port, traffic class) FIFO of mbufs with live depth in
// bytes and packets, a byte watermark and a tail-drop limit. Any lcore may
// enqueue (multi-producer ring); only the port's transmitting lcore dequeues.
// The consumer holds the head packet aside (peek) so the scheduler can see
// its size; it still counts in the depth until popped.
//
// Knobs: limit_bytes (qos.queue_limit / queue_limits), ring capacity.
// Counters: depth_bytes, depth_packets, watermark_bytes (any reader);
//           dequeued_packets/bytes (consumer-owned). Enqueue and drop counts
//           are per lcore (counters.h).
#pragma once

#include <rte_mbuf.h>
#include <rte_ring.h>

#include <atomic>
#include <cstdint>
#include <string>

namespace rocelb {

class EgressQueue {
 public:
  EgressQueue() = default;
  ~EgressQueue();
  EgressQueue(const EgressQueue&) = delete;
  EgressQueue& operator=(const EgressQueue&) = delete;

  // Throws std::runtime_error if the ring cannot be created.
  void init(const std::string& name, unsigned capacity, uint64_t limit_bytes);
  void set_limit(uint64_t limit_bytes) { limit_.store(limit_bytes, std::memory_order_relaxed); }
  uint64_t limit() const { return limit_.load(std::memory_order_relaxed); }

  // Producer side. False: over the limit or ring full; the caller still owns m.
  bool enqueue(rte_mbuf* m) {
    const uint64_t len = m->pkt_len;
    const uint64_t before = bytes_.fetch_add(len, std::memory_order_relaxed);
    if (before + len > limit_.load(std::memory_order_relaxed) ||
        rte_ring_mp_enqueue(ring_, m) != 0) {
      bytes_.fetch_sub(len, std::memory_order_relaxed);
      return false;
    }
    packets_.fetch_add(1, std::memory_order_relaxed);
    uint64_t now = before + len;
    uint64_t wm = watermark_.load(std::memory_order_relaxed);
    while (now > wm && !watermark_.compare_exchange_weak(wm, now, std::memory_order_relaxed)) {
    }
    return true;
  }

  // Consumer side.
  rte_mbuf* peek() {
    if (!head_ && rte_ring_sc_dequeue(ring_, reinterpret_cast<void**>(&head_)) != 0)
      head_ = nullptr;
    return head_;
  }
  rte_mbuf* pop() {
    rte_mbuf* m = peek();
    if (!m) return nullptr;
    head_ = nullptr;
    bytes_.fetch_sub(m->pkt_len, std::memory_order_relaxed);
    packets_.fetch_sub(1, std::memory_order_relaxed);
    ++dequeued_packets_;
    dequeued_bytes_ += m->pkt_len;
    return m;
  }
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
  rte_ring* ring_ = nullptr;
  rte_mbuf* head_ = nullptr;
  std::atomic<uint64_t> limit_{0};
  alignas(64) std::atomic<uint64_t> bytes_{0};
  std::atomic<uint64_t> packets_{0};
  std::atomic<uint64_t> watermark_{0};
  alignas(64) uint64_t dequeued_packets_ = 0;
  uint64_t dequeued_bytes_ = 0;
};

}  // namespace rocelb
