// balance_stage: the packets routed to next-hop groups, one engine call per
// (group, depth source) and burst. A group whose mode compares paths gets
// its members' queue depths (the packets' class queue or the whole port, as
// quality.depth says) and transmit loads read once, into the worker's
// scratch; the engine adds the burst's own packets as it places them.
#include <cstring>

#include "dataplane/forward/stages.h"
#include "dataplane/wire/flow_key_of.h"
#include "dataplane/wire/roce.h"
#include "lb/flow_hash.h"

namespace rocelb {
namespace {

// The group's members as the engine sees them for this burst: static state
// from the config, then depth and load when the mode compares them. `cls`
// is the class whose queues count, or -1 for the whole port.
MemberPath* member_paths(Burst& b, const GroupConfig& g, int cls) {
  MemberPath* paths = b.ws.paths.data();
  const size_t n = g.members.size();
  std::memcpy(paths, g.paths.data(), n * sizeof(MemberPath));
  if (!b.dp.all_links_up())  // a link down: that member is down
    for (size_t k = 0; k < n; ++k)
      if (!b.dp.link_up(g.members[k].port)) paths[k].up = false;
  if (!g.needs_depth) return paths;
  for (size_t k = 0; k < n; ++k) {
    const PortTx& t = b.dp.tx(g.members[k].port);
    paths[k].queue_bytes = cls < 0 ? t.depth_bytes() : t.queues[cls].depth_bytes();
    paths[k].load_bps = t.load_bps.load(std::memory_order_relaxed);
  }
  return paths;
}

// Which packets share one engine call: same group, and for a mode that
// reads per-class depths, the same class.
inline int depth_class(const GroupConfig& g, uint8_t tc) {
  return g.needs_depth && !g.depth_whole_port ? tc : -1;
}

// The packet as a bpf policy sees it (lb/bpf/rocelb_policy.h).
void packet_fields(const FlowKey& key, const ParsedPacket& pp, uint8_t tc, LbPacketFields& f) {
  f.family = key.family;
  f.proto = key.proto;
  f.tc = tc;
  f.src_port = key.sport;
  f.dst_port = key.dport;
  f.opcode = pp.has_bth ? pp.bth_opcode : 0xff;
  f.dest_qp = pp.has_bth ? pp.bth_dest_qp : 0;
  f.psn = pp.has_bth ? pp.bth_psn : 0;
  std::memcpy(f.src_ip, key.src_ip, 16);
  std::memcpy(f.dst_ip, key.dst_ip, 16);
}

// A RoCE ACK/NAK or CNP: what control_by_hash places by the flow hash.
bool is_roce_control(const ParsedPacket& pp) {
  return pp.has_bth && (pp.bth_opcode == kRoceOpRcAck || pp.bth_opcode == kRoceOpCnp);
}

// What mode conweave reroutes and marks: RoCEv2 data over IPv4 (ACK/NAKs,
// CNPs and anything else go by the flow hash, as in ConWeave's ns-3).
bool is_roce_data(const ParsedPacket& pp) {
  return pp.ip_version == 4 && pp.is_rocev2 && !is_roce_control(pp);
}

}  // namespace

void balance_stage(Burst& b) {
  const SwitchConfig& cfg = b.cfg;
  DecisionLog* log = b.dp.decision_log();
  PacketObserver* obs = b.dp.observer();
  // Why each member was chosen, when someone asks.
  LbDecision* why = log ? log->decisions() : obs ? obs->decisions() : nullptr;
  bool pending[kMaxBurst];
  uint16_t first = b.n;
  for (uint16_t i = 0; i < b.n; ++i) {
    pending[i] = b.step[i] == Step::kBalance;
    if (pending[i] && first == b.n) first = i;
  }
  while (first < b.n) {
    const uint32_t group = cfg.nexthops[b.nh[first]].group;
    const GroupConfig& g = cfg.groups[group];
    const int cls = depth_class(g, b.tc[first]);
    uint16_t idx[kMaxBurst];
    uint32_t hashes[kMaxBurst], bytes[kMaxBurst], member[kMaxBurst];
    LbPacketFields fields[kMaxBurst];  // mode bpf: what the policy sees
    // control_by_hash: a group's ACK/NAKs and CNPs are a batch of their own,
    // placed by the flow hash whatever the mode.
    const bool split = g.spec.knobs.control_by_hash && g.spec.mode != LbMode::kFixed;
    const bool ctrl = split && is_roce_control(b.pp[first]);
    // conweave: its data packets are a batch of their own.
    const bool cw = g.spec.mode == LbMode::kConWeave;
    const bool cw_data = cw && is_roce_data(b.pp[first]);
    const LbMode mode = ctrl ? LbMode::kFixed : g.spec.mode;
    const bool bpf = mode == LbMode::kBpf;
    // DRILL remembering per destination keys its memory by the destination.
    const bool by_dst = mode == LbMode::kDrill && g.spec.knobs.drill.per_destination;
    const HashConfig hash = by_dst ? HashConfig{g.spec.hash.seed, kHashDstIp} : g.spec.hash;
    uint32_t cnt = 0;
    uint16_t next = b.n;
    for (uint16_t i = first; i < b.n; ++i) {
      if (!pending[i]) continue;
      if (cfg.nexthops[b.nh[i]].group != group || depth_class(g, b.tc[i]) != cls ||
          (split && is_roce_control(b.pp[i]) != ctrl) || (cw && is_roce_data(b.pp[i]) != cw_data)) {
        if (next == b.n) next = i;
        continue;
      }
      pending[i] = false;
      const rte_mbuf* m = b.pkts[i];
      FlowKey key;
      flow_key_of(b.pp[i], rte_pktmbuf_mtod(m, const uint8_t*), m->data_len, key);
      if (log) log->keys()[cnt] = key;
      if (bpf) packet_fields(key, b.pp[i], b.tc[i], fields[cnt]);
      idx[cnt] = i;
      hashes[cnt] = flow_hash(key, hash);
      bytes[cnt++] = m->pkt_len;
    }
    first = next;
    MemberPath* paths = member_paths(b, g, cls);
    LbEngine& engine = *b.epoch.workers[b.worker].engines[group];
    if (cw_data) [[unlikely]]
      conweave_place(b, engine, idx, hashes, bytes, cnt, paths, member, why);
    else if (ctrl)
      engine.select_burst_by_hash(hashes, bytes, cnt, b.now_ns, paths, member, why);
    else
      engine.select_burst(hashes, bytes, cnt, b.now_ns, paths, member, why, bpf ? fields : nullptr);
    for (uint32_t j = 0; j < cnt; ++j) {
      const uint16_t i = idx[j];
      if (member[j] == kNoMember) {
        b.drop(i, DropReason::no_member_up);
        continue;
      }
      const GroupMember& mem = g.members[member[j]];
      if (log)
        log->write(b.now_ns, g.name, mode, log->keys()[j], hashes[j], log->decisions()[j],
                   mem.port);
      if (obs) obs->on_balance(b.pkts[i], g, why[j], mem.port, b.now_ns);
      b.out_port[i] = mem.port;
      b.out_mac[i] = mem.mac;
      b.step[i] = Step::kForward;
    }
  }
}

}  // namespace rocelb
