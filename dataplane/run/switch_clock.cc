#include "dataplane/run/switch_clock.h"

#include <algorithm>
#include <utility>

#include "dataplane/forward/pipeline.h"

namespace rocelb {

SwitchClock::SwitchClock(Dataplane& dp) : dp_(dp), ws_(dp.worker(0)) {
  next_.fill(kNever);
  for (uint16_t id : dp_.config().port_ids) ports_.add(id);
  narrow_ = dp.port_slots() <= 64;
  conweave_ = dp_.config().conweave;
}

void SwitchClock::reset() {
  next_.fill(kNever);
  changed_ = PortSet{};
  next_sample_ns_ = 0;
  for (uint16_t id : dp_.config().port_ids) dp_.set_link_up(id, true);
}

// Every port's load meter closes its interval if it passed; then the
// earliest time one can pass again (no meter samples before it).
void SwitchClock::sample_loads(uint64_t now_ns) {
  uint64_t next = kNever;
  for (uint16_t id : dp_.config().port_ids) {
    PortTx& t = dp_.tx(id);
    t.sample_load(now_ns);
    next = std::min(next, t.load.last_sample_ns() + t.load.interval_ns());
  }
  next_sample_ns_ = next;
}

void SwitchClock::set_next(uint16_t port, uint64_t at_ps) {
  if (next_[port] == at_ps) return;
  next_[port] = at_ps;
  changed_.add(port);
}

int SwitchClock::earliest(uint64_t* at_ps) const {
  int best = -1;
  for (uint16_t id : dp_.config().port_ids)
    if (next_[id] != kNever && (best < 0 || next_[id] < next_[best])) best = id;
  *at_ps = best < 0 ? kNever : next_[best];
  return best;
}

void SwitchClock::begin_event(uint64_t now_ps) {
  // One thread: the epoch never changes under virtual time, but a new one
  // (replay's config changes) may reconfigure the load meters.
  const Epoch* epoch = &dp_.epoch();
  if (ws_.epoch != epoch) dp_.adopt(0);  // the worker takes it, as adopt() at a loop's top
  if (epoch != epoch_) {
    epoch_ = epoch;
    next_sample_ns_ = 0;
    conweave_ = epoch->config->conweave;
  }
  const SwitchConfig& cfg = dp_.config();
  const uint64_t now_ns = now_ps / 1000;
  if (now_ns >= next_sample_ns_) sample_loads(now_ns);
  // PFC refreshes due now: only ports asserting XOFF can owe one, unless
  // thresholds are dynamic (then any port over the moving threshold).
  const PfcGenerator& pfc = dp_.pfc();
  PortSet touched;
  if (pfc.may_poll(cfg.qos.pfc, cfg.qos.pfc.dynamic))
    each_port(pfc.ports_to_poll(cfg.qos.pfc, ports_, cfg.qos.pfc.dynamic), [&](uint16_t id) {
      if (dp_.tx_poll(id, now_ns)) touched.add(id);
    });
  suppressed_ = pfc.suppressed_mask();
  // A refresh that became due needs its port looked at now.
  each_port(touched, [&](uint16_t id) {
    const uint64_t next = port_next(id, now_ps);
    if (next < next_[id]) set_next(id, next);
  });
}

void SwitchClock::reschedule(const PortSet& touched, const PortSet& held, uint64_t now_ps,
                             int skip) {
  const SwitchConfig& cfg = dp_.config();
  // No PFC generator may act: only the touched ports can have new work (a
  // departure touches none).
  const bool may = dp_.pfc().may_poll(cfg.qos.pfc, true);
  if (!may && touched.empty()) return;
  // Dynamic thresholds and storms move every port's PFC state: of the
  // ports the event did not touch, those whose PFC generator may act now.
  const bool all = cfg.qos.pfc.dynamic || dp_.pfc().suppressed_mask() != suppressed_;
  PortSet ports = touched & ports_;
  // Of those ports and the ones whose held bytes moved (all: of every
  // port), the ones whose PFC generator may act now (one threshold for all
  // of them): a poll of any other does nothing (PfcGenerator::ports_to_poll),
  // unless other workers' pause frames wait in its inbox. When none may
  // act, held bytes that moved change no port's time: those ports are left.
  PortSet over;
  if (may) {
    ports |= held & ports_;
    over = dp_.pfc().ports_to_poll(cfg.qos.pfc, all ? ports_ : ports, true);
  }
  const bool poll_all = dp_.num_workers() > 1;
  if (all) ports |= over;
  if (skip >= 0) ports.remove(static_cast<uint16_t>(skip));
  each_port(ports, [&](uint16_t id) {
    // The event may have crossed XOFF or XON.
    if (poll_all || over.has(id)) dp_.tx_poll(id, now_ps / 1000);
    const uint64_t next = port_next(id, now_ps);
    if (next < next_[id]) set_next(id, next);
  });
}

void SwitchClock::arrive(uint16_t port, rte_mbuf* m, uint32_t len, uint64_t now_ps) {
  if (!m) {
    PortCounters& pc = ws_.port[port];
    ++pc[PortCounter::rx_packets];
    pc[PortCounter::rx_bytes] += len;
    pc.drop(DropReason::no_buffer);
  } else {
    process_burst(dp_, 0, port, &m, 1, now_ps / 1000);
  }
  // Where the frame was queued or a pause it carried applies; the ingress
  // port's held bytes moved.
  reschedule(ws_.touched_ports.take(), PortSet::of(port), now_ps, -1);
}

rte_mbuf* SwitchClock::depart(uint16_t port, uint64_t now_ps, uint64_t* start_ps) {
  rte_mbuf* m = nullptr;
  uint64_t start = 0;
  PortTx& t = dp_.tx(port);
  // ConWeave: packets whose reorder queue's time came go into this port's
  // queues first (through the pipeline again, from their ingress ports).
  if (conweave_ && dp_.conweave_next_ns(0, port) <= now_ps / 1000) [[unlikely]] {
    PortSet in_ports;
    dp_.conweave_flush(0, port, now_ps / 1000, &in_ports);
    reschedule(ws_.touched_ports.take(), in_ports, now_ps, port);
  }
  if (dp_.dequeue(port, now_ps, &m, &start, 1) == 1 && unlinked_.has(port)) {
    // It holds the wire as if sent (the port's pace and load are the same),
    // but nothing takes it: a drop, not a transmission.
    t.load.on_tx(t.shaper.wire_bytes(m->pkt_len));
    ws_.port[port].drop(DropReason::no_link);
    if (PacketObserver* obs = dp_.observer())
      obs->on_drop(m, port, kClassUnknown, DropReason::no_link, start / 1000);
    rte_pktmbuf_free(m);
    m = nullptr;
  } else if (m) {
    t.count_tx(m->pkt_len);
    *start_ps = start;
  } else {
    m = nullptr;
  }
  set_next(port, port_next(port, std::max(now_ps, t.shaper.wire_free_ps())));
  // The departure released buffer: an ingress port may now owe its peer an XON.
  reschedule(PortSet{}, t.released_ports.take(), now_ps, port);
  return m;
}

void SwitchClock::link(uint16_t port, bool up, uint64_t now_ps) {
  dp_.adopt(0);
  dp_.set_link_up(port, up);
  // Down: its owner flushes its queues now. Up: it may send again.
  const uint64_t next = port_next(port, now_ps);
  if (next < next_[port]) set_next(port, next);
}

}  // namespace rocelb
