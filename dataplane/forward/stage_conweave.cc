// Mode conweave in the pipeline (dataplane/wire/conweave_shim.h is the
// header, lb/conweave_source.h and lb/conweave_dest.h the decisions):
//
//   conweave_place   the source ToR: its group places each RoCE data packet
//                    and ConWeave's header goes in after the IPv4 header
//   conweave_stage   every switch with a conweave group, for what it
//                    delivers to a connected host (a connected route): a
//                    data packet's header comes off, the destination ToR's
//                    reorder queue may hold it, and an RTT request, a TAIL
//                    or a CE mark makes a reply, clear or notify (run
//                    through the pipeline when the burst is done, from the
//                    port the data came in on); a reply or notify is the
//                    source ToR's: handed to the group that routes the
//                    flow's destination, and consumed
//   conweave_flush   held packets whose time came, through the pipeline
//                    again from their ingress ports
//
// Counters (per port): generated_conweave (the ingress port of the data
// that asked), consumed_conweave, drops conweave_unmatched; the reorder
// queues' own (ConWeaveDestCounters) per worker.
#include <cstring>

#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/pipeline.h"
#include "dataplane/forward/stages.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/conweave_shim.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/parser.h"
#include "lb/flow_hash.h"

namespace rocelb {
namespace {

// The destination ToR's flow table is keyed by the 5-tuple, whatever the
// groups hash.
constexpr HashConfig kDestHash{0x636f6e7765617665ull, kHashFiveTuple};

void fix_ipv4(uint8_t* ip, uint8_t proto, int delta) {
  ip[kIpv4ProtoOffset] = proto;
  store_be16(ip + kIpv4TotalLenOffset,
             static_cast<uint16_t>(load_be16(ip + kIpv4TotalLenOffset) + delta));
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, (ip[0] & 0x0fu) * 4u));
}

// Takes the header off packet i and parses it again: a RoCEv2 packet as
// its source sent it (TTL aside).
void strip(Burst& b, uint16_t i) {
  rte_mbuf* m = b.pkts[i];
  ParsedPacket& p = b.pp[i];
  uint8_t* f = rte_pktmbuf_mtod(m, uint8_t*);
  std::memmove(f + kConWeaveShimLen, f, p.l4_offset);
  rte_pktmbuf_adj(m, kConWeaveShimLen);
  f = rte_pktmbuf_mtod(m, uint8_t*);
  fix_ipv4(f + p.l3_offset, kIpProtoUdp, -static_cast<int>(kConWeaveShimLen));
  parse_frame(f, m->data_len, m->pkt_len, p);
}

// A reply, clear or notify for the flow of packet i (its addresses and
// UDP ports swapped), addressed to the ingress port's MAC so that the
// pipeline takes it in from there.
bool make_control(Burst& b, uint16_t i, const ConWeaveShim& in, ConWeaveKind kind, uint16_t epoch,
                  uint8_t phase) {
  WorkerState& ws = b.ws;
  rte_mempool* pool = b.dp.control_pool();
  if (!pool || ws.conweave_out_n == ws.conweave_out.size()) return false;
  rte_mbuf* r = mbuf_alloc(pool);
  if (!r) return false;
  auto* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_append(r, kConWeaveControlFrameLen));
  if (!f) {
    mbuf_free(r);
    return false;
  }
  const ParsedPacket& p = b.pp[i];
  const uint8_t* data = rte_pktmbuf_mtod(b.pkts[i], const uint8_t*);
  std::memset(f, 0, kConWeaveControlFrameLen);
  std::memcpy(f, b.iport.mac, 6);
  std::memcpy(f + 6, b.iport.mac, 6);
  store_be16(f + 12, 0x0800);
  uint8_t* ip = f + 14;
  ip[0] = 0x45;
  ip[kIpv4TosOffset] = static_cast<uint8_t>(b.cfg.conweave_knobs.reply_dscp << 2);
  store_be16(ip + kIpv4TotalLenOffset, 20 + kConWeaveShimLen + 4);
  store_be16(ip + kIpv4FragOffset, kIpv4FlagDf);
  ip[kIpv4TtlOffset] = 64;
  std::memcpy(ip + kIpv4SrcOffset, p.dst_ip, 4);
  std::memcpy(ip + kIpv4DstOffset, p.src_ip, 4);
  ConWeaveShim s;
  s.kind = kind;
  s.phase = phase;
  s.path = in.path;
  s.epoch = epoch;
  s.flow = in.flow;
  write_conweave_shim(ip + 20, s);
  const uint8_t* udp = data + p.l4_offset + kConWeaveShimLen;
  std::memcpy(ip + 20 + kConWeaveShimLen, udp + 2, 2);  // source port: the flow's destination
  std::memcpy(ip + 20 + kConWeaveShimLen + 2, udp, 2);
  fix_ipv4(ip, kIpProtoConWeave, 0);
  r->port = b.in_port;
  ws.conweave_out[ws.conweave_out_n++] = r;
  ++b.ic[PortCounter::generated_conweave];
  return true;
}

// The destination ToR: a marked data packet for a host behind this port.
void deliver(Burst& b, uint16_t i, const ConWeaveShim& s) {
  const ParsedPacket& p = b.pp[i];
  rte_mbuf* m = b.pkts[i];
  const uint8_t* f = rte_pktmbuf_mtod(m, const uint8_t*);
  if (p.l4_offset + kConWeaveShimLen + 8 > m->data_len) {  // no UDP header: not ours to mend
    b.drop(i, DropReason::conweave_unmatched);
    return;
  }
  FlowKey key;
  std::memcpy(key.src_ip, p.src_ip, 4);
  std::memcpy(key.dst_ip, p.dst_ip, 4);
  key.family = 4;
  key.proto = kIpProtoUdp;
  key.sport = load_be16(f + p.l4_offset + kConWeaveShimLen);
  key.dport = load_be16(f + p.l4_offset + kConWeaveShimLen + 2);
  ConWeaveDest::Packet in;
  static_cast<ConWeaveMark&>(in) = s;
  in.flow = flow_hash(key, kDestHash);
  in.ce = p.ecn == 3;
  in.out_port = b.out_port[i];
  ConWeaveDest& dest = *b.ws.conweave;
  const ConWeaveDest::Verdict v = dest.on_data(in, b.now_ns, b.cfg.conweave_knobs);
  if (v.reply != ConWeaveKind::kData) make_control(b, i, s, v.reply, v.reply_epoch, v.reply_phase);
  if (v.notify) make_control(b, i, s, ConWeaveKind::kNotify, s.epoch, s.phase);
  strip(b, i);
  if (v.deadline_moved) b.ws.touched_ports.add(b.out_port[i]);
  if (v.hold && dest.hold(in.flow, m, b.in_port)) {
    b.ws.conweave_held = dest.held_now();
    b.step[i] = Step::kDone;  // it waits; the flush runs it through again
  }
}

// The source ToR: a reply or notify for a flow it sends through a
// conweave group (the group that routes the flow's destination, which is
// the frame's source).
void take_back(Burst& b, uint16_t i, const ConWeaveShim& s) {
  const ParsedPacket& p = b.pp[i];
  uint32_t dst = load_be32(p.src_ip);
  uint64_t nh = 0;
  b.cfg.routes->lookup_v4(&dst, &nh, 1);
  const NextHop& hop = b.cfg.nexthops[static_cast<uint32_t>(nh)];
  if (hop.kind != NextHopKind::kGroup || b.cfg.groups[hop.group].spec.mode != LbMode::kConWeave) {
    b.drop(i, DropReason::conweave_unmatched);
    return;
  }
  LbEngine& engine = *b.epoch.workers[b.worker].engines[hop.group];
  if (s.kind == ConWeaveKind::kNotify)
    engine.conweave_notify(s.path, b.now_ns);
  else
    engine.conweave_reply(s.flow, s.kind, s.epoch, s.phase, b.now_ns);
  ++b.ic[PortCounter::consumed_conweave];
  b.consume(i);
}

void put_header(Burst& b, uint16_t i, uint32_t member, uint32_t flow_hash,
                const ConWeaveMark& mark) {
  rte_mbuf* m = b.pkts[i];
  ParsedPacket& p = b.pp[i];
  uint8_t* old = rte_pktmbuf_mtod(m, uint8_t*);
  // No headroom (a chained or foreign mbuf): it goes on unmarked, as a
  // packet of a flow ConWeave does not see.
  auto* f = reinterpret_cast<uint8_t*>(rte_pktmbuf_prepend(m, kConWeaveShimLen));
  if (!f) return;
  std::memmove(f, old, p.l4_offset);
  ConWeaveShim s;
  static_cast<ConWeaveMark&>(s) = mark;
  s.path = static_cast<uint8_t>(member);
  s.flow = flow_hash;
  write_conweave_shim(f + p.l4_offset, s);
  fix_ipv4(f + p.l3_offset, kIpProtoConWeave, static_cast<int>(kConWeaveShimLen));
  // What later stages read of it: the frame's start, the IP length.
  p.dst_mac = f;
  p.src_mac = f + 6;
  p.proto = kIpProtoConWeave;
  p.ip_end = static_cast<uint16_t>(p.ip_end + kConWeaveShimLen);
}

}  // namespace

void conweave_place(Burst& b, LbEngine& engine, const uint16_t* idx, const uint32_t* hashes,
                    const uint32_t* bytes, uint32_t cnt, const MemberPath* paths, uint32_t* member,
                    LbDecision* why) {
  for (uint32_t j = 0; j < cnt; ++j) {
    ConWeaveMark m;
    member[j] =
        engine.select_conweave(hashes[j], bytes[j], b.now_ns, paths, m, why ? &why[j] : nullptr);
    if (member[j] != kNoMember) put_header(b, idx[j], member[j], hashes[j], m);
  }
}

void conweave_stage(Burst& b) {
  for (uint16_t i = 0; i < b.n; ++i) {
    if (b.step[i] != Step::kForward) continue;
    const ParsedPacket& p = b.pp[i];
    if (p.ip_version != 4 || p.proto != kIpProtoConWeave) continue;
    // Only where it leaves the fabric for a host; between switches the
    // header stays.
    if (b.cfg.nexthops[b.nh[i]].kind != NextHopKind::kConnected) continue;
    const rte_mbuf* m = b.pkts[i];
    ConWeaveShim s;
    if (p.l4_offset + kConWeaveShimLen > m->data_len ||
        !read_conweave_shim(rte_pktmbuf_mtod(m, const uint8_t*) + p.l4_offset, s)) {
      b.drop(i, DropReason::conweave_unmatched);
      continue;
    }
    if (is_conweave_data(s.kind)) {
      if (b.ws.conweave) deliver(b, i, s);
    } else {
      take_back(b, i, s);
    }
  }
}

uint32_t Dataplane::conweave_flush(unsigned w, int port, uint64_t now_ns, PortSet* in_ports) {
  WorkerState& ws = *workers_[w];
  if (!ws.conweave || ws.conweave->held_now() == 0) return 0;
  rte_mbuf* batch[kMaxBurst];
  uint16_t n = 0, from = 0;
  auto send = [&] {
    if (n) reprocess_burst(*this, w, from, batch, n, now_ns);
    n = 0;
  };
  const uint32_t flushed =
      ws.conweave->flush_due(now_ns, port, [&](uint16_t, void* pkt, uint16_t in_port) {
        if (n == kMaxBurst || (n && in_port != from)) send();
        from = in_port;
        batch[n++] = static_cast<rte_mbuf*>(pkt);
        if (in_ports) in_ports->add(in_port);
      });
  send();
  ws.conweave_held = ws.conweave->held_now();
  return flushed;
}

}  // namespace rocelb
