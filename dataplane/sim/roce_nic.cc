#include "dataplane/sim/roce_nic.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/constants.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/crc32.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/roce.h"
#include "dataplane/wire/udp.h"
#include "pfc/pause_receiver.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

// A free slot of `v` (a freed one first, else a new one at the end).
template <typename T>
uint32_t take_slot(std::vector<T>& v, std::vector<uint32_t>& free) {
  if (!free.empty()) {
    const uint32_t slot = free.back();
    free.pop_back();
    return slot;
  }
  v.emplace_back();
  return static_cast<uint32_t>(v.size() - 1);
}

constexpr uint32_t kPsnMask = 0xffffff;
constexpr uint64_t kNever = UINT64_MAX;
constexpr uint8_t kAethAck = 0x1f;  // ACK, credit count "invalid": credits not modelled
constexpr uint8_t kAethNakPsnSeqError = 0x60;
constexpr uint64_t kMinDoneKeepPs = 1'000'000'000;   // 1 ms
constexpr uint64_t kMaxMessage = uint64_t{1} << 31;  // IB: at most 2^31 bytes

// Headers of a RoCEv2/IPv4 data packet without extension headers, and the ICRC.
constexpr uint32_t kDataOverhead = kEthHeaderLen + 20 + kUdpHeaderLen + kBthLen + kIcrcLen;
// Offsets in an untagged RoCEv2/IPv4 frame without IP options.
constexpr uint32_t kIp = kEthHeaderLen;
constexpr uint32_t kUdp = kIp + kIpv4MinHeaderLen;
constexpr uint32_t kBth = kUdp + kUdpHeaderLen;
// The bytes a data frame of a given length may differ in that the ICRC
// covers: IPv4 destination, UDP header (its checksum stays 0), BTH.
constexpr uint32_t kVaryFrom = kIp + kIpv4DstOffset;
constexpr uint32_t kMaxVaryLen = kBth + kBthLen + kAethLen - kVaryFrom;  // an ACK's

// b - a in the 24-bit PSN space, as a signed distance.
int32_t psn_diff(uint32_t b, uint32_t a) {
  int32_t d = static_cast<int32_t>((b - a) & kPsnMask);
  return d >= 0x800000 ? d - 0x1000000 : d;
}

uint32_t psn_at(uint32_t ipsn, uint64_t idx) {
  return static_cast<uint32_t>((ipsn + idx) & kPsnMask);
}

bool later(const auto& a, const auto& b) {
  return a.t > b.t || (a.t == b.t && a.seq > b.seq);
}

bool is_data_opcode(uint8_t op) {
  return op <= kRoceOpRcSendOnlyImm || (op >= kRoceOpRcWriteFirst && op <= kRoceOpRcWriteOnlyImm);
}

}  // namespace

uint32_t roce_initial_psn(uint32_t requester_qpn, uint32_t responder_qpn) {
  const uint64_t v = ((uint64_t{requester_qpn} << 24) ^ responder_qpn) * 0x9E3779B97F4A7C15ull;
  return static_cast<uint32_t>(v >> 40) & kPsnMask;
}

uint16_t roce_default_sport(uint32_t qpn_a, uint32_t qpn_b) {
  uint64_t v = uint64_t{qpn_a} * qpn_b;
  v ^= v >> 20;
  v ^= v >> 40;
  const uint32_t label = static_cast<uint32_t>(v & 0xfffff);
  const uint32_t low = (label & 0x3fff) ^ ((label & 0xfc000) >> 14);
  return static_cast<uint16_t>(0xc000 | low);
}

RoceNic::RoceNic(const NicParams& p, const NicAddress& self)
    : p_(p), self_(self), pause_(std::make_unique<PauseReceiver>()) {
  if (self_.speed_bps == 0) throw std::invalid_argument("RoceNic: speed_bps must be above 0");
  if (p_.mtu == 0 || p_.mtu > 65000) throw std::invalid_argument("RoceNic: bad mtu");
  if (p_.ack_interval == 0) throw std::invalid_argument("RoceNic: ack_interval must be >= 1");
  if (p_.loss_recovery == LossRecovery::kSelectiveRepeat &&
      (p_.sr_window == 0 || p_.sr_window % 64 != 0))
    throw std::invalid_argument("RoceNic: sr_window must be a positive multiple of 64");
  if (p_.data_priority > 7 || p_.ack_prio() > 7 || p_.dcqcn.cnp_802p_prio > 7)
    throw std::invalid_argument("RoceNic: priorities are 0..7");
  if (p_.dcqcn.enabled && (p_.dcqcn.rpg_time_reset == 0 || p_.dcqcn.rpg_gd > 63))
    throw std::invalid_argument("RoceNic: bad dcqcn rpg_time_reset or rpg_gd");
  rto_ps_ = p_.retransmit_timeout_ps();
  done_keep_ps_ = std::max(4 * rto_ps_, kMinDoneKeepPs);
  ps_per_byte_ = exact_ps_per_byte(self_.speed_bps);
  max_frame_len_ = std::max<uint32_t>(kEthMinFrameLen, kDataOverhead + (p_.mtu + 3) / 4 * 4);
  spec_.dst_mac = self_.gateway_mac;
  spec_.src_mac = self_.mac;
  spec_.payload = FramePayload::kIpv4;
  store_be32(spec_.src_ip.data(), self_.ipv4);
  spec_.ttl = 64;
  spec_.df = true;
  spec_.dport = kRoceV2UdpPort;
  spec_.udp_checksum = false;
  spec_.icrc = true;
  scratch_.reserve(max_frame_len_ + 64);
  build_templates();
}

void RoceNic::make_template(const FrameSpec& spec, uint32_t vary_end, FrameTemplate& t) {
  build_frame(spec, t.bytes);
  t.vary_end = vary_end;
  // A(x): the raw CRC register x carried over the n bytes between vary_end
  // and the ICRC, which a δ confined to the headers leaves at zero.
  const uint32_t n = static_cast<uint32_t>(t.bytes.size()) - vary_end - kIcrcLen;
  t.advance.clear();
  if (n == 0) return;  // A is the identity
  const std::vector<uint8_t> zeros(n, 0);
  uint32_t basis[32];
  for (int j = 0; j < 32; ++j) basis[j] = crc32_update(uint32_t{1} << j, zeros.data(), n);
  t.advance.resize(8);
  for (int k = 0; k < 8; ++k)
    for (uint32_t b = 0; b < 16; ++b) {
      uint32_t v = 0;
      for (int i = 0; i < 4; ++i)
        if ((b >> i) & 1) v ^= basis[4 * k + i];
      t.advance[k][b] = v;
    }
}

void RoceNic::fix_icrc(const FrameTemplate& t, uint8_t* buf) {
  // The ICRC is affine in its input: crc(x ^ δ) = crc(x) ^ crc0(δ), and δ is
  // zero outside [kVaryFrom, vary_end) (masked fields are fed as 1s either
  // way).
  const uint8_t* tmpl = t.bytes.data();
  const uint32_t len = static_cast<uint32_t>(t.bytes.size());
  const uint32_t vary_len = t.vary_end - kVaryFrom;
  uint8_t delta[kMaxVaryLen];
  for (uint32_t i = 0; i < vary_len; ++i) delta[i] = buf[kVaryFrom + i] ^ tmpl[kVaryFrom + i];
  delta[kBth + kBthResv8aOffset - kVaryFrom] = 0;  // FECN/BECN: masked
  uint32_t fix = crc32_update(0, delta, vary_len);
  if (!t.advance.empty()) {
    uint32_t a = 0;
    for (int k = 0; k < 8; ++k) a ^= t.advance[k][(fix >> (4 * k)) & 0xf];
    fix = a;
  }
  store_le32(buf + len - kIcrcLen, load_le32(tmpl + len - kIcrcLen) ^ fix);
}

void RoceNic::build_templates() {
  // Data: every full-MTU frame differs from this one only in its headers.
  spec_.dscp = p_.data_dscp;
  spec_.ecn = kEcnEct0;
  spec_.opcode = kRoceOpRcSendMiddle;
  spec_.payload_len = p_.mtu;
  make_template(spec_, kBth + kBthLen, data_tmpl_);
  // ACK/NAK and CNP: not ECT, no AckReq; build_ctrl sets the rest.
  FrameSpec c = spec_;
  c.ecn = kEcnNotEct;
  c.ack_req = false;
  c.opcode = kRoceOpRcAck;
  c.payload_len = 0;
  c.aeth_syndrome = kAethAck;
  make_template(c, kBth + kBthLen + kAethLen, ack_tmpl_);
  c.opcode = kRoceOpCnp;
  c.payload_len = kCnpPayloadLen;
  make_template(c, kBth + kBthLen, cnp_tmpl_);
}

void RoceNic::patch_ip_udp(uint8_t* buf, uint8_t tos, uint32_t dst_ip, uint16_t sport) {
  uint8_t* ip = buf + kIp;
  ip[kIpv4TosOffset] = tos;
  store_be32(ip + kIpv4DstOffset, dst_ip);
  store_be16(ip + kIpv4ChecksumOffset, 0);
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, kIpv4MinHeaderLen));
  store_be16(buf + kUdp + kUdpSrcPortOffset, sport);
}

uint32_t RoceNic::patch_template(const SendQp& q, uint8_t opcode, bool ack_req, uint32_t psn,
                                 uint8_t* buf) const {
  const uint32_t len = static_cast<uint32_t>(data_tmpl_.bytes.size());
  std::memcpy(buf, data_tmpl_.bytes.data(), len);
  patch_ip_udp(buf, static_cast<uint8_t>(q.dscp << 2 | kEcnEct0), q.dst_ip, q.sport);
  uint8_t* bth = buf + kBth;
  bth[kBthOpcodeOffset] = opcode;
  store_be24(bth + kBthDestQpOffset, q.dst_qpn);
  bth[kBthAckReqOffset] = ack_req ? kBthAckReq : 0;
  store_be24(bth + kBthPsnOffset, psn);
  fix_icrc(data_tmpl_, buf);
  return len;
}

RoceNic::~RoceNic() = default;

// ---------------------------------------------------------------- timers

void RoceNic::push_timer(uint64_t t, uint32_t slot, uint32_t gen, uint8_t kind) {
  heap_.push_back(TimerEntry{t, seq_++, slot, gen, kind});
  std::push_heap(heap_.begin(), heap_.end(),
                 [](const TimerEntry& a, const TimerEntry& b) { return later(a, b); });
}

void RoceNic::arm(Timer& tm, uint64_t t, uint32_t slot, uint32_t gen, uint8_t kind) {
  tm.due = t;
  if (t < tm.sched) {
    push_timer(t, slot, gen, kind);
    tm.sched = t;
  }
}

void RoceNic::run_timers(uint64_t now_ps) {
  while (!heap_.empty() && heap_.front().t <= now_ps) {
    const TimerEntry e = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(),
                  [](const TimerEntry& a, const TimerEntry& b) { return later(a, b); });
    heap_.pop_back();
    Timer* tm;
    if (e.kind == kRxNak) {
      RecvQp& r = rq_[e.slot];
      if (!r.live || r.gen != e.gen) continue;
      tm = &r.nak_timer;
    } else {
      SendQp& q = sq_[e.slot];
      if (!q.live || q.gen != e.gen) continue;
      tm = &q.timers[e.kind];
    }
    if (tm->sched != e.t) continue;  // moved earlier: a newer entry is live
    tm->sched = kNever;
    if (tm->due == kNever) continue;  // disarmed
    if (tm->due > now_ps) {           // moved later
      push_timer(tm->due, e.slot, e.gen, e.kind);
      tm->sched = tm->due;
      continue;
    }
    tm->due = kNever;
    if (e.kind == kRxNak)
      fire_rx_nak(rq_[e.slot], e.slot, now_ps);
    else
      fire_tx(sq_[e.slot], e.slot, e.kind, now_ps);
  }
}

void RoceNic::fire_tx(SendQp& q, uint32_t slot, uint8_t kind, uint64_t now_ps) {
  switch (kind) {
    case kTxRate:
      q.waiting_rate = false;
      make_sendable(q, slot, now_ps);
      break;
    case kTxRto:
      if (q.una >= q.max) break;
      ++counters_.timeouts;
      if (p_.loss_recovery == LossRecovery::kGoBackN) {
        q.nxt = q.una;
      } else {
        q.retx.push_back(q.una);
        q.recover = q.max;
      }
      arm(q.timers[kTxRto], now_ps + rto_ps_, slot, q.gen, kTxRto);
      make_sendable(q, slot, now_ps);
      break;
    case kTxCc: {
      const uint64_t cuts = q.rp.cuts();
      const bool changed = q.rp.on_timer(now_ps);
      counters_.rate_cuts += q.rp.cuts() - cuts;
      rearm_cc(q, slot);
      if (changed) rate_changed(q, slot, now_ps);
      break;
    }
    default:
      break;
  }
}

// ---------------------------------------------------------------- sender

void RoceNic::start_flow(uint64_t flow_id, uint32_t qpn, uint32_t dst_ipv4, uint32_t dst_qpn,
                         uint16_t sport, uint8_t dscp, uint64_t size, uint64_t now_ps) {
  if (qpn > kPsnMask || dst_qpn > kPsnMask)
    throw std::invalid_argument("RoceNic::start_flow: QPNs are 24 bits");
  if (senders_.contains(qpn))
    throw std::invalid_argument("RoceNic::start_flow: QP " + std::to_string(qpn) +
                                " already sends a flow");
  if (flow_index_.count(flow_id))
    throw std::invalid_argument("RoceNic::start_flow: flow " + std::to_string(flow_id) +
                                " is already known");
  if (size > kMaxMessage)
    throw std::invalid_argument("RoceNic::start_flow: a message is at most 2^31 bytes");
  const uint32_t slot = take_slot(sq_, sq_free_);
  SendQp& q = sq_[slot];
  std::vector<uint64_t> retx = std::move(q.retx);
  retx.clear();
  const uint32_t gen = q.gen + 1;
  q = SendQp();
  q.gen = gen;
  q.retx = std::move(retx);
  q.live = true;
  q.qpn = qpn;
  q.dst_ip = dst_ipv4;
  q.dst_qpn = dst_qpn;
  q.sport = sport != 0 ? sport : roce_default_sport(qpn, dst_qpn);
  q.dscp = dscp <= 63 ? dscp : p_.data_dscp;
  q.size = size;
  q.npkts = size == 0 ? 1 : (size + p_.mtu - 1) / p_.mtu;
  q.ipsn = roce_initial_psn(qpn, dst_qpn);
  q.next_allowed_ps = now_ps;
  q.rp.reset(&p_.dcqcn, self_.speed_bps);
  q.stats.flow_id = flow_id;
  q.stats.start_ps = now_ps;
  q.stats.size = size;
  senders_.set(qpn, slot);
  flow_index_[flow_id] = slot;
  ++counters_.flows_started;
  last_now_ps_ = std::max(last_now_ps_, now_ps);
  make_sendable(q, slot, now_ps);
}

uint64_t RoceNic::qp_rate_bps(const SendQp& q) const {
  return p_.dcqcn.enabled ? q.rp.rate_bps() : self_.speed_bps;
}

void RoceNic::make_sendable(SendQp& q, uint32_t slot, uint64_t now_ps) {
  if (q.in_ready || q.waiting_rate || !sendable(q)) return;
  if (q.next_allowed_ps <= now_ps) {
    ready_.push_back({slot, q.gen});
    q.in_ready = true;
  } else {
    q.waiting_rate = true;
    arm(q.timers[kTxRate], q.next_allowed_ps, slot, q.gen, kTxRate);
  }
}

void RoceNic::rate_changed(SendQp& q, uint32_t slot, uint64_t now_ps) {
  if (q.last_wire_bytes == 0) return;  // nothing sent yet: no pacing pending
  q.next_allowed_ps = q.last_start_ps + tx_ps(q.last_wire_bytes, qp_rate_bps(q));
  if (!q.waiting_rate) return;  // in the ready ring (checked when taken), or idle
  if (q.next_allowed_ps <= now_ps) {
    q.waiting_rate = false;
    q.timers[kTxRate].due = kNever;
    make_sendable(q, slot, now_ps);
  } else {
    arm(q.timers[kTxRate], q.next_allowed_ps, slot, q.gen, kTxRate);
  }
}

void RoceNic::rearm_cc(SendQp& q, uint32_t slot) {
  const uint64_t t = q.rp.next_timer_ps();
  if (t == kNever)
    q.timers[kTxCc].due = kNever;
  else
    arm(q.timers[kTxCc], t, slot, q.gen, kTxCc);
}

void RoceNic::rearm_rto(SendQp& q, uint32_t slot, uint64_t now_ps) {
  if (rto_ps_ == 0) return;
  if (q.una < q.max)
    arm(q.timers[kTxRto], now_ps + rto_ps_, slot, q.gen, kTxRto);
  else
    q.timers[kTxRto].due = kNever;
}

uint32_t RoceNic::send_data(SendQp& q, uint32_t slot, uint64_t now_ps, uint8_t* buf) {
  uint64_t idx = kNever;
  while (q.retx_head < q.retx.size()) {
    const uint64_t i = q.retx[q.retx_head++];
    if (i >= q.una && i < q.max) {
      idx = i;
      break;
    }
  }
  if (q.retx_head >= q.retx.size()) {
    q.retx.clear();
    q.retx_head = 0;
  }
  if (idx == kNever) {
    if (q.nxt >= q.npkts || !window_open(q)) return 0;
    idx = q.nxt++;
  }
  const bool last = idx + 1 == q.npkts;
  const uint32_t payload =
      last ? static_cast<uint32_t>(q.size - idx * p_.mtu) : static_cast<uint32_t>(p_.mtu);
  uint8_t op;
  if (q.npkts == 1)
    op = kRoceOpRcSendOnly;
  else if (idx == 0)
    op = kRoceOpRcSendFirst;
  else if (last)
    op = kRoceOpRcSendLast;
  else
    op = kRoceOpRcSendMiddle;
  uint32_t len;
  if (payload == p_.mtu) {
    len = patch_template(q, op, last, psn_at(q.ipsn, idx), buf);
  } else {
    store_be32(spec_.dst_ip.data(), q.dst_ip);
    spec_.dscp = q.dscp;
    spec_.ecn = kEcnEct0;
    spec_.sport = q.sport;
    spec_.opcode = op;
    spec_.dest_qp = q.dst_qpn;
    spec_.ack_req = last;
    spec_.psn = psn_at(q.ipsn, idx);
    spec_.payload_len = payload;
    build_frame(spec_, scratch_);
    len = static_cast<uint32_t>(scratch_.size());
    std::memcpy(buf, scratch_.data(), len);
  }

  if (idx < q.max) {
    ++q.stats.retransmitted_packets;
    ++counters_.retransmitted_packets;
  }
  q.max = std::max(q.max, idx + 1);
  ++q.stats.packets;
  ++counters_.data_packets_sent;
  counters_.data_bytes_sent += payload;
  if (rto_ps_ != 0 && q.timers[kTxRto].due == kNever)
    arm(q.timers[kTxRto], now_ps + rto_ps_, slot, q.gen, kTxRto);
  if (p_.dcqcn.enabled && q.rp.on_sent(len, now_ps)) rearm_cc(q, slot);
  q.last_start_ps = now_ps;
  q.last_wire_bytes = p_.framing.bytes(len);
  q.next_allowed_ps = now_ps + tx_ps(q.last_wire_bytes, qp_rate_bps(q));
  if (sendable(q)) {
    if (q.next_allowed_ps <= now_ps + wire_ps(len)) {
      ready_.push_back({slot, q.gen});
      q.in_ready = true;
    } else {
      q.waiting_rate = true;
      arm(q.timers[kTxRate], q.next_allowed_ps, slot, q.gen, kTxRate);
    }
  }
  return len;
}

void RoceNic::on_ack(const ParsedPacket& pp, const uint8_t* frame, uint64_t now_ps) {
  const uint8_t syndrome = frame[pp.bth_offset + kBthLen];
  const uint8_t type = syndrome >> 5;
  if (type == 0) {
    ++counters_.acks_received;
  } else if (type == 3) {
    ++counters_.naks_received;
  } else {
    ++counters_.rx_ignored;  // RNR NAK and reserved codes: not produced by this model
    return;
  }
  const uint32_t* found = senders_.find(pp.bth_dest_qp);
  if (!found) {
    ++counters_.rx_unknown_qp;
    return;
  }
  const uint32_t slot = *found;
  SendQp& q = sq_[slot];
  if (load_be32(pp.src_ip) != q.dst_ip) {
    ++counters_.rx_unknown_qp;
    return;
  }
  if (pp.bth_becn) {  // the receiver saw a CE mark (cnp_mode ack)
    ++counters_.becn_acks_received;
    congestion_notified(q, slot, now_ps);
  }
  const int32_t d = psn_diff(pp.bth_psn, psn_at(q.ipsn, q.una));
  if (type == 0) {
    if (d < 0 || q.una + static_cast<uint64_t>(d) >= q.max) return;  // old, or not sent
    q.una += static_cast<uint64_t>(d) + 1;
    if (q.una >= q.npkts) {
      complete(q, slot, now_ps);
      return;
    }
    q.nxt = std::max(q.nxt, q.una);
    rearm_rto(q, slot, now_ps);
    // The ACK may reopen the in-flight cap's window.
    if (p_.max_inflight_bytes != 0) make_sendable(q, slot, now_ps);
    if (q.una < q.recover) {
      // After a timeout every packet below `recover` is old: a partial ACK
      // names the next one the receiver lacks (NewReno's partial ACK).
      q.retx.push_back(q.una);
      make_sendable(q, slot, now_ps);
    }
    return;
  }
  if (p_.loss_recovery == LossRecovery::kGoBackN) {
    // Acknowledges everything before the PSN, resends from it.
    if (d < 0 || q.una + static_cast<uint64_t>(d) > q.max) return;
    q.una += static_cast<uint64_t>(d);
    q.nxt = q.una;
    rearm_rto(q, slot, now_ps);
  } else {
    // Names one missing packet.
    if (d < 0 || q.una + static_cast<uint64_t>(d) >= q.max) return;
    q.retx.push_back(q.una + static_cast<uint64_t>(d));
  }
  make_sendable(q, slot, now_ps);
}

void RoceNic::on_cnp(const ParsedPacket& pp, uint64_t now_ps) {
  ++counters_.cnps_received;
  const uint32_t* found = senders_.find(pp.bth_dest_qp);
  if (!found) {
    ++counters_.rx_unknown_qp;
    return;
  }
  congestion_notified(sq_[*found], *found, now_ps);
}

// A CNP, or an ACK/NAK with BECN, for the sending QP in `slot`.
void RoceNic::congestion_notified(SendQp& q, uint32_t slot, uint64_t now_ps) {
  ++q.stats.cnps_received;
  if (!p_.dcqcn.enabled) return;
  const uint64_t cuts = q.rp.cuts();
  q.rp.on_cnp(now_ps);
  const uint64_t cut = q.rp.cuts() - cuts;
  counters_.rate_cuts += cut;
  rearm_cc(q, slot);
  if (cut) rate_changed(q, slot, now_ps);
}

void RoceNic::complete(SendQp& q, uint32_t slot, uint64_t now_ps) {
  q.stats.finish_ps = now_ps;
  q.stats.finished = true;
  completed_.push_back(q.stats);
  flow_index_[q.stats.flow_id] = -1 - static_cast<int64_t>(completed_.size() - 1);
  senders_.erase(q.qpn);
  q.live = false;
  q.in_ready = q.waiting_rate = false;
  q.retx.clear();
  q.retx_head = 0;
  sq_free_.push_back(slot);
  ++counters_.flows_completed;
  forget_stale_timers();
}

void RoceNic::forget_stale_timers() {
  // Every timer and ready entry belongs to a live QP: with none left, what
  // remains is stale and would only wake the NIC for nothing.
  if (!senders_.empty() || !receivers_.empty()) return;
  heap_.clear();
  while (!ready_.empty()) ready_.pop_front();
}

std::vector<NicFlowStats> RoceNic::take_completed() {
  std::vector<NicFlowStats> out;
  out.swap(completed_);
  for (const NicFlowStats& s : out) flow_index_.erase(s.flow_id);
  return out;
}

const NicFlowStats* RoceNic::flow(uint64_t flow_id) const {
  const auto it = flow_index_.find(flow_id);
  if (it == flow_index_.end()) return nullptr;
  if (it->second >= 0) return &sq_[static_cast<size_t>(it->second)].stats;
  return &completed_[static_cast<size_t>(-1 - it->second)];
}

uint32_t RoceNic::current_rate_mbps(uint32_t qpn) const {
  const uint32_t* slot = senders_.find(qpn);
  if (!slot) return 0;
  return static_cast<uint32_t>(qp_rate_bps(sq_[*slot]) / kMbps);
}

// ---------------------------------------------------------------- receiver

void RoceNic::accept_flow(uint32_t qpn, uint32_t src_ipv4, uint32_t src_qpn, uint16_t sport,
                          uint8_t dscp, uint64_t size) {
  if (qpn > kPsnMask || src_qpn > kPsnMask)
    throw std::invalid_argument("RoceNic::accept_flow: QPNs are 24 bits");
  if (receivers_.contains(qpn))
    throw std::invalid_argument("RoceNic::accept_flow: QP " + std::to_string(qpn) +
                                " already receives a flow");
  if (size > kMaxMessage)
    throw std::invalid_argument("RoceNic::accept_flow: a message is at most 2^31 bytes");
  rx_done_.erase(qpn);
  const uint32_t slot = take_slot(rq_, rq_free_);
  RecvQp& r = rq_[slot];
  std::vector<uint64_t> bitmap = std::move(r.bitmap);
  const uint32_t gen = r.gen + 1;
  r = RecvQp();
  r.gen = gen;
  r.bitmap = std::move(bitmap);
  if (p_.loss_recovery == LossRecovery::kSelectiveRepeat) r.bitmap.assign(p_.sr_window / 64, 0);
  r.live = true;
  r.qpn = qpn;
  r.src_ip = src_ipv4;
  r.src_qpn = src_qpn;
  r.sport = sport != 0 ? sport : roce_default_sport(src_qpn, qpn);
  r.ack_dscp = p_.ack_dscp.value_or(dscp <= 63 ? dscp : p_.data_dscp);
  r.npkts = size == 0 ? 1 : (size + p_.mtu - 1) / p_.mtu;
  r.ipsn = roce_initial_psn(src_qpn, qpn);
  receivers_.set(qpn, slot);
}

bool RoceNic::sr_held(const RecvQp& r, uint64_t idx) const {
  const uint64_t b = idx % p_.sr_window;
  return (r.bitmap[b / 64] >> (b % 64)) & 1;
}

void RoceNic::sr_set(RecvQp& r, uint64_t idx, bool on) {
  const uint64_t b = idx % p_.sr_window;
  if (on)
    r.bitmap[b / 64] |= uint64_t{1} << (b % 64);
  else
    r.bitmap[b / 64] &= ~(uint64_t{1} << (b % 64));
}

void RoceNic::queue_ack(RecvQp& r) {
  r.since_ack = 0;
  Ring<Ctrl>& f = ctrl_[p_.ack_prio()];
  const uint32_t psn = psn_at(r.ipsn, r.e - 1);
  const uint32_t msn = r.e >= r.npkts ? 1 : 0;
  if (r.ack_abs != kNever && f.holds(r.ack_abs)) {  // still queued: bring it up to date
    Ctrl& c = f.at(r.ack_abs);
    c.psn = psn;
    c.msn = msn;
    c.becn = c.becn || r.becn;
    r.becn = false;
    return;
  }
  Ctrl c;
  c.seq = seq_++;
  c.kind = CtrlKind::kAck;
  c.dst_ip = r.src_ip;
  c.dst_qpn = r.src_qpn;
  c.psn = psn;
  c.msn = msn;
  c.sport = r.sport;
  c.dscp = r.ack_dscp;
  c.syndrome = kAethAck;
  c.becn = r.becn;
  r.becn = false;
  r.ack_abs = push_ctrl(p_.ack_prio(), c);
}

void RoceNic::queue_nak(RecvQp& r, uint64_t idx) {
  Ctrl c;
  c.seq = seq_++;
  c.kind = CtrlKind::kNak;
  c.dst_ip = r.src_ip;
  c.dst_qpn = r.src_qpn;
  c.psn = psn_at(r.ipsn, idx);
  c.msn = 0;
  c.sport = r.sport;
  c.dscp = r.ack_dscp;
  c.syndrome = kAethNakPsnSeqError;
  c.becn = r.becn;
  r.becn = false;
  push_ctrl(p_.ack_prio(), c);
  // An ACK queued before this NAK is not updated past it: the sender would
  // read "received up to here" first and this NAK as stale.
  r.ack_abs = kNever;
}

// A CE mark (or, with cnp_on_nak, an out-of-order NAK) for the receiving
// QP r: BECN in its next ACK/NAK (cnp_mode ack), else a CNP frame unless
// the last went less than min_time_between_cnps ago.
void RoceNic::congestion_seen(RecvQp& r, uint64_t now_ps) {
  if (p_.dcqcn.cnp_in_ack)
    r.becn = true;
  else if (r.np.on_ce(p_.dcqcn, now_ps))
    queue_cnp(r.src_ip, r.src_qpn, r.sport);
  else
    ++counters_.cnps_suppressed;
}

void RoceNic::queue_cnp(uint32_t dst_ip, uint32_t dst_qpn, uint16_t sport) {
  Ctrl c;
  c.seq = seq_++;
  c.kind = CtrlKind::kCnp;
  c.dst_ip = dst_ip;
  c.dst_qpn = dst_qpn;
  c.sport = sport;
  c.dscp = p_.dcqcn.cnp_dscp;
  push_ctrl(p_.dcqcn.cnp_802p_prio, c);
}

void RoceNic::on_data(const ParsedPacket& pp, uint64_t now_ps) {
  const uint32_t src_ip = load_be32(pp.src_ip);
  const uint32_t* found = receivers_.find(pp.bth_dest_qp);
  if (!found) {
    const auto d = rx_done_.find(pp.bth_dest_qp);
    if (d == rx_done_.end() || d->second.src_ip != src_ip) {
      ++counters_.rx_unknown_qp;
      return;
    }
    // A late duplicate of a finished flow: its ACK was lost or slow.
    RxDone& done = d->second;
    ++counters_.data_packets_received;
    ++counters_.duplicates_received;
    ++counters_.spurious_retransmissions;
    Ctrl c;
    c.seq = seq_++;
    c.kind = CtrlKind::kAck;
    c.dst_ip = done.src_ip;
    c.dst_qpn = done.src_qpn;
    c.psn = done.last_psn;
    c.msn = 1;
    c.sport = done.sport;
    c.dscp = done.ack_dscp;
    c.syndrome = kAethAck;
    push_ctrl(p_.ack_prio(), c);
    done.expiry_ps = now_ps + done_keep_ps_;
    done_fifo_.push_back({done.expiry_ps, pp.bth_dest_qp});
    return;
  }
  const uint32_t slot = *found;
  RecvQp& r = rq_[slot];
  if (src_ip != r.src_ip) {
    ++counters_.rx_unknown_qp;
    return;
  }
  ++counters_.data_packets_received;
  if (pp.ecn == kEcnCe && p_.dcqcn.enabled) congestion_seen(r, now_ps);
  const int32_t d = psn_diff(pp.bth_psn, psn_at(r.ipsn, r.e));
  if (d < 0) {
    ++counters_.duplicates_received;
    ++counters_.spurious_retransmissions;
    if (r.e > 0) queue_ack(r);
    return;
  }
  const bool sr = p_.loss_recovery == LossRecovery::kSelectiveRepeat;
  if (d == 0) {
    const uint32_t ext = roce_ext_headers_len(pp.bth_opcode);
    const uint32_t hdr = pp.bth_offset + kBthLen + ext + pp.bth_pad + kIcrcLen;
    counters_.data_bytes_accepted += pp.ip_end > hdr ? pp.ip_end - hdr : 0;
    // Filling a hole (go-back-N: the packet NAKed; selective repeat: one
    // below held packets) is ACKed at once, whatever ack_interval says.
    const bool filled = r.e == r.nak_e || (sr && r.high > r.e);
    ++r.e;
    uint32_t advanced = 1;
    if (sr) {
      while (r.e < r.high && sr_held(r, r.e)) {
        sr_set(r, r.e, false);
        ++r.e;
        ++advanced;
      }
    }
    r.since_ack += advanced;
    if (r.e >= r.npkts) {
      finish_receive(r, slot, now_ps);
      return;
    }
    if (pp.bth_ack_req || filled || r.since_ack >= p_.ack_interval) queue_ack(r);
    if (sr && r.e >= r.high) {
      r.nak_timer.due = kNever;
      r.next_gap_ps = kNever;
    }
    return;
  }
  ++counters_.out_of_order_received;
  if (!sr) {
    ++counters_.out_of_order_dropped;
    const bool again = p_.nak_interval_ns != 0 && now_ps >= r.nak_ps + p_.nak_interval_ns * 1000;
    if (r.nak_e != r.e || again) {
      if (p_.dcqcn.cnp_on_nak && p_.dcqcn.enabled) {
        ++counters_.naks_telling_congestion;
        congestion_seen(r, now_ps);  // before the NAK: with cnp_mode ack it carries it
      }
      queue_nak(r, r.e);
      r.nak_e = r.e;
      r.nak_ps = now_ps;
    }
    return;
  }
  if (static_cast<uint64_t>(d) >= p_.sr_window) {
    ++counters_.out_of_order_dropped;
    return;
  }
  const uint64_t idx = r.e + static_cast<uint64_t>(d);
  if (sr_held(r, idx)) {
    ++counters_.spurious_retransmissions;
    return;
  }
  {
    const uint32_t ext = roce_ext_headers_len(pp.bth_opcode);
    const uint32_t hdr = pp.bth_offset + kBthLen + ext + pp.bth_pad + kIcrcLen;
    counters_.data_bytes_accepted += pp.ip_end > hdr ? pp.ip_end - hdr : 0;
  }
  sr_set(r, idx, true);
  r.high = std::max(r.high, idx + 1);
  if (r.nak_timer.due == kNever) {
    r.nak_boundary = r.high;
    r.next_gap_ps = kNever;
    arm(r.nak_timer, now_ps + p_.sr_nak_delay_ns * 1000, slot, r.gen, kRxNak);
  } else if (r.high > r.nak_boundary && r.next_gap_ps == kNever) {
    r.next_gap_ps = now_ps;
  }
}

void RoceNic::fire_rx_nak(RecvQp& r, uint32_t slot, uint64_t now_ps) {
  // NAK every hole below the boundary that has lasted sr_nak_delay.
  const uint64_t to = std::min(r.nak_boundary, r.e + p_.sr_window);
  for (uint64_t x = std::max(r.e, r.naked_below); x < to; ++x) {
    if (sr_held(r, x)) continue;
    if (p_.dcqcn.cnp_on_nak && p_.dcqcn.enabled) {  // IRN's SACK with a CNP
      ++counters_.naks_telling_congestion;
      congestion_seen(r, now_ps);
    }
    queue_nak(r, x);
  }
  r.naked_below = std::max(r.naked_below, r.nak_boundary);
  if (r.e < r.high && r.high > r.naked_below) {
    // Holes opened later: their turn comes sr_nak_delay after the first.
    const uint64_t since = r.next_gap_ps != kNever ? r.next_gap_ps : now_ps;
    r.nak_boundary = r.high;
    r.next_gap_ps = kNever;
    arm(r.nak_timer, std::max(now_ps, since + p_.sr_nak_delay_ns * 1000), slot, r.gen, kRxNak);
  }
}

void RoceNic::finish_receive(RecvQp& r, uint32_t slot, uint64_t now_ps) {
  queue_ack(r);
  ++counters_.flows_received;
  RxDone d;
  d.src_ip = r.src_ip;
  d.src_qpn = r.src_qpn;
  d.last_psn = psn_at(r.ipsn, r.npkts - 1);
  d.sport = r.sport;
  d.ack_dscp = r.ack_dscp;
  d.expiry_ps = now_ps + done_keep_ps_;
  rx_done_[r.qpn] = d;
  done_fifo_.push_back({d.expiry_ps, r.qpn});
  receivers_.erase(r.qpn);
  r.live = false;
  rq_free_.push_back(slot);
  forget_stale_timers();
}

void RoceNic::purge_done(uint64_t now_ps) {
  while (!done_fifo_.empty() && done_fifo_.front().first <= now_ps) {
    const auto [expiry, qpn] = done_fifo_.front();
    done_fifo_.pop_front();
    const auto it = rx_done_.find(qpn);
    if (it != rx_done_.end() && it->second.expiry_ps == expiry) rx_done_.erase(it);
  }
}

// ---------------------------------------------------------------- wire

uint64_t RoceNic::wire_ps(uint32_t bytes) const {
  const uint64_t wire = p_.framing.bytes(bytes);
  if (ps_per_byte_) return wire * ps_per_byte_;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(wire) * kPsBits / self_.speed_bps);
}

uint64_t RoceNic::tx_ps(uint32_t wire_bytes, uint64_t rate_bps) const {
  if (rate_bps == 0) rate_bps = 1;
  return static_cast<uint64_t>(static_cast<unsigned __int128>(wire_bytes) * kPsBits / rate_bps);
}

uint64_t RoceNic::resume_ps(uint8_t prio) const {
  return pause_->paused_until_ns(prio) * 1000;
}

uint32_t RoceNic::build_ctrl(const Ctrl& c, uint8_t* buf) {
  const FrameTemplate& t = c.kind == CtrlKind::kCnp ? cnp_tmpl_ : ack_tmpl_;
  const uint32_t len = static_cast<uint32_t>(t.bytes.size());
  std::memcpy(buf, t.bytes.data(), len);
  patch_ip_udp(buf, static_cast<uint8_t>(c.dscp << 2 | kEcnNotEct), c.dst_ip, c.sport);
  uint8_t* bth = buf + kBth;
  store_be24(bth + kBthDestQpOffset, c.dst_qpn);
  store_be24(bth + kBthPsnOffset, c.psn);
  if (c.kind == CtrlKind::kCnp) {
    ++counters_.cnps_sent;
  } else {
    uint8_t* aeth = bth + kBthLen;
    aeth[0] = c.syndrome;
    store_be24(aeth + 1, c.msn);
    if (c.becn) {
      bth[kBthResv8aOffset] |= kBthBecn;
      ++counters_.becn_acks_sent;
    }
    if (c.kind == CtrlKind::kAck)
      ++counters_.acks_sent;
    else
      ++counters_.naks_sent;
  }
  fix_icrc(t, buf);
  return len;
}

void RoceNic::receive(const uint8_t* frame, uint32_t len, uint64_t now_ps) {
  last_now_ps_ = std::max(last_now_ps_, now_ps);
  ++counters_.rx_frames;
  counters_.rx_bytes += len;
  ParsedPacket pp;
  if (parse_frame(frame, len, len, pp) != ParseResult::ok) {
    ++counters_.rx_malformed;
    return;
  }
  if (pp.kind == L3Kind::kMacControl) {
    const uint64_t now_ns = (now_ps + 999) / 1000;  // a pause never ends early
    if (pp.mac_control_opcode == kPfcOpcode) {
      ++counters_.pfc_frames_received;
      pause_->on_pfc(pp.pfc_class_enable, pp.pfc_quanta, now_ns, self_.speed_bps);
    } else if (pp.mac_control_opcode == kPauseOpcode) {
      ++counters_.pause_frames_received;
      pause_->on_pause(pp.pause_quanta, now_ns, self_.speed_bps);
    } else {
      ++counters_.rx_ignored;
    }
    return;
  }
  if (pp.ip_version != 0 && pp.ecn == kEcnCe) ++counters_.ce_received;
  if (!pp.is_rocev2 || pp.ip_version != 4 || load_be32(pp.dst_ip) != self_.ipv4) {
    ++counters_.rx_ignored;
    return;
  }
  const uint8_t op = pp.bth_opcode;
  if (is_data_opcode(op)) {
    on_data(pp, now_ps);
  } else if (op == kRoceOpRcAck) {
    if (uint32_t{pp.bth_offset} + kBthLen + kAethLen > pp.ip_end) {
      ++counters_.rx_malformed;
      return;
    }
    on_ack(pp, frame, now_ps);
  } else if (op == kRoceOpCnp) {
    on_cnp(pp, now_ps);
  } else {
    ++counters_.rx_ignored;
  }
}

uint64_t RoceNic::next_wakeup_ps() const {
  uint64_t t = heap_.empty() ? kNever : heap_.front().t;
  uint64_t s = kNever;
  for (uint32_t m = ctrl_mask_; m != 0; m &= m - 1)
    s = std::min(s, resume_ps(static_cast<uint8_t>(__builtin_ctz(m))));
  if (!ready_.empty()) s = std::min(s, resume_ps(p_.data_priority));
  if (s != kNever) s = std::max(s, wire_free_ps_);
  return std::min(t, s);
}

uint32_t RoceNic::poll(uint64_t now_ps, uint8_t* buf, uint32_t cap, uint64_t* start_ps) {
  last_now_ps_ = std::max(last_now_ps_, now_ps);
  run_timers(now_ps);
  purge_done(now_ps);
  if (wire_free_ps_ > now_ps) return 0;
  if (cap < max_frame_len_) {
    ++counters_.tx_buffer_too_small;
    return 0;
  }
  const uint8_t paused = pause_->paused_mask(now_ps / 1000);
  int best = -1;
  uint64_t best_seq = kNever;
  for (uint32_t m = ctrl_mask_ & ~uint32_t{paused}; m != 0; m &= m - 1) {
    const int pr = __builtin_ctz(m);
    if (ctrl_[pr].front().seq < best_seq) {
      best = pr;
      best_seq = ctrl_[pr].front().seq;
    }
  }
  uint32_t len = 0;
  if (best >= 0) {
    const Ctrl c = ctrl_[best].front();
    ctrl_[best].pop_front();
    if (ctrl_[best].empty()) ctrl_mask_ &= static_cast<uint8_t>(~(1u << best));
    len = build_ctrl(c, buf);
  } else if (!((paused >> p_.data_priority) & 1)) {
    while (len == 0 && !ready_.empty()) {
      const auto [slot, gen] = ready_.front();
      ready_.pop_front();
      SendQp& q = sq_[slot];
      if (!q.live || q.gen != gen) continue;
      q.in_ready = false;
      if (q.next_allowed_ps > now_ps) {  // its rate fell since it queued
        make_sendable(q, slot, now_ps);
        continue;
      }
      len = send_data(q, slot, now_ps, buf);
    }
  }
  if (len == 0) return 0;
  wire_free_ps_ = now_ps + wire_ps(len);
  ++counters_.tx_frames;
  counters_.tx_bytes += len;
  if (start_ps) *start_ps = now_ps;
  return len;
}

const NicCounters& RoceNic::counters() const {
  for (int p = 0; p < 8; ++p)
    counters_.paused_ps[p] = pause_->pause_ns(p, last_now_ps_ / 1000) * 1000;
  return counters_;
}

uint64_t RoceNic::state_bytes() const {
  auto vec = [](const auto& v) { return v.capacity() * sizeof(v[0]); };
  auto map = [](const auto& m) {
    using Entry = typename std::decay_t<decltype(m)>::value_type;
    return m.size() * (sizeof(Entry) + 2 * sizeof(void*)) + m.bucket_count() * sizeof(void*);
  };
  uint64_t b = sizeof(*this) + vec(sq_) + vec(sq_free_) + vec(rq_) + vec(rq_free_) +
               vec(completed_) + vec(heap_) + vec(scratch_) + senders_.bytes() +
               receivers_.bytes() + map(rx_done_) + map(flow_index_) +
               done_fifo_.capacity() * sizeof(std::pair<uint64_t, uint32_t>) +
               ready_.capacity() * sizeof(std::pair<uint32_t, uint32_t>);
  for (const auto& c : ctrl_) b += c.capacity() * sizeof(Ctrl);
  for (const FrameTemplate* t : {&data_tmpl_, &ack_tmpl_, &cnp_tmpl_})
    b += vec(t->bytes) + vec(t->advance);
  for (const SendQp& q : sq_) b += vec(q.retx);
  for (const RecvQp& r : rq_) b += vec(r.bitmap);
  return b;
}

}  // namespace rocelb
