#include "dataplane/dataplane.h"

#include <atomic>
#include <string>

namespace rocelb {
namespace {
std::atomic<uint64_t> g_dataplane_seq{0};
}

Dataplane::Dataplane(std::unique_ptr<SwitchConfig> config, unsigned num_workers,
                     unsigned ring_capacity, uint64_t shaper_burst_ps)
    : config_(std::move(config)) {
  const uint64_t seq = g_dataplane_seq.fetch_add(1);
  for (uint16_t id : config_->port_ids) {
    const PortConfig& pc = config_->ports[id];
    auto t = std::make_unique<PortTx>();
    for (int c = 0; c < kNumTrafficClasses; ++c) {
      std::string name =
          "rl_q" + std::to_string(seq) + "_" + std::to_string(id) + "_" + std::to_string(c);
      t->queues[c].init(name, ring_capacity, pc.queue_limit[c]);
      t->queue_ptrs[c] = &t->queues[c];
    }
    t->scheduler.configure(pc.strict_mask, pc.quantum);
    t->shaper.configure(pc.speed_bps, shaper_burst_ps);
    t->load = LoadMeter(pc.load_interval_ns, pc.load_alpha_q16);
    tx_[id] = std::move(t);
  }
  for (unsigned i = 0; i < (num_workers ? num_workers : 1); ++i) {
    auto w = std::make_unique<WorkerState>();
    for (const GroupConfig& g : config_->groups) {
      w->lb.push_back(std::make_unique<LbEngine>(g.spec, i));
      std::vector<MemberPath> paths(g.members.size());
      for (size_t k = 0; k < g.members.size(); ++k) {
        const PortConfig& mp = config_->ports[g.members[k].port];
        paths[k].speed_bps = mp.speed_bps;
        paths[k].up = mp.admin_up;
      }
      w->paths.push_back(std::move(paths));
    }
    workers_.push_back(std::move(w));
  }
}

Dataplane::~Dataplane() {
  flush();
}

uint16_t Dataplane::dequeue(uint16_t port, uint64_t now_ps, rte_mbuf** out, uint64_t* start_ps,
                            uint16_t max) {
  PortTx& t = *tx_[port];
  uint16_t n = 0;
  while (n < max && t.shaper.can_send(now_ps)) {
    rte_mbuf* head = nullptr;
    int c = t.scheduler.pick(t.queue_ptrs.data(), t.blocked, &head);
    if (c < 0) break;
    rte_mbuf* m = t.queues[c].pop();
    t.scheduler.sent(c, t.queues[c].empty());
    start_ps[n] = t.shaper.send(now_ps, m->pkt_len);
    out[n++] = m;
  }
  return n;
}

uint64_t Dataplane::flush() {
  uint64_t n = 0;
  for (auto& t : tx_)
    if (t)
      for (auto& q : t->queues) n += q.flush();
  return n;
}

Snapshot Dataplane::snapshot() const {
  Snapshot s;
  s.groups.resize(config_->groups.size());
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
      }
    }
    for (size_t g = 0; g < s.groups.size(); ++g) s.groups[g].add(w->lb[g]->counters());
  }
  for (size_t g = 0; g < s.groups.size(); ++g) {
    const size_t n = config_->groups[g].members.size();
    for (size_t k = 0; k < n; ++k) {
      const LbEngineCounters& c = s.groups[g];
      s.member.push_back({k < c.member_packets.size() ? c.member_packets[k] : 0,
                          k < c.member_bytes.size() ? c.member_bytes[k] : 0});
    }
  }
  for (uint16_t id : config_->port_ids) {
    const PortTx& t = *tx_[id];
    s.port[id][PortCounter::tx_packets] += t.tx_packets;
    s.port[id][PortCounter::tx_bytes] += t.tx_bytes;
    for (const auto& q : t.queues) s.queued_packets += q.depth_packets();
  }
  return s;
}

}  // namespace rocelb
