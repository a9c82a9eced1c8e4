#include "dataplane/forward/dataplane.h"

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "control/restart_keys.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/tsan.h"

namespace rocelb {
namespace {

std::atomic<uint64_t> g_dataplane_seq{0};

// Pause frames a port's inbox holds: far more than a peer can send between
// two polls of the owner.
constexpr unsigned kPauseInboxSize = 1024;

bool same_lb(const GroupConfig& a, const GroupConfig& b) {
  if (a.name != b.name || a.spec.mode != b.spec.mode || a.spec.weights != b.spec.weights ||
      !(a.spec.knobs == b.spec.knobs) || a.spec.seed != b.spec.seed ||
      a.spec.hash.seed != b.spec.hash.seed || a.spec.hash.fields != b.spec.hash.fields ||
      a.spec.bpf != b.spec.bpf || a.members.size() != b.members.size())
    return false;
  for (size_t k = 0; k < a.members.size(); ++k)
    if (a.members[k].port != b.members[k].port) return false;
  return true;
}

// Mode conweave keeps a flow's source state in its group's engine and its
// reorder queue on the worker that receives it; its replies come back
// with other addresses (another RSS queue, another worker): one worker.
void check_conweave_workers(const SwitchConfig& cfg, size_t workers) {
  if (!cfg.conweave || workers <= 1) return;
  for (const GroupConfig& g : cfg.groups)
    if (g.spec.mode == LbMode::kConWeave)
      throw std::invalid_argument("groups." + g.name +
                                  ".mode: conweave runs on one forwarding worker (a flow's "
                                  "replies reach another core than its data); this switch has " +
                                  std::to_string(workers));
}

}  // namespace

Dataplane::Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers,
                     unsigned ring_capacity, uint64_t shaper_burst_ps)
    : shaper_burst_ps_(shaper_burst_ps) {
  const uint64_t seq = g_dataplane_seq.fetch_add(1);
  const unsigned nw = num_workers ? num_workers : 1;
  check_conweave_workers(*config, nw);
  for (uint16_t id : config->port_ids)
    port_slots_ = std::max<uint16_t>(port_slots_, static_cast<uint16_t>(id + 1));
  for (unsigned i = 0; i < nw; ++i) workers_.push_back(std::make_unique<WorkerState>(port_slots_));
  lcore_ids_.assign(nw, -1);

  const size_t rcu_size = rte_rcu_qsbr_get_memsize(nw);
  rcu_ = static_cast<rte_rcu_qsbr*>(rte_zmalloc("rl_rcu", rcu_size, RTE_CACHE_LINE_SIZE));
  if (!rcu_ || rte_rcu_qsbr_init(rcu_, nw) != 0)
    throw std::runtime_error("cannot set up RCU for config swaps: " +
                             std::string(rte_strerror(rte_errno)));

  pfc_ = std::make_unique<PfcGenerator>(port_slots_);
  pfc_->set_one_writer(nw == 1);  // one worker fills and drains every queue
  const std::string tag = "rl" + std::to_string(seq) + "_";
  for (uint16_t id : config->port_ids) {
    const PortConfig& pc = config->ports[id];
    auto t = std::make_unique<PortTx>(id, *pfc_);
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      t->queues[c].init(tag + "q" + std::to_string(id) + "_" + std::to_string(c), ring_capacity,
                        nw == 1);
      t->queue_ptrs[c] = &t->queues[c];
      t->queues[c].attach_mask(&t->nonempty, static_cast<uint8_t>(1u << c), nw == 1);
    }
    const std::string inbox = tag + "pause" + std::to_string(id);
    t->pause_inbox = alloc_ring(inbox, sizeof(PauseEvent), kPauseInboxSize, RING_F_SC_DEQ);
    if (!t->pause_inbox)
      throw std::runtime_error("cannot create " + inbox + ": " + rte_strerror(rte_errno));
    t->load = LoadMeter(pc.load_interval_ns, pc.load_alpha_q16);
    tx_[id] = std::move(t);
  }
  owned_ = make_epoch(std::move(config), nullptr);
  epoch_.store(owned_.get(), std::memory_order_release);
  // Every worker starts on the first epoch, as if it had adopted it.
  for (unsigned w = 0; w < nw; ++w) adopt(w);
}

Dataplane::~Dataplane() {
  flush();
  for (auto& t : tx_)
    if (t && t->pause_inbox) free_ring(t->pause_inbox);  // alloc_ring: no memzone
  rte_free(rcu_);
}

void Dataplane::rebuild_wred(unsigned w, WorkerState& ws, const SwitchConfig& cfg) {
  const QosConfig& q = cfg.qos;
  for (uint16_t port : cfg.port_ids)
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      ws.wred_retired[port][c].add(ws.wred[port][c].counters());
      ws.wred[port][c] = q.wred[c].enabled
                             ? WredMarker(q.wred[c], WredMarker::seed_for(
                                                         q.seed, port, static_cast<uint8_t>(c), w))
                             : WredMarker();
    }
}

const Epoch& Dataplane::adopt(unsigned w) {
  const Epoch* e = epoch_.load(std::memory_order_acquire);
  WorkerState& ws = *workers_[w];
  if (ws.epoch == e) return *e;
  ROCELB_TSAN_ACQUIRE(const_cast<Epoch*>(e));
  ws.epoch = e;
  const SwitchConfig& cfg = *e->config;
  rebuild_wred(w, ws, cfg);
  for (uint16_t port : cfg.port_ids)
    if (owner_[port] == w) tx_[port]->configure(cfg, shaper_burst_ps_);
  // ConWeave's reorder queues: made with the first config that has a
  // conweave group; new sizes take effect once nothing is held.
  if (cfg.conweave &&
      (!ws.conweave || (ws.conweave->held_now() == 0 &&
                        (ws.conweave->flows() != cfg.conweave_flows ||
                         ws.conweave->capacity() != cfg.conweave_knobs.hold_packets))))
    ws.conweave =
        std::make_unique<ConWeaveDest>(cfg.conweave_flows, cfg.conweave_knobs.hold_packets);
  return *e;
}

std::unique_ptr<Epoch> Dataplane::make_epoch(std::unique_ptr<SwitchConfig> cfg,
                                             const Epoch* previous) {
  auto e = std::make_unique<Epoch>();
  e->generation = previous ? previous->generation + 1 : 1;
  for (unsigned w = 0; w < workers_.size(); ++w) {
    WorkerLb lb;
    for (const GroupConfig& g : cfg->groups) {
      std::shared_ptr<LbEngine> engine;
      if (previous)  // an unchanged group keeps its engine: flowlets stay where they are
        for (size_t i = 0; i < previous->config->groups.size(); ++i)
          if (same_lb(previous->config->groups[i], g)) engine = previous->workers[w].engines[i];
      if (!engine) engine = std::make_shared<LbEngine>(g.spec, w);
      lb.engines.push_back(std::move(engine));
    }
    e->workers.push_back(std::move(lb));
  }
  e->config = std::move(cfg);
  return e;
}

void Dataplane::apply(std::unique_ptr<SwitchConfig> next) {
  const SwitchConfig& cur = config();
  // What a device fixes when it starts (control/restart_keys.h).
  if (const std::string why = restart_needed(cur.params, next->params); !why.empty())
    throw std::invalid_argument(why);
  check_conweave_workers(*next, workers_.size());
  std::unique_ptr<Epoch> fresh = make_epoch(std::move(next), owned_.get());
  Epoch* old = owned_.release();
  owned_ = std::move(fresh);
  ROCELB_TSAN_RELEASE(owned_.get());
  epoch_.store(owned_.get(), std::memory_order_release);
  // Grace period: once every online worker has passed a quiescent state, no
  // one can hold the old epoch.
  rte_rcu_qsbr_synchronize(rcu_, RTE_QSBR_THRID_INVALID);
  ROCELB_TSAN_ACQUIRE(rcu_);
  // Engines not carried over are retired: keep their counts under the group's name.
  for (size_t w = 0; w < old->workers.size(); ++w)
    for (size_t i = 0; i < old->workers[w].engines.size(); ++i) {
      const auto& engine = old->workers[w].engines[i];
      if (engine.use_count() > 1) continue;  // still in use by the new epoch
      const std::string& name = old->config->groups[i].name;
      auto it = std::find_if(retired_.begin(), retired_.end(),
                             [&](const auto& r) { return r.first == name; });
      if (it == retired_.end()) {
        retired_.emplace_back(name, LbEngineCounters{});
        it = retired_.end() - 1;
      }
      it->second.add(engine->counters());
    }
  delete old;
}

void Dataplane::set_link_up(uint16_t port, bool up) {
  const bool was_down = link_down_.set(port, !up);
  if (was_down == up) ++link_changes_[port];
}

void Dataplane::worker_online(unsigned w) {
  rte_rcu_qsbr_thread_register(rcu_, w);
  rte_rcu_qsbr_thread_online(rcu_, w);
  online_.fetch_add(1, std::memory_order_relaxed);
}
void Dataplane::worker_quiescent(unsigned w) {
  ROCELB_TSAN_RELEASE(rcu_);
  rte_rcu_qsbr_quiescent(rcu_, w);
}
void Dataplane::worker_offline(unsigned w) {
  online_.fetch_sub(1, std::memory_order_relaxed);
  ROCELB_TSAN_RELEASE(rcu_);
  rte_rcu_qsbr_thread_offline(rcu_, w);
  rte_rcu_qsbr_thread_unregister(rcu_, w);
}

uint64_t Dataplane::flush() {
  uint64_t n = 0;
  // Held for reordering: dropped where they were going.
  for (auto& w : workers_) {
    if (!w->conweave) continue;
    w->conweave->flush_due(UINT64_MAX, -1, [&](uint16_t port, void* pkt, uint16_t) {
      w->port[port].drop(DropReason::flushed);
      mbuf_free(static_cast<rte_mbuf*>(pkt));
      ++n;
    });
    w->conweave_held = 0;
  }
  for (uint16_t port = 0; port < kMaxPorts; ++port) {
    if (!tx_[port]) continue;
    const uint64_t flushed = tx_[port]->flush();
    workers_[owner_[port]]->port[port].drop(DropReason::flushed, flushed);
    n += flushed;
  }
  return n;
}

bool Dataplane::receive_pause(unsigned w, uint16_t port, const PauseEvent& ev) {
  PortTx& t = *tx_[port];
  if (owner_[port] == w) {
    t.apply_pause(*workers_[w]->epoch->config, ev);
    return true;
  }
  ROCELB_TSAN_RELEASE(t.pause_inbox);
  return rte_ring_mp_enqueue_elem(t.pause_inbox, const_cast<PauseEvent*>(&ev), sizeof ev) == 0;
}

void Dataplane::set_observer(PacketObserver* obs) {
  obs_ = obs;
  for (auto& t : tx_)
    if (t) t->set_observer(obs);
}

void Dataplane::set_control_pool(rte_mempool* pool) {
  control_pool_ = pool;
  for (auto& t : tx_)
    if (t) t->set_control_pool(pool);
}

Snapshot Dataplane::snapshot() const {
  const Epoch& e = epoch();
  const SwitchConfig& cfg = *e.config;
  Snapshot s(port_slots_);
  s.running = online_.load(std::memory_order_relaxed) > 0;
  const auto acquire = [] { std::atomic_thread_fence(std::memory_order_acquire); };
  // 1. Where frames leave: what the TX owners sent or dropped.
  for (uint16_t id : cfg.port_ids) {
    const PortTx& t = *tx_[id];
    PortCounters& pc = s.port[id];
    pc[PortCounter::tx_packets] += t.tx_packets;
    pc[PortCounter::tx_bytes] += t.tx_bytes;
    pc.drop(DropReason::wred_dropped, t.wred_dequeue_drops);
    pc.drop(DropReason::pfc_watchdog_drop, t.watchdog_drops);
    pc.drop(DropReason::tx_failed, t.tx_failed);
    pc.drop(DropReason::link_down, t.link_down_drops);
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      QueueCounters& qc = s.queue[id][c];
      qc.wred.add(t.wred_dequeue[c].counters());
      qc.wred.add(t.wred_dequeue_retired[c]);
      qc.dequeued_packets += t.queues[c].dequeued_packets();
      qc.dequeued_bytes += t.queues[c].dequeued_bytes();
    }
  }
  acquire();
  // 2. Handed to a device, not taken yet.
  for (uint16_t id : cfg.port_ids) s.awaiting_device_packets += tx_[id]->awaiting_device;
  acquire();
  // 3. The workers' blocks: consumed, dropped at ingress or enqueue, enqueued.
  s.groups.resize(cfg.groups.size());
  for (const auto& w : workers_) {
    for (int p = 0; p < port_slots_; ++p) {
      s.port[p].add(w->port[p]);
      for (int c = 0; c < kNumTrafficClasses; ++c) {
        QueueCounters& d = s.queue[p][c];
        d.add(w->queue[p][c]);
        d.wred.add(w->wred[p][c].counters());
        d.wred.add(w->wred_retired[p][c]);
      }
    }
    s.lcores.push_back(w->lcore);
  }
  acquire();
  // 4. Queued (a queue hands back what a full ring refused before the
  // enqueuer counts it dropped: read after the drops).
  for (uint16_t id : cfg.port_ids) {
    const PortTx& t = *tx_[id];
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      const EgressQueue& q = t.queues[c];
      QueueGauges& g = s.queue_gauges[id][c];
      g.depth_packets = q.depth_packets();
      g.depth_bytes = q.depth_bytes();
      g.watermark_bytes = q.watermark_bytes();
      g.limit_bytes = cfg.ports[id].queue_limit[c];
      s.queued_packets += g.depth_packets;
    }
  }
  for (const auto& w : workers_) s.queued_packets += w->conweave_held;  // held for reordering
  acquire();
  // 5. Where frames enter, read last: every frame counted above has been
  // counted in here before.
  for (int p = 0; p < port_slots_; ++p) {
    static constexpr PortCounter kIn[] = {
        PortCounter::rx_packets, PortCounter::rx_bytes, PortCounter::generated_arp_replies,
        PortCounter::generated_icmp_replies, PortCounter::generated_conweave};
    for (PortCounter k : kIn) {
      uint64_t v = 0;
      for (const auto& w : workers_) v += w->port[p][k];
      s.port[p][k] = v;
    }
  }
  for (uint16_t id : cfg.port_ids)
    s.port[id][PortCounter::generated_pfc_frames] += tx_[id]->pfc_frames_sent;

  for (size_t g = 0; g < s.groups.size(); ++g) {
    for (const WorkerLb& w : e.workers) s.groups[g].add(w.engines[g]->counters());
    for (const auto& [name, counters] : retired_)
      if (name == cfg.groups[g].name &&
          counters.member_packets.size() <= cfg.groups[g].members.size())
        s.groups[g].add(counters);
  }
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const size_t n = cfg.groups[g].members.size();
    for (size_t k = 0; k < n; ++k) {
      const LbEngineCounters& c = s.groups[g];
      s.member.push_back({k < c.member_packets.size() ? c.member_packets[k].load() : 0,
                          k < c.member_bytes.size() ? c.member_bytes[k].load() : 0});
    }
  }
  return s;
}

}  // namespace rocelb
