// The running switch: the egress side of every port (eight queues, a
// scheduler, a shaper, a transmit-load meter), counters per worker lcore, and
// the current Epoch: the immutable config with, per worker, one
// load-balancing engine per group. Both engines (replay, live) drive it the
// same way: workers call process_burst() (pipeline.h) on received bursts,
// and each port's owner calls dequeue() to take what the scheduler and
// shaper allow right now.
//
// A new config is published by apply(): a new Epoch is built off the hot
// path (engines of unchanged groups carried over, so their flowlets stay; a
// group whose mode or knobs changed starts with a fresh flowlet table),
// swapped in by one pointer store, and the old one freed after an RCU
// (rte_rcu_qsbr) grace period: workers never see half a config, and no
// packet is dropped for it.
//
// Knobs: ring capacity per queue, shaper burst (0 in replay).
// Counters: per worker PortCounters, QueueCounters, LbEngineCounters; per port
// tx counters owned by the transmitting lcore. snapshot() sums them.
#pragma once

#include <rte_mempool.h>

#include <array>
#include <atomic>
#include <memory>
#include <vector>

#include "dataplane/forward/counters.h"
#include "dataplane/forward/decision_log.h"
#include "dataplane/forward/egress_queue.h"
#include "dataplane/forward/port_scheduler.h"
#include "dataplane/forward/shaper.h"
#include "dataplane/forward/switch_config.h"
#include "lb/lb_engine.h"
#include "lb/load_meter.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_generator.h"
#include "pfc/pfc_watchdog.h"
#include "pfc/wred.h"

struct rte_rcu_qsbr;

namespace rocelb {

struct QueueCounters {
  uint64_t enqueued_packets = 0, enqueued_bytes = 0, dropped_packets = 0, dropped_bytes = 0;
  WredCounters wred;  // ECN marks and WRED drops of this queue
};
struct MemberCounters {
  uint64_t packets = 0, bytes = 0;
};
// What one worker lcore owns across configs: its counters and its WRED
// markers (RNG state per queue), rebuilt from each new config's profiles.
// Only that lcore writes; readers sum.
struct alignas(64) WorkerState {
  std::array<PortCounters, kMaxPorts> port{};
  std::array<std::array<QueueCounters, kNumTrafficClasses>, kMaxPorts> queue{};
  std::array<std::array<WredMarker, kNumTrafficClasses>, kMaxPorts> wred{};
  std::array<std::array<WredCounters, kNumTrafficClasses>, kMaxPorts> wred_retired{};
  uint64_t wred_generation = 0;  // the config the markers were built from
};

// One worker's load balancing under one config: per group its own engine
// (flowlet table, RNG, DRILL memory: nothing shared across lcores) and the
// MemberPath scratch the pipeline fills for it.
struct WorkerLb {
  std::vector<std::shared_ptr<LbEngine>> engines;  // per group
  // Per group, one per member: scratch only this worker writes.
  mutable std::vector<std::vector<MemberPath>> paths;
};

// Everything that changes with a config, published as one pointer.
struct Epoch {
  std::unique_ptr<SwitchConfig> config;
  uint64_t generation = 0;
  std::vector<WorkerLb> workers;
};

// The egress side of one port, driven only by its transmitting lcore.
struct PortTx {
  std::array<EgressQueue, kNumTrafficClasses> queues;
  std::array<EgressQueue*, kNumTrafficClasses> queue_ptrs{};
  PortScheduler scheduler;
  Shaper shaper;
  LoadMeter load{16'000, 16384};
  std::atomic<uint64_t> load_bps{0};  // the meter's EWMA, published for other lcores
  PauseReceiver pause;  // PFC received on this port: which of its classes may not send
  std::array<WredMarker, kNumTrafficClasses> wred_dequeue{};  // qos.ecn_mark: dequeue
  std::array<WredCounters, kNumTrafficClasses> wred_dequeue_retired{};
  uint8_t blocked = 0;              // classes paused by received PFC (as of the last dequeue)
  uint64_t applied_generation = 0;  // the epoch the owner configured this port from
  bool pfc_pending = false;         // a PFC frame to send ahead of all data
  PfcFrameRequest pfc_request;
  uint64_t pfc_frames_sent = 0;
  uint64_t wred_dequeue_drops = 0;
  // PFC watchdog of each lossless class (the TX owner polls it).
  std::array<PfcWatchdog, kNumTrafficClasses> watchdog;
  uint64_t watchdog_next_ns = 0;
  uint64_t watchdog_drops = 0;
  std::atomic<uint8_t> storm_drop{0};  // classes whose arrivals are dropped (action drop)
  alignas(64) uint64_t tx_packets = 0;
  uint64_t tx_bytes = 0;

  // Called by the engine once a frame is really on the wire (or in the pcap).
  void count_tx(uint32_t bytes) {
    ++tx_packets;
    tx_bytes += bytes;
    load.on_tx(bytes + kWireOverheadBytes);  // wire bytes: a full link reads as its speed
  }
  // Closes a load sampling interval if one has passed (the owner calls it).
  void sample_load(uint64_t now_ns) {
    if (load.sample(now_ns)) load_bps.store(load.load_bps(), std::memory_order_relaxed);
  }
  uint64_t depth_bytes() const {
    uint64_t d = 0;
    for (const auto& q : queues) d += q.depth_bytes();
    return d;
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
  std::vector<LbEngineCounters> groups;  // per group, summed over lcores
  std::vector<MemberCounters> member;    // every group's members, flattened in group order
  uint64_t queued_packets = 0;
};

class Dataplane {
 public:
  // Creates the egress queues (needs EAL). Throws std::runtime_error.
  Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers, unsigned ring_capacity,
            uint64_t shaper_burst_ps);
  ~Dataplane();

  // The current config (workers: load once per burst through epoch()).
  const SwitchConfig& config() const { return *epoch().config; }
  const Epoch& epoch() const { return *epoch_.load(std::memory_order_acquire); }
  PortTx& tx(uint16_t port) { return *tx_[port]; }
  const PortTx& tx(uint16_t port) const { return *tx_[port]; }
  WorkerState& worker(unsigned i) { return *workers_[i]; }
  unsigned num_workers() const { return static_cast<unsigned>(workers_.size()); }

  // Takes up to `max` frames from `port` that may start by `now_ps`, in the
  // scheduler's order, charging the shaper; start_ps[i] gets each frame's
  // first-bit time. The caller owns the mbufs and calls count_tx() for each
  // frame it really transmits.
  uint16_t dequeue(uint16_t port, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps,
                   uint16_t max);

  // PFC generation: per (ingress port, priority) bytes held in egress
  // queues, XOFF/XON decisions. Always there, with or without a lossless
  // priority, so that pfc_enable can change live.
  PfcGenerator& pfc() const { return *pfc_; }
  // Where generated PFC frames come from (replay and live set their pool).
  void set_control_pool(rte_mempool* pool) { control_pool_ = pool; }
  // The port's transmitting thread: asks the generator whether a PFC frame
  // must go out on `port` now; if so dequeue() sends it before any data.
  void pfc_poll(uint16_t port, uint64_t now_ns);

  // When `port` should be looked at again after dequeue() at now_ps: the
  // wire is free, or a received pause ends (UINT64_MAX: nothing queued).
  uint64_t next_tx_ps(uint16_t port, uint64_t now_ps) const;

  // Frees every queued mbuf; returns how many.
  uint64_t flush();

  Snapshot snapshot() const;

  // Publishes a new config (control thread). The port set and devices must
  // be the same (else std::invalid_argument saying which port differs).
  // Returns once no worker can still see the old config.
  void apply(std::unique_ptr<SwitchConfig> next);

  // Live workers: go online before the first burst, report a quiescent
  // state between bursts (no reference to the epoch held), go offline when
  // stopping. Replay (one thread, no concurrent apply) needs none of it.
  void worker_online(unsigned w);
  void worker_quiescent(unsigned w);
  void worker_offline(unsigned w);

  // Replay only: every load-balancing decision is written here (null: none).
  void set_decision_log(DecisionLog* log) { log_ = log; }
  DecisionLog* decision_log() const { return log_; }

 private:
  std::unique_ptr<Epoch> make_epoch(std::unique_ptr<SwitchConfig> cfg, const Epoch* previous);
  void configure_port(PortTx& t, const SwitchConfig& cfg, uint16_t port);
  void watchdog_poll(PortTx& t, const SwitchConfig& cfg, uint64_t now_ns);

  DecisionLog* log_ = nullptr;
  std::unique_ptr<PfcGenerator> pfc_;
  rte_mempool* control_pool_ = nullptr;
  std::unique_ptr<Epoch> owned_;  // what epoch_ points to
  std::atomic<Epoch*> epoch_{nullptr};
  uint64_t shaper_burst_ps_ = 0;
  ::rte_rcu_qsbr* rcu_ = nullptr;
  // Counters of engines retired by apply(), per group name, so a group's
  // counters do not restart when its mode changes.
  std::vector<std::pair<std::string, LbEngineCounters>> retired_;
  std::array<std::unique_ptr<PortTx>, kMaxPorts> tx_{};
  std::vector<std::unique_ptr<WorkerState>> workers_;
};

}  // namespace rocelb
