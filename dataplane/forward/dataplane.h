// The running switch: the egress side of every port (eight queues, a
// scheduler, a shaper, a transmit-load meter, received-pause state), the
// state each worker lcore owns, and the current Epoch: the immutable config
// with, per worker, one load-balancing engine per group. Every run driver
// (replay, fabric, live; dataplane/run/) drives it the same way: at the top of its loop a worker
// adopts the current epoch (adopt()), runs the pipeline on received bursts
// (process_burst(), pipeline.h), and for each port it owns calls tx_poll()
// and dequeue() to take what the scheduler and shaper allow right now.
//
// One route for config: apply() builds a new Epoch off the hot path
// (engines of unchanged groups carried over, so their flowlets stay; a group
// whose mode or knobs changed starts with a fresh flowlet table), publishes
// it with one pointer store, and frees the old one after an RCU
// (rte_rcu_qsbr) grace period. A worker sees a new epoch only in adopt(),
// where it also rebuilds what it derives from the config (its WRED markers;
// the scheduler, shaper, dequeue-side WRED and watchdog knobs of the ports
// it transmits). Nothing else reconfigures the hot path.
//
// One writer for every piece of state:
//   WorkerState          its worker (readers sum its Counters)
//   PortTx (port_tx.h)   the port's TX owner (set_tx_owner), including the
//                        received-pause state: a PFC or PAUSE frame received
//                        by another worker reaches the owner as a message
//                        through the port's pause inbox (an MPSC ring)
//   egress queue depths  atomic read-modify-write, once per burst per queue,
//                        counted in before the hand-off (egress_queue.h)
//   PFC held bytes       atomic read-modify-write, added before the hand-off
//                        and released by the TX owner (pfc_generator.h)
//   storm_drop           the port's TX owner (its watchdog); RX workers read
//   load_bps             the port's TX owner publishes; RX workers read
//
// Knobs: ring capacity per queue, shaper burst (0 in replay).
// Counters: per worker PortCounters, QueueCounters, WRED, LbEngineCounters
// and LcoreStats; per port the TX owner's tx, PFC-sent, dequeue-WRED and
// watchdog drop counters. snapshot() sums them.
#pragma once

#include <rte_mempool.h>
#include <rte_ring.h>

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/counter.h"
#include "common/port_set.h"
#include "dataplane/forward/counters.h"
#include "dataplane/forward/decision_log.h"
#include "dataplane/forward/egress_queue.h"
#include "dataplane/forward/lcore_stats.h"
#include "dataplane/forward/packet_observer.h"
#include "dataplane/forward/port_tx.h"
#include "dataplane/forward/switch_config.h"
#include "lb/conweave_dest.h"
#include "lb/lb_engine.h"
#include "pfc/pfc_generator.h"
#include "pfc/wred.h"

struct rte_rcu_qsbr;

namespace rocelb {

struct Epoch;

// What one worker lcore owns: the epoch it runs on, its counters, its WRED
// markers (RNG state per queue, rebuilt from each adopted config's
// profiles) and the scratch its pipeline stages use. Only that lcore
// writes; other threads read the counters. Per-port blocks are indexed by
// port id, one for each id up to the switch's highest (port_slots).
struct alignas(64) WorkerState {
  explicit WorkerState(size_t port_slots)
      : port(port_slots), queue(port_slots), wred(port_slots), wred_retired(port_slots) {}
  const Epoch* epoch = nullptr;  // adopted at the top of the worker's loop
  std::vector<PortCounters> port;
  std::vector<std::array<QueueCounters, kNumTrafficClasses>> queue;
  std::vector<std::array<WredMarker, kNumTrafficClasses>> wred;
  std::vector<std::array<WredCounters, kNumTrafficClasses>> wred_retired;
  // Scratch of the pipeline stages, kept here so a burst does not
  // initialise it: parse results, and one group's members per burst.
  std::array<ParsedPacket, 32> parsed;
  std::array<MemberPath, kMaxLbMembers> paths{};
  // Ports whose transmission this worker changed since the switch clock
  // last looked (it reschedules only those ports): packets handed to
  // them, or a pause received on them.
  PortSet touched_ports;
  LcoreStats lcore;
  // Mode conweave, the destination ToR's side: this worker's reorder
  // queues (null until a config has a conweave group), what they hold now
  // (read by snapshot()), and the replies and notifies its last burst
  // made, run through the pipeline when the burst is done.
  std::unique_ptr<ConWeaveDest> conweave;
  Counter conweave_held;
  std::array<rte_mbuf*, 64> conweave_out{};
  uint16_t conweave_out_n = 0;
};

// One worker's load balancing under one config: per group its own engine
// (flowlet table, RNG, DRILL memory: nothing shared across lcores).
struct WorkerLb {
  std::vector<std::shared_ptr<LbEngine>> engines;  // per group
};

// Everything that changes with a config, published as one pointer.
struct Epoch {
  std::unique_ptr<SwitchConfig> config;
  uint64_t generation = 0;
  std::vector<WorkerLb> workers;
};

// Indexed by port id, as WorkerState.
struct Snapshot {
  explicit Snapshot(size_t port_slots)
      : port(port_slots), queue(port_slots), queue_gauges(port_slots) {}
  std::vector<PortCounters> port;
  std::vector<std::array<QueueCounters, kNumTrafficClasses>> queue;
  std::vector<std::array<QueueGauges, kNumTrafficClasses>> queue_gauges;
  std::vector<LbEngineCounters> groups;  // per group, summed over lcores
  std::vector<MemberCounters> member;    // every group's members, flattened in group order
  std::vector<LcoreStats> lcores;        // per worker
  uint64_t queued_packets = 0;
  uint64_t awaiting_device_packets = 0;  // dequeued, not yet taken by a device (live)
  bool running = false;                  // live workers were forwarding during the read
};

class Dataplane {
 public:
  // Creates the egress queues (needs EAL). Every port is transmitted by
  // worker 0 until set_tx_owner() says otherwise. Throws std::runtime_error.
  Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers, unsigned ring_capacity,
            uint64_t shaper_burst_ps);
  ~Dataplane();

  // The published config (control threads; workers use their adopted epoch).
  const SwitchConfig& config() const { return *epoch().config; }
  const Epoch& epoch() const { return *epoch_.load(std::memory_order_acquire); }
  PortTx& tx(uint16_t port) { return *tx_[port]; }
  const PortTx& tx(uint16_t port) const { return *tx_[port]; }
  WorkerState& worker(unsigned i) { return *workers_[i]; }
  const WorkerState& worker(unsigned i) const { return *workers_[i]; }
  unsigned num_workers() const { return static_cast<unsigned>(workers_.size()); }
  // Port ids 0..port_slots()-1 have a block in WorkerState and Snapshot:
  // the config's highest port id plus one (the port set never changes).
  uint16_t port_slots() const { return port_slots_; }

  // The EAL lcore worker w runs on (live mode sets it; -1 when unknown, as
  // in replay): counters.json then reports where each worker's cycles went.
  void set_worker_lcore(unsigned w, int lcore) { lcore_ids_.at(w) = lcore; }
  int worker_lcore(unsigned w) const { return lcore_ids_.at(w); }

  // Which worker transmits `port` (set before the workers start).
  // Link state, apart from the config's admin_status: a replay's scheduled
  // fault (--event), or what a device reports. A port whose link is down
  // is a down member of every group, refuses what is sent to it
  // (link_down) and its TX owner flushes its queues (link_down) and sends
  // nothing, PFC included. Any one thread sets it; link_changes counts
  // every change.
  void set_link_up(uint16_t port, bool up);
  bool link_up(uint16_t port) const { return !link_down_.has(port); }
  bool all_links_up() const { return link_down_.empty(); }
  uint64_t link_changes(uint16_t port) const { return link_changes_[port].load(); }

  void set_tx_owner(uint16_t port, unsigned worker) { owner_[port] = worker; }
  unsigned tx_owner(uint16_t port) const { return owner_[port]; }

  // Worker w, at the top of its loop: takes the published epoch if it is
  // new, rebuilding what the worker derives from it. The one point where a
  // worker's config changes.
  const Epoch& adopt(unsigned w);

  // A PFC or PAUSE frame received on `port` by worker w: applied at once
  // when w transmits the port, else sent to the port's TX owner. False when
  // the owner's inbox is full (the caller drops the frame: pause_inbox_full).
  bool receive_pause(unsigned w, uint16_t port, const PauseEvent& ev);

  // The port's TX owner, before dequeue(): applies received pause frames
  // from its inbox and asks the PFC generator whether a PFC frame must go
  // out on `port` now (then dequeue() sends it before any data). True when
  // a PFC frame became due.
  bool tx_poll(uint16_t port, uint64_t now_ns) {
    return tx_[port]->poll(owner_config(port), workers_.size() > 1, now_ns);
  }

  // Takes up to `max` frames from `port` that may start by `now_ps`, in the
  // scheduler's order, charging the shaper; start_ps[i] gets each frame's
  // first-bit time. The caller owns the mbufs and counts what it really
  // transmits (PortTx::count_tx / count_tx_burst).
  uint16_t dequeue(uint16_t port, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps,
                   uint16_t max) {
    return tx_[port]->dequeue(owner_config(port), link_up(port), now_ps, out, start_ps, max);
  }

  // When `port` should be looked at again after dequeue() at now_ps: the
  // wire is free, or a received pause ends (UINT64_MAX: nothing queued).
  uint64_t next_tx_ps(uint16_t port, uint64_t now_ps) const {
    return tx_[port]->next_tx_ps(owner_config(port), link_up(port), now_ps);
  }

  // PFC generation: per (ingress port, priority) bytes held in egress
  // queues, XOFF/XON decisions. Always there, with or without a lossless
  // priority, so that pfc_enable can change live.
  PfcGenerator& pfc() const { return *pfc_; }
  // Where generated PFC frames come from (replay and live set their pool).
  void set_control_pool(rte_mempool* pool);

  // Mode conweave: worker w sends on the packets its reorder queues hold
  // whose flush time is at or before now_ns (those leaving by `port`
  // only, unless port is -1), through the pipeline again from their
  // ingress ports; `in_ports` gets those ingress ports. Returns how many.
  // (In stage_conweave.cc, beside the rest of the mode's pipeline part.)
  uint32_t conweave_flush(unsigned w, int port, uint64_t now_ns, PortSet* in_ports = nullptr);
  // The earliest flush time, ns, of worker w's queues that leave by
  // `port` (UINT64_MAX: none).
  uint64_t conweave_next_ns(unsigned w, uint16_t port) const {
    const WorkerState& ws = *workers_[w];
    return ws.conweave && ws.conweave->held_now() ? ws.conweave->next_deadline(port) : UINT64_MAX;
  }
  uint64_t conweave_next_ns_any(unsigned w) const {
    const WorkerState& ws = *workers_[w];
    return ws.conweave && ws.conweave->held_now() ? ws.conweave->next_deadline() : UINT64_MAX;
  }
  rte_mempool* control_pool() const { return control_pool_; }

  // Frees every queued mbuf (and pause messages), releasing their PFC held
  // bytes and counting each as a `flushed` drop on its egress port (on the
  // TX owner's counters); returns how many mbufs. Workers must be stopped.
  uint64_t flush();

  // Sums every counter block. Under traffic (live) the figures are read in
  // the reverse of a frame's way through the switch: what the TX owners
  // counted (tx, TX-side drops), frames awaiting a device, the workers'
  // drops and consumed frames, queue depths, and last what entered (rx,
  // generated), with acquire fences between. So a frame is never counted
  // twice and Σin − Σout − queued − awaiting ≥ 0: the frames in flight.
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

  // Replay and fabric: every packet event is told here (null: none;
  // packet_observer.h).
  void set_observer(PacketObserver* obs);
  PacketObserver* observer() const { return obs_; }

 private:
  std::unique_ptr<Epoch> make_epoch(std::unique_ptr<SwitchConfig> cfg, const Epoch* previous);
  void rebuild_wred(unsigned w, WorkerState& ws, const SwitchConfig& cfg);
  const SwitchConfig& owner_config(uint16_t port) const {
    return *workers_[owner_[port]]->epoch->config;
  }

  DecisionLog* log_ = nullptr;
  PacketObserver* obs_ = nullptr;
  rte_mempool* control_pool_ = nullptr;
  std::unique_ptr<PfcGenerator> pfc_;
  std::unique_ptr<Epoch> owned_;  // what epoch_ points to
  std::atomic<Epoch*> epoch_{nullptr};
  uint64_t shaper_burst_ps_ = 0;
  ::rte_rcu_qsbr* rcu_ = nullptr;
  std::atomic<unsigned> online_{0};  // live workers between online and offline
  AtomicPortSet link_down_;          // ports whose link is down
  std::array<Counter, kMaxPorts> link_changes_{};
  // Counters of engines retired by apply(), per group name, so a group's
  // counters do not restart when its mode changes.
  std::vector<std::pair<std::string, LbEngineCounters>> retired_;
  std::array<std::unique_ptr<PortTx>, kMaxPorts> tx_{};
  std::array<unsigned, kMaxPorts> owner_{};
  std::vector<std::unique_ptr<WorkerState>> workers_;
  std::vector<int> lcore_ids_;
  uint16_t port_slots_ = 0;
};

}  // namespace rocelb
