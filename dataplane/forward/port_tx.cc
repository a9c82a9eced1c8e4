// PortTx (port_tx.h): received pause frames, PFC frames to send, the PFC
// watchdog, dequeue (scheduler, dequeue-side WRED, shaper) in bursts, and
// the one loop that drains a queue. Everything here runs on the port's TX
// owner only.
#include "dataplane/forward/port_tx.h"

#include <rte_mbuf.h>

#include <algorithm>
#include <cstring>

#include "dataplane/forward/ecn_mark.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/tsan.h"
#include "dataplane/wire/mac_control.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

// Bytes a dequeue burst took out, per (ingress port, priority), so the PFC
// generator is told once per pair and burst instead of once per packet.
class ReleaseTable {
 public:
  ReleaseTable(PfcGenerator& pfc, PortSet& ports) : pfc_(pfc), ports_(ports) {}
  ~ReleaseTable() { flush(); }
  void add(uint16_t port, uint8_t prio, uint32_t bytes) {
    const uint32_t key = uint32_t{port} << 8 | prio;
    for (uint32_t i = 0; i < n_; ++i)
      if (key_[i] == key) {
        bytes_[i] += bytes;
        return;
      }
    if (n_ == kMax) flush();
    key_[n_] = key;
    bytes_[n_++] = bytes;
  }
  void flush() {
    for (uint32_t i = 0; i < n_; ++i) {
      const uint16_t port = static_cast<uint16_t>(key_[i] >> 8);
      pfc_.release(port, static_cast<uint8_t>(key_[i]), bytes_[i]);
      ports_.add(port);
    }
    n_ = 0;
  }

 private:
  static constexpr uint32_t kMax = 16;
  PfcGenerator& pfc_;
  PortSet& ports_;
  uint32_t n_ = 0;
  uint32_t key_[kMax];
  uint64_t bytes_[kMax];
};

}  // namespace

void PortTx::configure(const SwitchConfig& cfg, uint64_t shaper_burst_ps) {
  const PortConfig& pc = cfg.ports[port_];
  scheduler.configure(pc.strict_mask, pc.quantum);
  shaper.configure(pc.speed_bps, shaper_burst_ps);
  load.reconfigure(pc.load_interval_ns, pc.load_alpha_q16);
  const QosConfig& q = cfg.qos;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    watchdog[c].set_params(q.watchdog);
    wred_dequeue_retired[c].add(wred_dequeue[c].counters());
    wred_dequeue[c] =
        !q.mark_at_enqueue && q.wred[c].enabled
            ? WredMarker(q.wred[c],
                         WredMarker::seed_for(q.seed, port_, static_cast<uint8_t>(c), 0xffff))
            : WredMarker();
  }
}

void PortTx::apply_pause(const SwitchConfig& cfg, const PauseEvent& ev) {
  const uint64_t speed = cfg.ports[port_].speed_bps;
  if (ev.is_pause) {
    pause.on_pause(ev.quanta[0], ev.now_ns, speed);
  } else {
    // 802.1Qbb: a port honours PFC only for its PFC-enabled priorities.
    pause.on_pfc(ev.class_enable & cfg.qos.pfc.enable_mask, ev.quanta.data(), ev.now_ns, speed);
  }
}

bool PortTx::poll(const SwitchConfig& cfg, bool read_inbox, uint64_t now_ns) {
  // A single worker applies every pause frame itself: its inbox stays empty.
  // Looked at before the burst buffer is set up (its 256 bytes are cleared).
  if (read_inbox && !rte_ring_empty(pause_inbox)) {
    PauseEvent ev[8];
    unsigned k;
    while ((k = rte_ring_sc_dequeue_burst_elem(pause_inbox, ev, sizeof(PauseEvent), 8, nullptr)) >
           0) {
      ROCELB_TSAN_ACQUIRE(pause_inbox);
      for (unsigned i = 0; i < k; ++i) apply_pause(cfg, ev[i]);
    }
  }
  PfcFrameRequest req;
  if (!pfc_->poll(cfg.qos.pfc, port_, now_ns, req)) return false;
  if (!pfc_pending) {
    pfc_request = req;
  } else {  // not sent yet: the newer word for each priority wins
    for (int p = 0; p < kPfcPriorities; ++p)
      if ((req.class_enable >> p) & 1) pfc_request.quanta[p] = req.quanta[p];
    pfc_request.class_enable |= req.class_enable;
  }
  pfc_pending = true;
  return true;
}

// The due PFC frame, ahead of all data: false when the pool has none.
bool PortTx::send_pfc_frame(const SwitchConfig& cfg, uint64_t now_ps, rte_mbuf** out,
                            uint64_t* start_ps) {
  rte_mbuf* m = mbuf_alloc(control_pool_);
  if (!m) return false;
  PfcFrame f;
  std::memcpy(f.src_mac.data(), cfg.ports[port_].mac, 6);
  f.class_enable = pfc_request.class_enable;
  f.quanta = pfc_request.quanta;
  uint8_t* buf = rte_pktmbuf_mtod(m, uint8_t*);
  const size_t len = encode_pfc(f, buf, rte_pktmbuf_tailroom(m));
  m->data_len = static_cast<uint16_t>(len);
  m->pkt_len = static_cast<uint32_t>(len);
  m->port = port_;
  pfc_pending = false;
  ++pfc_frames_sent;
  *start_ps = shaper.send(now_ps, m->pkt_len);
  *out = m;
  return true;
}

uint16_t PortTx::dequeue(const SwitchConfig& cfg, bool link_up, uint64_t now_ps, rte_mbuf** out,
                         uint64_t* start_ps, uint16_t max) {
  if (!link_up) {
    flush_link_down(now_ps / 1000);
    return 0;
  }
  const uint64_t now_ns = now_ps / 1000;
  if (cfg.qos.watchdog.enabled && now_ns >= watchdog_next_ns) watchdog_poll(cfg, now_ns);
  // Which queues hold packets, read once per call: the scheduler looks
  // only at those (queues that fill meanwhile wait for the next call).
  const uint8_t ready = nonempty.load(std::memory_order_relaxed);
  if (!pfc_pending && ready == 0) return 0;
  blocked = pause.paused_mask(now_ns);
  uint16_t n = 0;
  if (pfc_pending && control_pool_ && max > 0 && shaper.can_send(now_ps) &&
      send_pfc_frame(cfg, now_ps, &out[n], &start_ps[n]))
    ++n;
  ReleaseTable released(*pfc_, released_ports);
  uint8_t taken = 0;        // queues with packets taken and not yet committed
  uint32_t wred_drops = 0;  // counted once they are out of the depth
  while (n < max && shaper.can_send(now_ps)) {
    rte_mbuf* head = nullptr;
    const int c = scheduler.pick(queue_ptrs.data(), blocked, ready, &head);
    if (c < 0) break;
    const uint8_t prio = static_cast<uint8_t>(c);
    EgressQueue& q = queues[c];
    WredMarker& wm = wred_dequeue[c];
    taken |= static_cast<uint8_t>(1u << c);
    // The class drains while the scheduler, the shaper and the burst allow.
    for (;;) {
      rte_mbuf* m = q.take();
      released.add(m->port, prio, m->pkt_len);  // the ingress port's hold shrinks
      bool sent = true;
      if (wm.profile().enabled && (m->packet_type & RTE_PTYPE_L3_MASK)) {
        // DCQCN-style: the mark reflects the queue the packet leaves behind.
        uint8_t* l3 = rte_pktmbuf_mtod(m, uint8_t*) + m->l2_len;
        const uint8_t ver = (m->packet_type & RTE_PTYPE_L3_MASK) == RTE_PTYPE_L3_IPV4 ? 4 : 6;
        const WredVerdict v =
            wm.decide(q.own_depth_bytes(), m->pkt_len, ecn_of(l3, ver), cfg.qos.pfc.lossless(prio));
        if (v == WredVerdict::kMark) {
          mark_ce(l3, ver);
          if (obs_) obs_->on_mark(m, port_, prio, MarkWhere::kDequeue, now_ns);
        }
        if (v == WredVerdict::kDrop) {
          ++wred_drops;
          if (obs_) obs_->on_drop(m, port_, prio, DropReason::wred_dropped, now_ns);
          mbuf_free(m);
          sent = false;
        }
      }
      if (sent) {
        start_ps[n] = shaper.send(now_ps, m->pkt_len);
        out[n++] = m;
      }
      if (n == max || !shaper.can_send(now_ps)) break;
      const rte_mbuf* next = q.peek();
      if (!next || !scheduler.again(c, next->pkt_len, ready, blocked)) break;
    }
    scheduler.sent(c, q.peek() == nullptr);
  }
  // Published once per queue and burst (one atomic subtract each).
  for (uint32_t todo = taken; todo != 0; todo &= todo - 1) queues[__builtin_ctz(todo)].commit();
  if (wred_drops) {
    std::atomic_thread_fence(std::memory_order_release);  // out of the depth, then dropped
    wred_dequeue_drops += wred_drops;
  }
  released.flush();
  return n;
}

uint64_t PortTx::drain(uint8_t c, PacketObserver* obs, DropReason reason, uint64_t now_ns) {
  EgressQueue& q = queues[c];
  uint64_t n = 0;
  while (rte_mbuf* m = q.peek()) {
    q.take();
    pfc_->release(m->port, c, m->pkt_len);
    released_ports.add(m->port);
    if (obs) obs->on_drop(m, port_, c, reason, now_ns);
    mbuf_free(m);
    ++n;
  }
  q.commit();
  return n;
}

uint64_t PortTx::flush() {
  uint64_t n = 0;
  // Each one still counts as held on its ingress port (pfc.add happened at
  // enqueue) and as received: it is released here and the caller counts
  // the drop, so the counters still add up after a stop.
  for (uint8_t c = 0; c < kNumTrafficClasses; ++c) n += drain(c, nullptr, DropReason::flushed, 0);
  PauseEvent ev;
  while (pause_inbox && rte_ring_sc_dequeue_elem(pause_inbox, &ev, sizeof ev) == 0) {
  }
  return n;
}

// A port whose link is down sends nothing: what it holds is dropped
// (link_down) and the PFC bytes those frames held on their ingress ports
// are released, so the ports feeding it stop being paused.
void PortTx::flush_link_down(uint64_t now_ns) {
  pfc_pending = false;
  uint64_t n = 0;
  for (uint8_t c = 0; c < kNumTrafficClasses; ++c)
    if (!queues[c].empty()) n += drain(c, obs_, DropReason::link_down, now_ns);
  if (n) {
    std::atomic_thread_fence(std::memory_order_release);  // out of the depth, then dropped
    link_down_drops += n;
  }
}

// SONiC PFC watchdog semantics: a lossless queue paused for detection_time
// while it holds packets is in a storm; `drop` flushes it, drops its new
// arrivals and stops sending PFC for that priority; `forward` ignores the
// pause frames; `alert` only counts. restoration_time without pause frames
// ends the storm and undoes the action.
void PortTx::watchdog_poll(const SwitchConfig& cfg, uint64_t now_ns) {
  const WatchdogParams& w = cfg.qos.watchdog;
  watchdog_next_ns = now_ns + w.poll_interval_ns;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    const uint8_t prio = static_cast<uint8_t>(c);
    if (!cfg.qos.pfc.lossless(prio)) continue;
    PfcWatchdog& wd = watchdog[c];
    const WatchdogEvent ev =
        wd.poll(now_ns, pause.paused_until_ns(c) > now_ns, !queues[c].empty(), pause.rx_frames(c));
    const uint8_t bit = static_cast<uint8_t>(1u << c);
    if (ev == WatchdogEvent::kStormDetected) storms_ |= bit;
    if (ev == WatchdogEvent::kStormRestored) storms_ &= static_cast<uint8_t>(~bit);
    if (ev == WatchdogEvent::kStormDetected) {
      if (wd.action() == WatchdogAction::kDrop) {
        const uint64_t n = drain(prio, obs_, DropReason::pfc_watchdog_drop, now_ns);
        wd.count_dropped(n);
        std::atomic_thread_fence(std::memory_order_release);  // out of the depth, then dropped
        watchdog_drops += n;
        storm_drop.store(storm_drop.load(std::memory_order_relaxed) | bit,
                         std::memory_order_relaxed);
        if (!(storm_counted & bit)) {  // PFC for prio stops on every port
          pfc_->storm_begin(prio);
          storm_counted |= bit;
        }
      } else if (wd.action() == WatchdogAction::kForward) {
        pause.set_ignored(pause.ignored() | bit, now_ns);
      }
    } else if (ev == WatchdogEvent::kStormRestored) {
      if (wd.action() == WatchdogAction::kDrop) {
        storm_drop.store(storm_drop.load(std::memory_order_relaxed) & static_cast<uint8_t>(~bit),
                         std::memory_order_relaxed);
        if (storm_counted & bit) {  // only this port's storm ends
          pfc_->storm_end(prio);
          storm_counted &= static_cast<uint8_t>(~bit);
        }
      } else if (wd.action() == WatchdogAction::kForward) {
        pause.set_ignored(pause.ignored() & static_cast<uint8_t>(~bit), now_ns);
      }
    }
  }
}

uint64_t PortTx::next_tx_ps(const SwitchConfig& cfg, bool link_up, uint64_t now_ps) const {
  if (!link_up) return empty() ? UINT64_MAX : now_ps;  // only a flush to do
  uint64_t pfc_due = UINT64_MAX;
  if (pfc_pending) {
    pfc_due = std::max(shaper.wire_free_ps(), now_ps);
  } else if (port_ < pfc_->num_ports() && pfc_->asserted_mask(port_) != 0) {
    // Nothing asserted: no refresh or XON can be due (next_poll_ns).
    const uint64_t ns = pfc_->next_poll_ns(cfg.qos.pfc, port_, now_ps / 1000);
    if (ns != UINT64_MAX) pfc_due = std::max(ns * 1000, now_ps);
  }
  const uint8_t paused = pause.paused_mask(now_ps / 1000);
  const uint8_t held = nonempty.load(std::memory_order_relaxed);
  const bool sendable = (held & ~paused) != 0, waiting = (held & paused) != 0;
  // A paused lossless queue, or one in a storm: the watchdog must look on time.
  if (cfg.qos.watchdog.enabled && (waiting || storms_ != 0))
    pfc_due = std::min(pfc_due, std::max(watchdog_next_ns * 1000, now_ps));
  if (sendable) return std::min(pfc_due, std::max(shaper.wire_free_ps(), now_ps));
  if (!waiting) return pfc_due;
  const uint64_t ns = pause.next_change_ns(now_ps / 1000);
  const uint64_t resume =
      ns == UINT64_MAX ? UINT64_MAX : std::max(ns * 1000, shaper.wire_free_ps());
  return std::min(pfc_due, resume);
}

}  // namespace rocelb
