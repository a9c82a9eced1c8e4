// enqueue_stage: the burst's packets grouped by (egress port, class), each
// group handed to its queue at once. Per packet, in the burst's order and
// against running sums (the depth and held bytes this group will make):
// WRED/ECN at enqueue (forwarded packets, qos.ecn_mark: enqueue), a lossless
// queue in a PFC storm with action drop, the ingress PG's PFC headroom, the
// queue's tail-drop limit. Then, once per group: the PFC held bytes added,
// the queue's depth reserved and the mbufs handed over with one burst
// enqueue (egress_queue.h); whatever the queue still refused is released and
// dropped as queue_full.
#include "dataplane/forward/ecn_mark.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/stages.h"

namespace rocelb {
namespace {

void enqueue_group(Burst& b, uint16_t port, uint8_t tc, const uint16_t* idx, uint32_t cnt) {
  Dataplane& dp = b.dp;
  const SwitchConfig& cfg = b.cfg;
  const QosConfig& qos = cfg.qos;
  PfcGenerator& pfc = dp.pfc();
  PortTx& t = dp.tx(port);
  EgressQueue& q = t.queues[tc];
  PortCounters& oc = b.ws.port[port];
  QueueCounters& qc = b.ws.queue[port][tc];
  const bool lossless = qos.pfc.lossless(tc);
  const bool storm = lossless && ((t.storm_drop.load(std::memory_order_relaxed) >> tc) & 1);
  const bool wred = qos.mark_at_enqueue && qos.wred[tc].enabled;
  WredMarker& marker = b.ws.wred[port][tc];
  const uint64_t limit = cfg.ports[port].queue_limit[tc];
  // The lossless bytes of the whole switch, read once: dynamic thresholds
  // move with them, and qos.pfc.admission shared_pool lets a packet past
  // its PG's limit while they leave room in the pool.
  const uint64_t total =
      lossless && (qos.pfc.dynamic || qos.pfc.admit_by_pool) ? pfc.total_held_bytes(qos.pfc) : 0;
  const uint64_t pfc_limit = lossless ? pfc.admit_limit(qos.pfc, b.in_port, tc, total) : UINT64_MAX;
  uint64_t pool = lossless && qos.pfc.admit_by_pool ? total : UINT64_MAX;
  uint64_t depth = q.depth_bytes();
  PacketObserver* obs = dp.observer();
  uint64_t held = lossless ? pfc.held_bytes(b.in_port, tc) : 0;
  if (!dp.link_up(port)) {  // a connected host's link, or a route's port, is down
    for (uint32_t j = 0; j < cnt; ++j) b.drop(idx[j], oc, DropReason::link_down, tc);
    return;
  }

  rte_mbuf* keep[kMaxBurst];
  uint32_t len[kMaxBurst];
  uint32_t n = 0;
  uint64_t bytes = 0, lossless_drops = 0, full = 0, full_bytes = 0;
  for (uint32_t j = 0; j < cnt; ++j) {
    const uint16_t i = idx[j];
    rte_mbuf* m = b.pkts[i];
    const uint32_t l = m->pkt_len;
    if (wred && b.step[i] == Step::kForward) {
      const ParsedPacket& p = b.pp[i];
      const WredVerdict v = marker.decide(depth, l, p.ecn, lossless);
      if (v == WredVerdict::kDrop) {
        b.drop(i, oc, DropReason::wred_dropped, tc);
        continue;
      }
      if (v == WredVerdict::kMark) {
        mark_ce(rte_pktmbuf_mtod(m, uint8_t*) + p.l3_offset, p.ip_version);
        if (obs) obs->on_mark(m, port, tc, MarkWhere::kEnqueue, b.now_ns);
      }
    }
    if (storm) {  // the queue is in a PFC storm
      b.drop(i, oc, DropReason::pfc_watchdog_drop, tc);
      continue;
    }
    if (held + l > pfc_limit &&  // the ingress PG's headroom is exhausted
        (pool == UINT64_MAX || pool + l > qos.pfc.pool_limit_bytes)) {
      b.drop(i, b.ic, DropReason::lossless_dropped, tc);
      ++lossless_drops;
      continue;
    }
    if (depth + l > limit) {
      ++full;
      full_bytes += l;
      b.drop(i, oc, DropReason::queue_full, tc);
      continue;
    }
    depth += l;
    held += l;
    if (pool != UINT64_MAX) pool += l;
    bytes += l;
    len[n] = l;
    keep[n++] = m;
    b.step[i] = Step::kDone;
  }
  if (lossless_drops) pfc.count_lossless_drops(b.in_port, tc, lossless_drops);
  b.ws.touched_ports.add(port);
  if (n) {
    // Counted in before the hand-off: the TX owner may send them at once.
    pfc.add(b.in_port, tc, bytes);  // every class: pfc_enable may change while it is queued
    const uint64_t depth0 = q.depth_bytes(), packets0 = q.depth_packets();
    const uint32_t queued = q.enqueue_burst(keep, len, n, bytes, limit);
    uint64_t queued_bytes = bytes;
    for (uint32_t k = queued; k < n; ++k) {
      queued_bytes -= len[k];
      ++full;
      full_bytes += len[k];
      oc.drop(DropReason::queue_full);
      if (obs) obs->on_drop(keep[k], port, tc, DropReason::queue_full, b.now_ns);
      mbuf_free(keep[k]);
    }
    if (queued_bytes != bytes) pfc.release(b.in_port, tc, bytes - queued_bytes);
    if (obs) [[unlikely]] {  // single-threaded engines: nothing has left the queue yet
      uint64_t d = depth0;
      for (uint32_t k = 0; k < queued; ++k) {
        d += len[k];
        obs->on_enqueue(keep[k], b.in_port, port, tc, d, packets0 + k + 1, b.now_ns);
      }
    }
    qc.enqueued_packets += queued;
    qc.enqueued_bytes += queued_bytes;
  }
  if (full) {
    qc.dropped_packets += full;
    qc.dropped_bytes += full_bytes;
  }
}

}  // namespace

void enqueue_stage(Burst& b) {
  // Groups in order of their first packet; packets in burst order within.
  uint16_t gport[kMaxBurst];
  uint8_t gtc[kMaxBurst];
  uint16_t gsize[kMaxBurst];
  uint16_t members[kMaxBurst][kMaxBurst];
  uint16_t ngroups = 0;
  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kForward && b.step[i] != Step::kReply) continue;
    uint16_t g = 0;
    while (g < ngroups && (gport[g] != b.out_port[i] || gtc[g] != b.tc[i])) ++g;
    if (g == ngroups) {
      gport[g] = b.out_port[i];
      gtc[g] = b.tc[i];
      gsize[g] = 0;
      ++ngroups;
    }
    members[g][gsize[g]++] = i;
  }
  for (uint16_t g = 0; g < ngroups; ++g) enqueue_group(b, gport[g], gtc[g], members[g], gsize[g]);
}

}  // namespace rocelb
