#include "dataplane/run/switch_clock.h"

#include <algorithm>
#include <utility>

#include "dataplane/forward/pipeline.h"

namespace rocelb {

SwitchClock::SwitchClock(Dataplane& dp) : dp_(dp) {
  next_.fill(kNever);
}

void SwitchClock::reset() {
  next_.fill(kNever);
  changed_ = 0;
  for (uint16_t id : dp_.config().port_ids) dp_.set_link_up(id, true);
}

void SwitchClock::set_next(uint16_t port, uint64_t at_ps) {
  if (next_[port] == at_ps) return;
  next_[port] = at_ps;
  changed_ |= uint64_t{1} << port;
}

int SwitchClock::earliest(uint64_t* at_ps) const {
  int best = -1;
  for (uint16_t id : dp_.config().port_ids)
    if (next_[id] != kNever && (best < 0 || next_[id] < next_[best])) best = id;
  *at_ps = best < 0 ? kNever : next_[best];
  return best;
}

void SwitchClock::begin_event(uint64_t now_ps) {
  dp_.adopt(0);  // one thread: the epoch never changes under virtual time
  const SwitchConfig& cfg = dp_.config();
  const bool dynamic = cfg.qos.pfc.dynamic;
  uint64_t touched = 0;
  for (uint16_t id : cfg.port_ids) {
    dp_.tx(id).sample_load(now_ps / 1000);
    if ((dynamic || dp_.pfc().asserted_mask(id)) && dp_.tx_poll(id, now_ps / 1000))
      touched |= uint64_t{1} << id;
  }
  suppressed_ = dp_.pfc().suppressed_mask();
  // A refresh that became due needs its port looked at now.
  for (uint16_t id : cfg.port_ids)
    if ((touched >> id) & 1) {
      const uint64_t next = dp_.next_tx_ps(id, now_ps);
      if (next < next_[id]) set_next(id, next);
    }
}

void SwitchClock::reschedule(uint64_t touched, uint64_t now_ps, int skip) {
  const SwitchConfig& cfg = dp_.config();
  // Dynamic thresholds and storms move every port's PFC state.
  const bool all = cfg.qos.pfc.dynamic || dp_.pfc().suppressed_mask() != suppressed_;
  for (uint16_t id : cfg.port_ids) {
    if (id == skip || !(all || ((touched >> id) & 1))) continue;
    dp_.tx_poll(id, now_ps / 1000);  // the event may have crossed XOFF or XON
    const uint64_t next = dp_.next_tx_ps(id, now_ps);
    if (next < next_[id]) set_next(id, next);
  }
}

void SwitchClock::arrive(uint16_t port, rte_mbuf* m, uint32_t len, uint64_t now_ps) {
  if (!m) {
    PortCounters& pc = dp_.worker(0).port[port];
    ++pc[PortCounter::rx_packets];
    pc[PortCounter::rx_bytes] += len;
    pc.drop(DropReason::no_buffer);
  } else {
    process_burst(dp_, 0, port, &m, 1, now_ps / 1000);
  }
  // The ingress port (its held bytes, a received pause) and where the frame
  // was queued.
  const uint64_t touched = std::exchange(dp_.worker(0).enqueued_ports, 0) | uint64_t{1} << port;
  reschedule(touched, now_ps, -1);
}

rte_mbuf* SwitchClock::depart(uint16_t port, uint64_t now_ps, uint64_t* start_ps) {
  rte_mbuf* m = nullptr;
  uint64_t start = 0;
  PortTx& t = dp_.tx(port);
  if (dp_.dequeue(port, now_ps, &m, &start, 1) == 1 && ((unlinked_ >> port) & 1)) {
    // It holds the wire as if sent (the port's pace and load are the same),
    // but nothing takes it: a drop, not a transmission.
    t.load.on_tx(m->pkt_len + kWireOverheadBytes);
    dp_.worker(0).port[port].drop(DropReason::no_link);
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
  set_next(port, dp_.next_tx_ps(port, std::max(now_ps, t.shaper.wire_free_ps())));
  // The departure released buffer: an ingress port may now owe its peer an XON.
  reschedule(std::exchange(t.released_ports, 0), now_ps, port);
  return m;
}

void SwitchClock::link(uint16_t port, bool up, uint64_t now_ps) {
  dp_.adopt(0);
  dp_.set_link_up(port, up);
  // Down: its owner flushes its queues now. Up: it may send again.
  const uint64_t next = dp_.next_tx_ps(port, now_ps);
  if (next < next_[port]) set_next(port, next);
}

}  // namespace rocelb
