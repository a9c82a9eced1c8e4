#include "dataplane/run/fabric_shard.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include <rte_prefetch.h>

#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/run/fabric_run.h"
#include "lb/lb_rng.h"

namespace rocelb {

uint64_t wire_ps(uint64_t wire_bytes, uint64_t bps) {
  const unsigned __int128 bits = static_cast<unsigned __int128>(wire_bytes) * kPsBits;
  return static_cast<uint64_t>((bits + bps - 1) / bps);
}

FabricShard::FabricShard(FabricWorld& world, uint32_t index, uint32_t shards, GrowingMbufPool& pool,
                         uint64_t link_window_ns)
    : w_(world),
      index_(index),
      shards_(shards),
      pool_(pool),
      frame_offset_(sizeof(rte_mbuf) + rte_pktmbuf_priv_size(pool.get()) + RTE_PKTMBUF_HEADROOM) {
  q_.set_lanes(w_.wires);
  buf_.resize(16384);
  scratch_.resize(16384);
  for (auto& per_parity : out_) per_parity.resize(shards);
  tally_.start(w_.wires, link_window_ns);
}

void FabricShard::start() {
  for (uint32_t i = 0; i < w_.workload.flows.size(); ++i) {
    const FabricFlow& f = w_.workload.flows[i];
    if (f.phase != 0) continue;
    if (w_.hosts[w_.flow_src[i]].shard == index_) starts_.push_back(i);
    if (w_.hosts[w_.flow_dst[i]].shard == index_) accepts_.push_back(i);
  }
  push_next_start();
  push_next_accept();
}

void FabricShard::push_flow(uint64_t t, Ev kind, uint32_t flow, bool timetable) {
  const uint64_t order = kind == Ev::kFlowStart ? order_start(flow) : order_accept(flow);
  q_.push(t, order, Event{t, kind, timetable, flow, 0, 0, nullptr});
}

// Phase-0 flows start at their times, one event ahead at a time.
void FabricShard::push_next_start() {
  if (next_start_ == starts_.size()) return;
  const uint32_t f = starts_[next_start_++];
  push_flow(w_.workload.flows[f].start_ns * 1000, Ev::kFlowStart, f, true);
}

void FabricShard::push_next_accept() {
  if (next_accept_ == accepts_.size()) return;
  const uint32_t f = accepts_[next_accept_++];
  push_flow(w_.workload.flows[f].start_ns * 1000, Ev::kFlowAccept, f, true);
}

void FabricShard::begin_window(const std::vector<std::unique_ptr<FabricShard>>& all,
                               unsigned parity,
                               const std::vector<std::pair<uint64_t, uint32_t>>& phase_starts) {
  done_.clear();
  try {
    for (const auto& from : all) {
      if (from.get() == this) continue;
      const Outbox& box = from->out_[parity][index_];
      for (const WireMsg& msg : box.msgs) {
        pool_.keep_free();
        rte_mbuf* m = msg.has_frame
                          ? mbuf_from_bytes(pool_.get(), box.bytes.data() + msg.off, msg.len)
                          : nullptr;
        q_.push_lane(msg.wire, msg.t, order_arrival(msg.wire),
                     Event{msg.t, msg.to_host ? Ev::kToHost : Ev::kToSwitch, false, msg.to,
                           msg.port, msg.len, m});
      }
    }
    for (Outbox& box : out_[parity ^ 1]) box.clear();
    for (const auto& [t, f] : phase_starts) {
      if (w_.hosts[w_.flow_dst[f]].shard == index_) push_flow(t, Ev::kFlowAccept, f, false);
      if (w_.hosts[w_.flow_src[f]].shard == index_) push_flow(t, Ev::kFlowStart, f, false);
    }
  } catch (...) {  // no memory for the queue: kept, and the run stops at the window's end
    error_ = std::current_exception();
  }
}

uint64_t FabricShard::next_ps(unsigned parity) const {
  uint64_t t = q_.empty() ? kNeverPs : q_.top_time();
  for (const Outbox& box : out_[parity]) t = std::min(t, box.min_t);
  return t;
}

void FabricShard::run_window(uint64_t end_ps, unsigned parity) {
  parity_ = parity;
  if (error_) return;
  // Frames outgrow the cache only in a large or loaded fabric; in a small
  // one the prefetch finds every line there already and only costs.
  const bool prefetch = pool_.populated() > kPrefetchFromMbufs;
  try {
    while (!q_.empty() && q_.top_time() < end_ps) {
      pool_.keep_free();  // what the event may allocate is there (growing_mbuf_pool.h)
      const Event e = q_.pop();
      if (prefetch && !q_.empty()) prefetch_frame(q_.top());
      last_ps_ = e.t;
      ++events_;
      if (w_.recorder) w_.recorder->advance(e.t / 1000);
      switch (e.kind) {
        case Ev::kPort:
          on_port(e);
          break;
        case Ev::kToSwitch:
          on_to_switch(e);
          break;
        case Ev::kToHost:
          on_to_host(e);
          break;
        case Ev::kHostWake:
          if (due(w_.hosts[e.a].wake, e, order_wake(e.a))) host_send(e.a, e.t);
          break;
        case Ev::kFlowAccept:
          accept_flow(e.a, e.t);
          if (e.timetable) push_next_accept();
          break;
        case Ev::kFlowStart:
          start_flow(e.a, e.t);
          if (e.timetable) push_next_start();
          break;
      }
    }
  } catch (...) {
    error_ = std::current_exception();
  }
}

// The next event's frame, while this one runs: at a thousand hosts the
// frames in flight are hundreds of megabytes, and a hop's first touch of
// its mbuf is a miss to memory.
void FabricShard::prefetch_frame(const Event& next) const {
  if (!next.m) return;
  // Its header, and the two lines its headers start in (where the pool puts
  // a frame's first byte: found from the address, not from the mbuf's
  // fields, which would wait for the very miss this hides).
  const char* at = reinterpret_cast<const char*>(next.m);
  rte_prefetch0(at);
  rte_prefetch0(at + frame_offset_);
  rte_prefetch0(at + frame_offset_ + 64);
}

void FabricShard::meter(uint32_t wire, uint64_t now_ps, uint64_t start_ps, uint64_t bytes) {
  if (shards_ == 1)
    w_.links.add(wire, start_ps, bytes);
  else
    tally_.add(wire, now_ps, start_ps, bytes);
}

void FabricShard::schedule_switch(uint32_t s) {
  SwitchNode& n = w_.sw[s];
  n.clock->take_changed([&](uint16_t port) {
    const uint64_t t = n.clock->next_ps(port);
    if (n.wake[port].want(t)) push(t, order_look(s, port), Ev::kPort, s, port);
  });
}

void FabricShard::schedule_host(uint32_t h, uint64_t now_ps) {
  // The NIC says when it could act; never before now.
  HostNode& host = w_.hosts[h];
  const uint64_t t = std::max(host.nic->next_wakeup_ps(), now_ps);
  if (host.wake.want(t)) push(t, order_wake(h), Ev::kHostWake, h, 0);
}

bool FabricShard::due(WakeKeys& keys, const Event& e, uint64_t order) {
  switch (keys.pop(e.t)) {
    case WakeKeys::Popped::kDue:
      return true;
    case WakeKeys::Popped::kPushAgain:
      push(keys.time(), order, e.kind, e.a, e.b);
      return false;
    case WakeKeys::Popped::kStale:
      return false;
  }
  return false;
}

// A frame onto a wire: a wire delivers in the order it sends, so its
// frames queue in the wire's lane; to another shard, through the outbox.
void FabricShard::send_frame(const Peer& to, uint32_t wire, rte_mbuf* m, uint32_t len,
                             uint64_t start_ps, const uint8_t* bytes) {
  const uint32_t wire_bytes = w_.nic_params.framing.bytes(len);
  const uint64_t on_wire =
      to.ps_per_byte ? uint64_t{wire_bytes} * to.ps_per_byte : wire_ps(wire_bytes, to.speed_bps);
  const uint64_t at = start_ps + on_wire + to.delay_ps;
  // One shard: every node is its own (no look at the far node's record).
  const uint32_t shard =
      shards_ == 1 ? index_ : (to.to_host ? w_.hosts[to.index].shard : w_.sw[to.index].shard);
  if (shard == index_) {
    q_.push_lane(
        wire, at, order_arrival(wire),
        Event{at, to.to_host ? Ev::kToHost : Ev::kToSwitch, false, to.index, to.port, len, m});
    return;
  }
  Outbox& box = out_[parity_][shard];
  WireMsg msg{at, wire, to.index, to.port, to.to_host, m != nullptr, len, box.bytes.size()};
  if (m) {
    const uint8_t* data = bytes ? bytes : mbuf_bytes(m, scratch_.data());
    box.bytes.insert(box.bytes.end(), data, data + len);
    rte_pktmbuf_free(m);
  }
  box.msgs.push_back(msg);
  box.min_t = std::min(box.min_t, at);
  ++sent_out_;
}

void FabricShard::collect(uint32_t h, uint64_t now_ps) {
  for (const NicFlowStats& st : w_.hosts[h].nic->take_completed()) {
    FlowRecord& r = w_.records[st.flow_id];
    r.finish_ns = st.finish_ps / 1000;
    r.packets = st.packets;
    r.retransmitted_packets = st.retransmitted_packets;
    r.cnps_received = st.cnps_received;
    done_.push_back(FlowDone{static_cast<uint32_t>(st.flow_id), now_ps});
  }
}

namespace {

uint32_t flow_qpn(const FabricFlow& f, uint32_t i) {
  return f.qp.value_or(static_cast<uint32_t>(0x100 + (i % 0xFFFE00)));
}
uint32_t flow_dst_qpn(uint32_t i) {
  return static_cast<uint32_t>(0x100 + (i % 0xFFFE00));
}

}  // namespace

// The receiver takes the flow when it starts (its first frame is at least
// two wires away).
void FabricShard::accept_flow(uint32_t i, uint64_t now_ps) {
  const FabricFlow& f = w_.workload.flows[i];
  const uint16_t sport = flow_sport(f, w_.seed);
  const uint8_t dscp = f.dscp.value_or(w_.nic_params.data_dscp);
  try {
    w_.hosts[w_.flow_dst[i]].nic->accept_flow(flow_dst_qpn(i),
                                              w_.topo.port(w_.flow_src[i]).ip.v4_host_order(),
                                              flow_qpn(f, i), sport, dscp, f.size_bytes);
  } catch (const std::invalid_argument& e) {  // e.g. an explicit qp still busy
    throw FabricError(w_.workload.source + ": flow " + std::to_string(f.id) + " (" +
                      w_.records[i].src + " -> " + w_.records[i].dst + " at " +
                      std::to_string(now_ps / 1000) + " ns): " + e.what());
  }
  schedule_host(w_.flow_dst[i], now_ps);
}

void FabricShard::start_flow(uint32_t i, uint64_t now_ps) {
  const FabricFlow& f = w_.workload.flows[i];
  FlowRecord& r = w_.records[i];
  r.start_ns = now_ps / 1000;
  // QPNs: one pair per flow (24 bits, never 0 or 1); the UDP source port:
  // flow_sport.
  const uint16_t sport = flow_sport(f, w_.seed);
  const uint8_t dscp = f.dscp.value_or(w_.nic_params.data_dscp);
  try {
    w_.hosts[w_.flow_src[i]].nic->start_flow(i, flow_qpn(f, i),
                                             w_.topo.port(w_.flow_dst[i]).ip.v4_host_order(),
                                             flow_dst_qpn(i), sport, dscp, f.size_bytes, now_ps);
  } catch (const std::invalid_argument& e) {
    throw FabricError(w_.workload.source + ": flow " + std::to_string(f.id) + " (" + r.src +
                      " -> " + r.dst + " at " + std::to_string(r.start_ns) + " ns): " + e.what());
  }
  schedule_host(w_.flow_src[i], now_ps);
}

void FabricShard::host_send(uint32_t h, uint64_t now_ps) {
  HostNode& host = w_.hosts[h];
  uint64_t start = now_ps;
  // The NIC builds its frame in a pool buffer when one holds its largest
  // (no copy), else in buf_ and it is copied; none free: the frame is lost.
  rte_mbuf* m = mbuf_alloc(pool_.get());
  const bool direct = m && rte_pktmbuf_tailroom(m) >= host.nic->max_frame_len();
  uint8_t* frame = direct ? rte_pktmbuf_mtod(m, uint8_t*) : buf_.data();
  const uint32_t cap = direct ? rte_pktmbuf_tailroom(m) : static_cast<uint32_t>(buf_.size());
  const uint32_t len = host.nic->poll(now_ps, frame, cap, &start);
  if (len > 0) {
    meter(host.meter, now_ps, start, w_.nic_params.framing.bytes(len));
    if (host.capture.is_open() &&
        w_.budget->take(FrameSink::record_bytes(len, 0, host.capture.pcapng()), start / 1000))
      host.capture.write(start / 1000, frame, len, {});
    if (direct) {
      m->data_len = static_cast<uint16_t>(len);
      m->pkt_len = len;
    } else {
      if (m) mbuf_free(m);
      m = mbuf_from_bytes(pool_.get(), frame, len);  // null: no buffer
    }
    send_frame(host.peer, host.meter, m, len, start, frame);
  } else if (m) {
    mbuf_free(m);
  }
  collect(h, now_ps);
  schedule_host(h, now_ps);
}

// Switch e.a's port e.b may send: a frame onto its wire (metered, recorded,
// captured), and the port's next look scheduled.
void FabricShard::on_port(const Event& e) {
  SwitchNode& n = w_.sw[e.a];
  if (!due(n.wake[e.b], e, order_look(e.a, static_cast<uint16_t>(e.b)))) return;
  const uint64_t now = e.t;
  n.clock->begin_event(now);
  uint64_t start = 0;
  const uint16_t port = static_cast<uint16_t>(e.b);
  if (rte_mbuf* m = n.clock->depart(port, now, &start)) {
    meter(n.meter[port], now, start, w_.nic_params.framing.bytes(m->pkt_len));
    const bool annotate = n.capture[port].pcapng();
    if (n.rec) n.rec->depart(port, m, start / 1000, annotate ? &comment_ : nullptr);
    if (n.capture[port].is_open() &&
        w_.budget->take(
            FrameSink::record_bytes(m->pkt_len, annotate ? comment_.size() : 0, annotate),
            start / 1000))
      n.capture[port].write(start / 1000, mbuf_bytes(m, scratch_.data()), m->pkt_len,
                            annotate ? comment_ : std::string());
    // An unlinked port returns none (no_link).
    send_frame(n.peer[port], n.meter[port], m, m->pkt_len, start, nullptr);
  }
  schedule_switch(e.a);
}

void FabricShard::on_to_switch(const Event& e) {
  SwitchNode& n = w_.sw[e.a];
  n.clock->begin_event(e.t);
  if (n.rec) n.rec->arrive(static_cast<uint16_t>(e.b), e.m, e.len, e.t / 1000);
  n.clock->arrive(static_cast<uint16_t>(e.b), e.m, e.len, e.t);
  schedule_switch(e.a);
}

void FabricShard::on_to_host(const Event& e) {
  if (!e.m) return;  // from another shard, and this one's pool was full: lost
  const uint8_t* bytes = mbuf_bytes(e.m, scratch_.data());
  w_.hosts[e.a].nic->receive(bytes, e.m->pkt_len, e.t);
  rte_pktmbuf_free(e.m);
  collect(e.a, e.t);
  schedule_host(e.a, e.t);
}

uint64_t FabricShard::drop_in_flight(unsigned parity) {
  uint64_t on_wires = 0;
  q_.for_each([&](const Event& e) {
    if (e.m) {
      ++on_wires;
      rte_pktmbuf_free(e.m);
    }
  });
  q_.clear();
  for (Outbox& box : out_[parity]) {
    for (const WireMsg& msg : box.msgs) on_wires += msg.has_frame;
    box.clear();
  }
  return on_wires;
}

}  // namespace rocelb
