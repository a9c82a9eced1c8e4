// balance_stage: the packets routed to next-hop groups, one engine call per
// (group, depth source) and burst. A group whose mode compares paths gets
// its members' queue depths (the packets' class queue or the whole port, as
// quality.depth says) and transmit loads read once, into the worker's
// scratch; the engine adds the burst's own packets as it places them.
#include <cstring>

#include "dataplane/forward/stages.h"
#include "dataplane/wire/byte_order.h"
#include "lb/flow_hash.h"

namespace rocelb {
namespace {

inline void fill_flow_key(const ParsedPacket& p, const uint8_t* frame, uint32_t avail, FlowKey& k) {
  k.family = p.ip_version;
  // Both 16 bytes wide, an IPv4 address zero-padded in each: fixed-size
  // copies (two vector moves) instead of a length picked per packet.
  static_assert(sizeof k.src_ip == sizeof p.src_ip && sizeof k.dst_ip == sizeof p.dst_ip);
  std::memcpy(k.src_ip, p.src_ip, sizeof k.src_ip);
  std::memcpy(k.dst_ip, p.dst_ip, sizeof k.dst_ip);
  k.proto = p.proto;
  if (p.has_udp) {
    k.sport = p.sport;
    k.dport = p.dport;
  } else if (p.proto == 6 && !p.is_later_fragment && p.l4_offset + 4u <= avail) {
    k.sport = load_be16(frame + p.l4_offset);  // TCP ports
    k.dport = load_be16(frame + p.l4_offset + 2);
  }
  k.dest_qp = p.has_bth ? p.bth_dest_qp : 0;
}

// The group's members as the engine sees them for this burst: static state
// from the config, then depth and load when the mode compares them. `cls`
// is the class whose queues count, or -1 for the whole port.
MemberPath* member_paths(Burst& b, const GroupConfig& g, int cls) {
  MemberPath* paths = b.ws.paths.data();
  const size_t n = g.members.size();
  std::memcpy(paths, g.paths.data(), n * sizeof(MemberPath));
  if (const uint64_t down = b.dp.link_down_mask())  // a link down: that member is down
    for (size_t k = 0; k < n; ++k)
      if ((down >> g.members[k].port) & 1) paths[k].up = false;
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

}  // namespace

void balance_stage(Burst& b) {
  const SwitchConfig& cfg = b.cfg;
  DecisionLog* log = b.dp.decision_log();
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
    uint32_t cnt = 0;
    uint16_t next = b.n;
    for (uint16_t i = first; i < b.n; ++i) {
      if (!pending[i]) continue;
      if (cfg.nexthops[b.nh[i]].group != group || depth_class(g, b.tc[i]) != cls) {
        if (next == b.n) next = i;
        continue;
      }
      pending[i] = false;
      const rte_mbuf* m = b.pkts[i];
      FlowKey key;
      fill_flow_key(b.pp[i], rte_pktmbuf_mtod(m, const uint8_t*), m->data_len, key);
      if (log) log->keys()[cnt] = key;
      idx[cnt] = i;
      hashes[cnt] = flow_hash(key, g.spec.hash);
      bytes[cnt++] = m->pkt_len;
    }
    first = next;
    MemberPath* paths = member_paths(b, g, cls);
    LbEngine& engine = *b.epoch.workers[b.worker].engines[group];
    engine.select_burst(hashes, bytes, cnt, b.now_ns, paths, member,
                        log ? log->decisions() : nullptr);
    for (uint32_t j = 0; j < cnt; ++j) {
      const uint16_t i = idx[j];
      if (member[j] == kNoMember) {
        b.drop(i, DropReason::no_member_up);
        continue;
      }
      const GroupMember& mem = g.members[member[j]];
      if (log)
        log->write(b.now_ns, g.name, g.spec.mode, log->keys()[j], hashes[j], log->decisions()[j],
                   mem.port);
      b.out_port[i] = mem.port;
      b.out_mac[i] = mem.mac;
      b.step[i] = Step::kForward;
    }
  }
}

}  // namespace rocelb
