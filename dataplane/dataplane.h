// The running switch: its immutable config, the egress side of every port
// (eight queues, a scheduler, a shaper) and one counter block per worker
// lcore. Both engines (replay, live) drive it the same way: workers call
// process_burst() (pipeline.h) on received bursts, and each port's owner
// calls dequeue() to take what the scheduler and shaper allow right now.
//
// Knobs: ring capacity per queue, shaper burst (0 in replay).
// Counters: per worker PortCounters, QueueCounters, MemberCounters; per port
// tx counters owned by the transmitting lcore. snapshot() sums them.
#pragma once

#include <rte_mempool.h>

#include <array>
#include <memory>
#include <vector>

#include "dataplane/counters.h"
#include "dataplane/egress_queue.h"
#include "dataplane/port_scheduler.h"
#include "dataplane/shaper.h"
#include "dataplane/switch_config.h"

namespace rocelb {

struct QueueCounters {
  uint64_t enqueued_packets = 0, enqueued_bytes = 0, dropped_packets = 0, dropped_bytes = 0;
};
struct MemberCounters {
  uint64_t packets = 0, bytes = 0;
};

// Counters one worker lcore writes. Only that lcore writes; readers sum.
struct alignas(64) WorkerCounters {
  std::array<PortCounters, kMaxPorts> port{};
  std::array<std::array<QueueCounters, kNumTrafficClasses>, kMaxPorts> queue{};
  std::vector<MemberCounters> member;  // flat: group.counter_base + member index
};

// The egress side of one port, driven only by its transmitting lcore.
struct PortTx {
  std::array<EgressQueue, kNumTrafficClasses> queues;
  std::array<EgressQueue*, kNumTrafficClasses> queue_ptrs{};
  PortScheduler scheduler;
  Shaper shaper;
  uint8_t blocked = 0;  // classes paused by received PFC
  alignas(64) uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;

  // Called by the engine once a frame is really on the wire (or in the pcap).
  void count_tx(uint32_t bytes) {
    ++tx_packets;
    tx_bytes += bytes;
  }
  bool empty() const {
    for (const auto& q : queues)
      if (!q.empty()) return false;
    return true;
  }
};

struct Snapshot {
  std::array<PortCounters, kMaxPorts> port{};
  std::array<std::array<QueueCounters, kNumTrafficClasses>, kMaxPorts> queue{};
  std::vector<MemberCounters> member;
  uint64_t queued_packets = 0;
};

class Dataplane {
 public:
  // Creates the egress queues (needs EAL). Throws std::runtime_error.
  Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers, unsigned ring_capacity,
            uint64_t shaper_burst_ps);
  ~Dataplane();

  const SwitchConfig& config() const { return *config_; }
  PortTx& tx(uint16_t port) { return *tx_[port]; }
  const PortTx& tx(uint16_t port) const { return *tx_[port]; }
  WorkerCounters& worker(unsigned i) { return *workers_[i]; }
  unsigned num_workers() const { return static_cast<unsigned>(workers_.size()); }

  // Takes up to `max` frames from `port` that may start by `now_ps`, in the
  // scheduler's order, charging the shaper; start_ps[i] gets each frame's
  // first-bit time. The caller owns the mbufs and calls count_tx() for each
  // frame it really transmits.
  uint16_t dequeue(uint16_t port, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps,
                   uint16_t max);

  // Frees every queued mbuf; returns how many.
  uint64_t flush();

  Snapshot snapshot() const;

 private:
  std::unique_ptr<SwitchConfig> config_;
  std::array<std::unique_ptr<PortTx>, kMaxPorts> tx_{};
  std::vector<std::unique_ptr<WorkerCounters>> workers_;
};

}  // namespace rocelb
