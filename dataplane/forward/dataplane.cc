#include "dataplane/forward/dataplane.h"

#include "dataplane/forward/ecn_mark.h"

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

namespace rocelb {
namespace {

// Speed of each port id (0 for ids not in the config), as PfcGenerator wants.
std::vector<uint64_t> port_speeds(const SwitchConfig& cfg) {
  std::vector<uint64_t> speeds(kMaxPorts, 0);
  for (uint16_t id : cfg.port_ids) speeds[id] = cfg.ports[id].speed_bps;
  return speeds;
}

std::atomic<uint64_t> g_dataplane_seq{0};

bool same_lb(const GroupConfig& a, const GroupConfig& b) {
  if (a.name != b.name || a.spec.mode != b.spec.mode || a.spec.weights != b.spec.weights ||
      !(a.spec.knobs == b.spec.knobs) || a.spec.seed != b.spec.seed ||
      a.spec.hash.seed != b.spec.hash.seed || a.spec.hash.fields != b.spec.hash.fields ||
      a.members.size() != b.members.size())
    return false;
  for (size_t k = 0; k < a.members.size(); ++k)
    if (a.members[k].port != b.members[k].port) return false;
  return true;
}
}  // namespace

Dataplane::Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers,
                     unsigned ring_capacity, uint64_t shaper_burst_ps)
    : shaper_burst_ps_(shaper_burst_ps) {
  const uint64_t seq = g_dataplane_seq.fetch_add(1);
  const unsigned nw = num_workers ? num_workers : 1;
  for (unsigned i = 0; i < nw; ++i) workers_.push_back(std::make_unique<WorkerState>());

  const size_t rcu_size = rte_rcu_qsbr_get_memsize(nw);
  rcu_ = static_cast<rte_rcu_qsbr*>(rte_zmalloc("rl_rcu", rcu_size, RTE_CACHE_LINE_SIZE));
  if (!rcu_ || rte_rcu_qsbr_init(rcu_, nw) != 0)
    throw std::runtime_error("cannot set up RCU for config swaps: " +
                             std::string(rte_strerror(rte_errno)));

  for (uint16_t id : config->port_ids) {
    const PortConfig& pc = config->ports[id];
    auto t = std::make_unique<PortTx>();
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      std::string name =
          "rl_q" + std::to_string(seq) + "_" + std::to_string(id) + "_" + std::to_string(c);
      t->queues[c].init(name, ring_capacity, pc.queue_limit[c]);
      t->queue_ptrs[c] = &t->queues[c];
    }
    configure_port(*t, *config, id);
    t->load = LoadMeter(pc.load_interval_ns, pc.load_alpha_q16);
    tx_[id] = std::move(t);
  }
  pfc_ = std::make_unique<PfcGenerator>(config->params.qos.lossless.pfc, port_speeds(*config));
  owned_ = make_epoch(std::move(config), nullptr);
  epoch_.store(owned_.get(), std::memory_order_release);
}

Dataplane::~Dataplane() {
  flush();
  rte_free(rcu_);
}

void Dataplane::configure_port(PortTx& t, const SwitchConfig& cfg, uint16_t port) {
  const PortConfig& pc = cfg.ports[port];
  t.scheduler.configure(pc.strict_mask, pc.quantum);
  t.shaper.configure(pc.speed_bps, shaper_burst_ps_);
  const LosslessParams& l = cfg.params.qos.lossless;
  const bool at_dequeue = l.ecn_mark == EcnMarkPoint::kDequeue;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    t.queues[c].set_limit(pc.queue_limit[c]);
    t.watchdog[c].set_params(l.watchdog);
    t.wred_dequeue_retired[c].add(t.wred_dequeue[c].counters());
    t.wred_dequeue[c] =
        at_dequeue && l.wred[c].enabled
            ? WredMarker(l.wred[c], WredMarker::seed_for(cfg.params.sw.hash_seed, port,
                                                         static_cast<uint8_t>(c), 0xffff))
            : WredMarker();
  }
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
      std::vector<MemberPath> paths(g.members.size());
      for (size_t k = 0; k < g.members.size(); ++k) {
        const PortConfig& mp = cfg->ports[g.members[k].port];
        paths[k].speed_bps = mp.speed_bps;
        paths[k].up = mp.admin_up;
      }
      lb.paths.push_back(std::move(paths));
    }
    e->workers.push_back(std::move(lb));
  }
  e->config = std::move(cfg);
  return e;
}

void Dataplane::apply(std::unique_ptr<SwitchConfig> next) {
  const SwitchConfig& cur = config();
  if (next->port_ids != cur.port_ids)
    throw std::invalid_argument(
        "the set of ports changed: restart the switch to add or remove ports");
  for (uint16_t id : next->port_ids)
    if (next->ports[id].device != cur.ports[id].device)
      throw std::invalid_argument("ports[" + std::to_string(id) +
                                  "].device changed: restart the switch to change a device");
  const bool pfc_changed = next->params.qos.lossless.pfc != cur.params.qos.lossless.pfc ||
                           port_speeds(*next) != port_speeds(cur);
  std::unique_ptr<Epoch> fresh = make_epoch(std::move(next), owned_.get());
  Epoch* old = owned_.release();
  owned_ = std::move(fresh);
  epoch_.store(owned_.get(), std::memory_order_release);
  // PFC knobs take effect at once (each an atomic the hot path reads).
  if (pfc_changed)
    pfc_->reconfigure(owned_->config->params.qos.lossless.pfc, port_speeds(*owned_->config));
  // Grace period: once every online worker has passed a quiescent state, no
  // one can hold the old epoch.
  rte_rcu_qsbr_synchronize(rcu_, RTE_QSBR_THRID_INVALID);
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

void Dataplane::worker_online(unsigned w) {
  rte_rcu_qsbr_thread_register(rcu_, w);
  rte_rcu_qsbr_thread_online(rcu_, w);
}
void Dataplane::worker_quiescent(unsigned w) {
  rte_rcu_qsbr_quiescent(rcu_, w);
}
void Dataplane::worker_offline(unsigned w) {
  rte_rcu_qsbr_thread_offline(rcu_, w);
  rte_rcu_qsbr_thread_unregister(rcu_, w);
}

uint16_t Dataplane::dequeue(uint16_t port, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps,
                            uint16_t max) {
  PortTx& t = *tx_[port];
  const Epoch& e = epoch();
  if (t.applied_generation != e.generation) {  // a new config: the owner reconfigures its port
    t.applied_generation = e.generation;
    configure_port(t, *e.config, port);
  }
  const uint64_t now_ns = now_ps / 1000;
  if (e.config->params.qos.lossless.watchdog.enabled && now_ns >= t.watchdog_next_ns)
    watchdog_poll(t, *e.config, now_ns);
  t.blocked = t.pause.paused_mask(now_ns);
  uint16_t n = 0;
  if (t.pfc_pending && control_pool_ && max > 0 && t.shaper.can_send(now_ps)) {
    if (rte_mbuf* m = rte_pktmbuf_alloc(control_pool_)) {  // ahead of all data
      PfcFrame f;
      std::memcpy(f.src_mac.data(), e.config->ports[port].mac, 6);
      f.class_enable = t.pfc_request.class_enable;
      f.quanta = t.pfc_request.quanta;
      uint8_t* buf = rte_pktmbuf_mtod(m, uint8_t*);
      const size_t len = encode_pfc(f, buf, rte_pktmbuf_tailroom(m));
      m->data_len = static_cast<uint16_t>(len);
      m->pkt_len = static_cast<uint32_t>(len);
      m->port = port;
      t.pfc_pending = false;
      ++t.pfc_frames_sent;
      start_ps[n] = t.shaper.send(now_ps, m->pkt_len);
      out[n++] = m;
    }
  }
  while (n < max && t.shaper.can_send(now_ps)) {
    rte_mbuf* head = nullptr;
    int c = t.scheduler.pick(t.queue_ptrs.data(), t.blocked, &head);
    if (c < 0) break;
    rte_mbuf* m = t.queues[c].pop();
    t.scheduler.sent(c, t.queues[c].empty());
    WredMarker& wm = t.wred_dequeue[c];
    if (wm.profile().enabled && (m->packet_type & RTE_PTYPE_L3_MASK)) {
      // DCQCN-style: the mark reflects the queue the packet leaves behind.
      uint8_t* l3 = rte_pktmbuf_mtod(m, uint8_t*) + m->l2_len;
      const uint8_t ver = (m->packet_type & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV4 ? 4 : 6;
      const WredVerdict v = wm.decide(t.queues[c].depth_bytes(), m->pkt_len, ecn_of(l3, ver),
                                      pfc_->lossless(static_cast<uint8_t>(c)));
      if (v == WredVerdict::kMark) mark_ce(l3, ver);
      if (v == WredVerdict::kDrop) {
        pfc_->release(m->port, static_cast<uint8_t>(c), m->pkt_len);
        ++t.wred_dequeue_drops;
        rte_pktmbuf_free(m);
        continue;
      }
    }
    pfc_->release(m->port, static_cast<uint8_t>(c), m->pkt_len);  // the ingress port's hold shrinks
    start_ps[n] = t.shaper.send(now_ps, m->pkt_len);
    out[n++] = m;
  }
  return n;
}

// SONiC PFC watchdog semantics: a lossless queue paused for detection_time
// while it holds packets is in a storm; `drop` flushes it, drops its new
// arrivals and stops sending PFC for that priority; `forward` ignores the
// pause frames; `alert` only counts. restoration_time without pause frames
// ends the storm and undoes the action.
void Dataplane::watchdog_poll(PortTx& t, const SwitchConfig& cfg, uint64_t now_ns) {
  const WatchdogParams& w = cfg.params.qos.lossless.watchdog;
  t.watchdog_next_ns = now_ns + w.poll_interval_ns;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    const uint8_t prio = static_cast<uint8_t>(c);
    if (!pfc_->lossless(prio)) continue;
    PfcWatchdog& wd = t.watchdog[c];
    const WatchdogEvent ev = wd.poll(now_ns, t.pause.paused_until_ns(c) > now_ns,
                                     !t.queues[c].empty(), t.pause.rx_frames(c));
    const uint8_t bit = static_cast<uint8_t>(1u << c);
    if (ev == WatchdogEvent::kStormDetected) {
      if (wd.action() == WatchdogAction::kDrop) {
        uint64_t n = 0;
        while (rte_mbuf* m = t.queues[c].pop()) {
          pfc_->release(m->port, prio, m->pkt_len);
          rte_pktmbuf_free(m);
          ++n;
        }
        wd.count_dropped(n);
        t.watchdog_drops += n;
        t.storm_drop.fetch_or(bit);
        for (uint16_t p : cfg.port_ids) pfc_->set_suppressed(p, pfc_->suppressed(p) | bit);
      } else if (wd.action() == WatchdogAction::kForward) {
        t.pause.set_ignored(t.pause.ignored() | bit, now_ns);
      }
    } else if (ev == WatchdogEvent::kStormRestored) {
      if (wd.action() == WatchdogAction::kDrop) {
        t.storm_drop.fetch_and(static_cast<uint8_t>(~bit));
        for (uint16_t p : cfg.port_ids)
          pfc_->set_suppressed(p, pfc_->suppressed(p) & static_cast<uint8_t>(~bit));
      } else if (wd.action() == WatchdogAction::kForward) {
        t.pause.set_ignored(t.pause.ignored() & static_cast<uint8_t>(~bit), now_ns);
      }
    }
  }
}

void Dataplane::pfc_poll(uint16_t port, uint64_t now_ns) {
  PortTx& t = *tx_[port];
  PfcFrameRequest req;
  if (!pfc_->poll(port, now_ns, t.shaper.speed_bps(), req)) return;
  if (!t.pfc_pending) {
    t.pfc_request = req;
  } else {  // not sent yet: the newer word for each priority wins
    for (int p = 0; p < kPfcPriorities; ++p)
      if ((req.class_enable >> p) & 1) t.pfc_request.quanta[p] = req.quanta[p];
    t.pfc_request.class_enable |= req.class_enable;
  }
  t.pfc_pending = true;
}

uint64_t Dataplane::next_tx_ps(uint16_t port, uint64_t now_ps) const {
  const PortTx& t = *tx_[port];
  uint64_t pfc_due = UINT64_MAX;
  if (t.pfc_pending)
    pfc_due = std::max(t.shaper.wire_free_ps(), now_ps);
  else {
    const uint64_t ns = pfc_->next_poll_ns(port, now_ps / 1000);
    if (ns != UINT64_MAX) pfc_due = std::max(ns * 1000, now_ps);
  }
  const uint8_t blocked = t.pause.paused_mask(now_ps / 1000);
  bool sendable = false, waiting = false;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    if (t.queues[c].empty()) continue;
    ((blocked >> c) & 1 ? waiting : sendable) = true;
  }
  // A paused lossless queue, or one in a storm: the watchdog must look on time.
  bool storm = false;
  for (const auto& w : t.watchdog) storm = storm || w.in_storm();
  if (config().params.qos.lossless.watchdog.enabled && (waiting || storm))
    pfc_due = std::min(pfc_due, std::max(t.watchdog_next_ns * 1000, now_ps));
  if (sendable) return std::min(pfc_due, std::max(t.shaper.wire_free_ps(), now_ps));
  if (!waiting) return pfc_due;
  const uint64_t ns = t.pause.next_change_ns(now_ps / 1000);
  const uint64_t resume =
      ns == UINT64_MAX ? UINT64_MAX : std::max(ns * 1000, t.shaper.wire_free_ps());
  return std::min(pfc_due, resume);
}

uint64_t Dataplane::flush() {
  uint64_t n = 0;
  for (auto& t : tx_)
    if (t)
      for (auto& q : t->queues) n += q.flush();
  return n;
}

Snapshot Dataplane::snapshot() const {
  const Epoch& e = epoch();
  const SwitchConfig& cfg = *e.config;
  Snapshot s;
  s.groups.resize(cfg.groups.size());
  for (const auto& w : workers_) {
    for (int p = 0; p < kMaxPorts; ++p) {
      s.port[p].add(w->port[p]);
      for (int c = 0; c < kNumTrafficClasses; ++c) {
        auto& d = s.queue[p][c];
        const auto& q = w->queue[p][c];
        d.enqueued_packets += q.enqueued_packets;
        d.enqueued_bytes += q.enqueued_bytes;
        d.dropped_packets += q.dropped_packets;
        d.dropped_bytes += q.dropped_bytes;
        d.wred.add(w->wred[p][c].counters());
        d.wred.add(w->wred_retired[p][c]);
      }
    }
  }
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
      s.member.push_back({k < c.member_packets.size() ? c.member_packets[k] : 0,
                          k < c.member_bytes.size() ? c.member_bytes[k] : 0});
    }
  }
  for (uint16_t id : cfg.port_ids) {
    const PortTx& t = *tx_[id];
    s.port[id][PortCounter::tx_packets] += t.tx_packets;
    s.port[id][PortCounter::tx_bytes] += t.tx_bytes;
    s.port[id][PortCounter::generated_pfc_frames] += t.pfc_frames_sent;
    s.port[id].drops[static_cast<int>(DropReason::wred_dropped)] += t.wred_dequeue_drops;
    s.port[id].drops[static_cast<int>(DropReason::pfc_watchdog_drop)] += t.watchdog_drops;
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      s.queue[id][c].wred.add(t.wred_dequeue[c].counters());
      s.queue[id][c].wred.add(t.wred_dequeue_retired[c]);
    }
    for (const auto& q : t.queues) s.queued_packets += q.depth_packets();
  }
  return s;
}

}  // namespace rocelb
