// The hosts' RoCE NIC model (dataplane/sim/roce_nic.h): two NICs back to
// back on a tiny in-test wire (a propagation delay, and a shim that can
// drop, swap or CE-mark frames). A flow's completion time, the frames it
// puts on the wire (valid RoCEv2 by rocelb's parser, ICRC included), ACK
// coalescing, go-back-N and selective repeat under loss and reordering, the
// retransmission timer, DCQCN with CNPs, PFC, and the NIC's knobs loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <queue>
#include <set>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "common/constants.h"
#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/roce_nic.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/roce.h"
#include "frame_spec_of.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint64_t kG = 1'000'000'000;
constexpr uint64_t kUs = 1'000'000;  // ps
constexpr uint64_t kNs = 1'000;

NicAddress address(uint8_t id, uint64_t speed) {
  NicAddress a;
  a.mac = {0x02, 0x00, 0x0a, 0x00, id, 0x02};
  a.gateway_mac = {0x02, 0x00, 0x01, 0x00, 0x00, id};
  a.ipv4 = 0x0a000002u | (uint32_t{id} << 8);  // 10.0.id.2
  a.speed_bps = speed;
  return a;
}

uint64_t wire_ps(uint64_t len, uint64_t speed) {
  return (len + kWireOverheadBytes) * 8 * 1'000'000'000'000ull / speed;
}

// What the shim does with a frame a NIC sent.
enum class Verdict { kDeliver, kDrop, kHoldForSwap };

struct Sent {
  uint64_t start = 0;
  int from = 0;
  std::vector<uint8_t> bytes;
};

ParsedPacket parse(const std::vector<uint8_t>& f) {
  ParsedPacket pp;
  parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), pp);
  return pp;
}

bool is_data(const ParsedPacket& pp) {
  return pp.result == ParseResult::ok && pp.has_bth && pp.bth_opcode <= kRoceOpRcSendOnly;
}

// NIC 0 (a) and NIC 1 (b) joined by a wire of `delay` each way; b sends at
// speed_b when given (else at `speed`, as a).
class Link {
 public:
  Link(const NicParams& pa, const NicParams& pb, uint64_t speed = 100 * kG,
       uint64_t delay = 1 * kUs, uint64_t speed_b = 0)
      : a(pa, address(1, speed)),
        b(pb, address(2, speed_b ? speed_b : speed)),
        speed_(speed),
        speed_b_(speed_b ? speed_b : speed),
        delay_(delay) {}
  explicit Link(const NicParams& p) : Link(p, p) {}

  RoceNic a, b;
  std::function<Verdict(int from, std::vector<uint8_t>& frame, uint64_t start)> shim;
  std::vector<Sent> log;  // every frame either NIC sent
  uint64_t now = 0;
  uint64_t poll_ns = 0, receive_ns = 0;       // wall time inside the NICs
  uint64_t poll_data_ns = 0, polls_data = 0;  // of poll_ns: polls that sent a data frame
  bool time_nics = false;

  RoceNic& nic(int i) { return i == 0 ? a : b; }

  // A flow of `size` bytes from a to b (or b to a) on QPs qpn → qpn + 0x100.
  void flow(uint64_t id, uint64_t size, uint32_t qpn = 0x11, bool from_a = true) {
    RoceNic& s = from_a ? a : b;
    RoceNic& r = from_a ? b : a;
    const uint32_t dst_qpn = qpn + 0x100;
    r.accept_flow(dst_qpn, s.address().ipv4, qpn, 0, 26, size);
    s.start_flow(id, qpn, r.address().ipv4, dst_qpn, 0, RoceNic::kDefaultDscp, size, now);
  }

  void deliver_at(int to, std::vector<uint8_t> bytes, uint64_t t) {
    wire_.push(InFlight{t, seq_++, to, std::move(bytes)});
  }

  // Runs until nothing is left to do or t_end.
  void run(uint64_t t_end = UINT64_MAX) {
    std::vector<uint8_t> buf(16384);
    for (uint64_t guard = 0;; ++guard) {
      ASSERT_LT(guard, 100'000'000u) << "the event loop does not end";
      const uint64_t tw = wire_.empty() ? UINT64_MAX : wire_.top().t;
      const uint64_t t = std::min({tw, a.next_wakeup_ps(), b.next_wakeup_ps()});
      if (t == UINT64_MAX || t > t_end) {
        if (t_end != UINT64_MAX) now = std::max(now, t_end);
        return;
      }
      now = std::max(now, t);
      while (!wire_.empty() && wire_.top().t <= now) {
        const InFlight f = wire_.top();
        wire_.pop();
        timed(receive_ns, [&] {
          nic(f.to).receive(f.bytes.data(), static_cast<uint32_t>(f.bytes.size()), f.t);
        });
      }
      for (int i = 0; i < 2; ++i) {
        if (nic(i).next_wakeup_ps() > now) continue;
        uint64_t start = 0;
        uint32_t len = 0;
        const uint64_t before = poll_ns;
        timed(poll_ns, [&] {
          len = nic(i).poll(now, buf.data(), static_cast<uint32_t>(buf.size()), &start);
        });
        if (len == 0) continue;
        if (len > 100) {
          poll_data_ns += poll_ns - before;
          ++polls_data;
        }
        EXPECT_EQ(start, now);
        std::vector<uint8_t> frame(buf.begin(), buf.begin() + len);
        log.push_back(Sent{start, i, frame});
        const Verdict v = shim ? shim(i, frame, start) : Verdict::kDeliver;
        const uint64_t at = start + wire_ps(len, i == 0 ? speed_ : speed_b_) + delay_;
        if (v == Verdict::kDrop) continue;
        if (v == Verdict::kHoldForSwap) {
          held_[i] = frame;
          continue;
        }
        deliver_at(1 - i, frame, at);
        if (held_[i]) {  // the held frame arrives right behind this one
          deliver_at(1 - i, *held_[i], at + 1);
          held_[i].reset();
        }
      }
    }
  }

  // The data frames `from` sent, parsed.
  std::vector<ParsedPacket> data_frames(int from) const {
    std::vector<ParsedPacket> out;
    for (const Sent& s : log) {
      if (s.from != from) continue;
      ParsedPacket pp = parse(s.bytes);
      if (is_data(pp)) out.push_back(pp);
    }
    return out;
  }

 private:
  template <typename Fn>
  void timed(uint64_t& acc, Fn fn) {
    if (!time_nics) return fn();
    const auto t0 = std::chrono::steady_clock::now();
    fn();
    acc += static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
            .count());
  }

  struct InFlight {
    uint64_t t, seq;
    int to;
    std::vector<uint8_t> bytes;
    bool operator>(const InFlight& o) const { return t > o.t || (t == o.t && seq > o.seq); }
  };
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> wire_;
  std::optional<std::vector<uint8_t>> held_[2];
  uint64_t seq_ = 0;
  uint64_t speed_, speed_b_, delay_;
};

// Index of a data packet in its flow from its PSN.
uint64_t packet_index(const ParsedPacket& pp, uint32_t ipsn) {
  return (pp.bth_psn - ipsn) & 0xffffff;
}

uint32_t ipsn_of(uint32_t qpn) {
  return roce_initial_psn(qpn, qpn + 0x100);
}

void mark_ce(std::vector<uint8_t>& f) {
  uint8_t* ip = f.data() + kEthHeaderLen;
  ip[kIpv4TosOffset] = static_cast<uint8_t>(ip[kIpv4TosOffset] | kEcnCe);
  store_be16(ip + kIpv4ChecksumOffset, 0);
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, kIpv4MinHeaderLen));
}

// The ICRC as rocelb computes it, against the one in the frame.
bool icrc_ok(const std::vector<uint8_t>& f) {
  const ParsedPacket pp = parse(f);
  if (!pp.has_bth) return false;
  const uint8_t* l3 = f.data() + pp.l3_offset;
  const uint32_t len = pp.ip_end - pp.l3_offset - kIcrcLen;
  const uint32_t got = load_le32(f.data() + pp.ip_end - kIcrcLen);
  return got == roce_icrc(l3, pp.bth_offset - pp.l3_offset, len, IcrcL3::kIpv4);
}

// The frame build_frame makes for the data packet `pp` describes.
std::vector<uint8_t> rebuilt(const ParsedPacket& pp) {
  FrameSpec spec = test::frame_spec_of(pp);
  spec.payload_len = pp.ip_end - pp.bth_offset - kBthLen - pp.bth_pad - kIcrcLen;
  return build_frame(spec);
}

uint32_t data_frame_len(uint32_t payload) {
  return std::max<uint32_t>(60, 58 + payload + (4 - payload % 4) % 4);
}

// The first send of data packet `index` of the flow on QP 0x11 from a is
// lost on the wire (dropped set); everything else is delivered.
void drop_data_once(Link& link, uint64_t index, bool& dropped) {
  const uint32_t ipsn = ipsn_of(0x11);
  link.shim = [ipsn, index, &dropped](int from, std::vector<uint8_t>& f, uint64_t) {
    const ParsedPacket pp = parse(f);
    if (from == 0 && is_data(pp) && packet_index(pp, ipsn) == index && !dropped) {
      dropped = true;
      return Verdict::kDrop;
    }
    return Verdict::kDeliver;
  };
}

// A 200 KB flow from a whose data packet 10 is lost once; it completes.
void run_losing_packet_10(Link& link) {
  bool dropped = false;
  drop_data_once(link, 10, dropped);
  link.flow(1, 200 * 1024);
  link.run();
  EXPECT_TRUE(dropped);
  EXPECT_EQ(link.a.take_completed().size(), 1u);
}

TEST(RoceNic, OneMegabyteFlowFinishesAtSerializationPlusRtt) {
  NicParams p;
  Link link(p);
  const uint64_t size = 1'000'000;
  link.flow(7, size);
  link.run();
  const std::vector<NicFlowStats> done = link.a.take_completed();
  ASSERT_EQ(done.size(), 1u);
  const uint64_t n = (size + 1023) / 1024;
  EXPECT_EQ(done[0].flow_id, 7u);
  EXPECT_TRUE(done[0].finished);
  EXPECT_EQ(done[0].packets, n);
  EXPECT_EQ(done[0].retransmitted_packets, 0u);
  // Back to back at line rate, then the last packet's delay, the ACK, its delay.
  uint64_t expect = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const uint32_t payload = i + 1 < n ? 1024 : static_cast<uint32_t>(size - i * 1024);
    expect += wire_ps(data_frame_len(payload), 100 * kG);
  }
  expect += 1 * kUs + wire_ps(62, 100 * kG) + 1 * kUs;
  const double fct = static_cast<double>(done[0].finish_ps - done[0].start_ps);
  EXPECT_NEAR(fct, static_cast<double>(expect), expect * 0.01);
  EXPECT_GE(fct, static_cast<double>(expect));
  std::printf("[ fct      ] 1 MB at 100G, 1 us each way: %.3f us (serialization + RTT %.3f us)\n",
              fct / 1e6, expect / 1e6);
  // Idle right after: no stale timer (the 67 ms retransmission timer) wakes it.
  EXPECT_EQ(link.a.next_wakeup_ps(), UINT64_MAX);
  EXPECT_EQ(link.b.next_wakeup_ps(), UINT64_MAX);
  EXPECT_LT(link.now, done[0].finish_ps + 1 * kUs);
  EXPECT_EQ(link.b.counters().acks_sent, n);  // ack_interval 1
  EXPECT_EQ(link.a.counters().acks_received, n);
  EXPECT_EQ(link.b.counters().data_bytes_accepted, size);
  EXPECT_EQ(link.b.counters().flows_received, 1u);
  // Both ends free the QP; the receiver keeps a small record for late duplicates.
  EXPECT_EQ(link.a.sending_qps(), 0u);
  EXPECT_EQ(link.b.receiving_qps(), 0u);
  EXPECT_EQ(link.b.finished_receive_records(), 1u);
  EXPECT_EQ(link.a.flow(7), nullptr);  // taken
  uint64_t start = 0;
  std::vector<uint8_t> buf(16384);
  // Kept max(4 × the retransmission timeout, 1 ms) = 268 ms without duplicates.
  EXPECT_EQ(link.b.poll(link.now + 200'000 * kUs, buf.data(), 16384, &start), 0u);
  EXPECT_EQ(link.b.finished_receive_records(), 1u);
  EXPECT_EQ(link.b.poll(link.now + 300'000 * kUs, buf.data(), 16384, &start), 0u);
  EXPECT_EQ(link.b.finished_receive_records(), 0u);
}

// max_inflight (IRN's BDP cap): a new packet starts only while fewer than
// the cap's payload bytes are in flight past the oldest unacknowledged one,
// so over a long round trip the flow moves a window per RTT.
TEST(RoceNic, InFlightCapHoldsNewPacketsToAWindowPerRoundTrip) {
  NicParams p;
  p.max_inflight_bytes = 16 * 1024;  // 16 packets of 1 KB
  p.loss_recovery = LossRecovery::kSelectiveRepeat;
  const uint64_t delay = 10 * kUs;  // 20 us round trip: 250 KB at 100G
  Link link(p, p, 100 * kG, delay);
  const uint64_t size = 1'000'000;
  link.flow(7, size);
  link.run();
  const std::vector<NicFlowStats> done = link.a.take_completed();
  ASSERT_EQ(done.size(), 1u);
  EXPECT_EQ(done[0].retransmitted_packets, 0u);
  // At every data frame a sent, the ACKs that had reached it: the new
  // packet is at most the 16th past the oldest unacknowledged one.
  const uint32_t ipsn = ipsn_of(0x11);
  uint64_t checked = 0;
  for (const Sent& d : link.log) {
    if (d.from != 0) continue;
    const ParsedPacket dp = parse(d.bytes);
    if (!is_data(dp)) continue;
    uint64_t una = 0;
    for (const Sent& k : link.log) {
      if (k.from != 1) continue;
      const uint64_t arrives = k.start + wire_ps(k.bytes.size(), 100 * kG) + delay;
      if (arrives > d.start) continue;
      una = std::max(una, packet_index(parse(k.bytes), ipsn) + 1);
    }
    EXPECT_LE(packet_index(dp, ipsn), una + 15) << "at " << d.start;
    ++checked;
  }
  EXPECT_EQ(checked, (size + 1023) / 1024);
  // About 16 KB per 20 us round trip (6.5 Gb/s): far from line rate.
  const double fct_us = static_cast<double>(done[0].finish_ps - done[0].start_ps) / 1e6;
  const double window_rtt_us = static_cast<double>(size) / (16 * 1024) * 20.0;
  EXPECT_NEAR(fct_us, window_rtt_us, window_rtt_us * 0.1);
  // Without the cap the same flow is done in about 100 us.
  NicParams open = p;
  open.max_inflight_bytes = 0;
  Link free_link(open, open, 100 * kG, delay);
  free_link.flow(7, size);
  free_link.run();
  const std::vector<NicFlowStats> free_done = free_link.a.take_completed();
  ASSERT_EQ(free_done.size(), 1u);
  EXPECT_LT(static_cast<double>(free_done[0].finish_ps - free_done[0].start_ps) / 1e6, 110.0);
}

TEST(RoceNic, FramesAreValidRoceV2WithConsecutivePsns) {
  NicParams p;
  Link link(p);
  link.flow(1, 20 * 1024 + 100, 0x33);
  link.run();
  const std::vector<ParsedPacket> data = link.data_frames(0);
  ASSERT_EQ(data.size(), 21u);
  const uint32_t ipsn = ipsn_of(0x33);
  for (size_t i = 0; i < data.size(); ++i) {
    const ParsedPacket& pp = data[i];
    EXPECT_EQ(pp.result, ParseResult::ok);
    EXPECT_TRUE(pp.is_rocev2);
    EXPECT_EQ(pp.num_vlans, 0);
    EXPECT_EQ(pp.dscp, 26);
    EXPECT_EQ(pp.ecn, kEcnEct0);
    EXPECT_EQ(pp.dport, kRoceV2UdpPort);
    EXPECT_EQ(pp.sport, roce_default_sport(0x33, 0x133));
    EXPECT_EQ(pp.bth_dest_qp, 0x133u);
    EXPECT_EQ(pp.bth_psn, (ipsn + i) & 0xffffff) << i;
    EXPECT_EQ(pp.bth_ack_req, i + 1 == data.size());
    const uint8_t op = i == 0 ? kRoceOpRcSendFirst
                              : (i + 1 == data.size() ? kRoceOpRcSendLast : kRoceOpRcSendMiddle);
    EXPECT_EQ(pp.bth_opcode, op) << i;
    EXPECT_EQ(load_be32(pp.src_ip), link.a.address().ipv4);
    EXPECT_EQ(load_be32(pp.dst_ip), link.b.address().ipv4);
    EXPECT_TRUE(std::equal(pp.dst_mac, pp.dst_mac + 6, link.a.address().gateway_mac.begin()));
    EXPECT_TRUE(std::equal(pp.src_mac, pp.src_mac + 6, link.a.address().mac.begin()));
  }
  // Byte for byte what build_frame makes (full-MTU frames are patched copies).
  for (const Sent& s : link.log) {
    const ParsedPacket pp = parse(s.bytes);
    if (s.from == 0) {
      EXPECT_EQ(s.bytes, rebuilt(pp)) << pp.bth_psn;
    }
  }
  size_t frames = 0, acks = 0;
  for (const Sent& s : link.log) {
    ++frames;
    EXPECT_TRUE(icrc_ok(s.bytes)) << "frame " << frames;
    EXPECT_TRUE(ipv4_checksum_ok(s.bytes.data() + kEthHeaderLen));
    if (s.from == 1) {
      const ParsedPacket pp = parse(s.bytes);
      EXPECT_EQ(pp.bth_opcode, kRoceOpRcAck);
      EXPECT_EQ(pp.bth_dest_qp, 0x33u);
      EXPECT_EQ(s.bytes[pp.bth_offset + kBthLen], 0x1f);  // AETH: ACK
      EXPECT_EQ(pp.bth_psn, (ipsn + acks) & 0xffffff);
      EXPECT_EQ(pp.sport, roce_default_sport(0x33, 0x133));
      EXPECT_EQ(pp.dscp, 26);
      EXPECT_EQ(s.bytes.size(), 62u);
      ++acks;
    }
  }
  EXPECT_EQ(acks, 21u);
  EXPECT_EQ(frames, 42u);
  // A one-packet message is a SEND_ONLY with AckReq.
  Link one(p);
  one.flow(2, 100);
  one.run();
  const std::vector<ParsedPacket> only = one.data_frames(0);
  ASSERT_EQ(only.size(), 1u);
  EXPECT_EQ(only[0].bth_opcode, kRoceOpRcSendOnly);
  EXPECT_TRUE(only[0].bth_ack_req);
  EXPECT_EQ(one.a.take_completed().size(), 1u);
}

TEST(RoceNic, PsnsWrapAt24Bits) {
  uint32_t qpn = 0x100;
  while (ipsn_of(qpn) < 0xffffff - 300) ++qpn;  // a pair whose PSNs wrap soon
  NicParams p;
  p.loss_recovery = LossRecovery::kSelectiveRepeat;
  Link link(p);
  int n = 0;
  link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t) {
    if (from == 0 && is_data(parse(f)) && ++n == 400) return Verdict::kDrop;  // after the wrap
    return Verdict::kDeliver;
  };
  link.flow(1, 1000 * 1024, qpn);
  link.run();
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  const std::vector<ParsedPacket> data = link.data_frames(0);
  bool wrapped = false;
  for (const ParsedPacket& pp : data) wrapped |= pp.bth_psn < 100;
  EXPECT_TRUE(wrapped);
  EXPECT_EQ(link.a.counters().retransmitted_packets, 1u);
}

TEST(RoceNic, AcksAreCoalescedByAckInterval) {
  for (uint32_t interval : {1u, 4u, 16u}) {
    NicParams p;
    p.ack_interval = interval;
    Link link(p);
    link.flow(1, 10 * 1024);
    link.run();
    ASSERT_EQ(link.a.take_completed().size(), 1u) << interval;
    // Every `interval` packets, and the AckReq on the last (10th).
    const uint64_t expect = 10 / interval + (10 % interval ? 1 : 0);
    EXPECT_EQ(link.b.counters().acks_sent, expect) << interval;
    EXPECT_EQ(link.a.counters().acks_received, expect) << interval;
  }
}

TEST(RoceNic, DroppedPacketGoBackNNaksTheExpectedPsnAndResendsFromThere) {
  NicParams p;
  Link link(p);
  const uint32_t ipsn = ipsn_of(0x11);
  bool dropped = false;
  drop_data_once(link, 10, dropped);
  link.flow(1, 100 * 1024);
  link.run();
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  EXPECT_TRUE(dropped);
  // One NAK, carrying the expected PSN (10).
  EXPECT_EQ(link.b.counters().naks_sent, 1u);
  EXPECT_EQ(link.a.counters().naks_received, 1u);
  for (const Sent& s : link.log) {
    const ParsedPacket pp = parse(s.bytes);
    if (s.from == 1 && s.bytes[pp.bth_offset + kBthLen] == 0x60) {
      EXPECT_EQ(pp.bth_psn, (ipsn + 10) & 0xffffff);
    }
  }
  // The sender resent every packet from the hole on that it had sent.
  const std::vector<ParsedPacket> data = link.data_frames(0);
  std::vector<uint64_t> idx;
  for (const ParsedPacket& pp : data) idx.push_back(packet_index(pp, ipsn));
  const uint64_t resent = data.size() - 100;
  ASSERT_GT(resent, 1u);
  const auto back = std::find(idx.begin() + 11, idx.end(), 10u);
  ASSERT_NE(back, idx.end());
  const uint64_t sent_before = static_cast<uint64_t>(back - idx.begin());  // 0..M-1
  EXPECT_EQ(resent, sent_before - 10);
  for (uint64_t k = 0; k < resent; ++k) EXPECT_EQ(*(back + k), 10 + k);
  const NicCounters& a = link.a.counters();
  const NicCounters& b = link.b.counters();
  EXPECT_EQ(a.retransmitted_packets, resent);
  EXPECT_EQ(b.out_of_order_received, resent - 1);  // 11..M-1, dropped
  EXPECT_EQ(b.out_of_order_dropped, resent - 1);
  EXPECT_EQ(b.spurious_retransmissions, 0u);
  EXPECT_EQ(b.data_bytes_accepted, 100u * 1024);
  EXPECT_EQ(a.timeouts, 0u);
}

// ConWeave's ns-3 go-back-N receiver: the same expected PSN is NAKed again
// while the hole lasts (nak_interval), and with cnp_on_nak each such NAK
// also tells congestion, as a CNP frame or, with cnp_mode ack, as BECN.
TEST(RoceNic, GoBackNReNaksAfterTheIntervalAndCanTellCongestionWithIt) {
  const uint32_t ipsn = ipsn_of(0x11);
  auto run_with = [](Link& link) { run_losing_packet_10(link); };
  NicParams p;
  p.nak_interval_ns = 500;
  Link link(p, p, 100 * kG, 2 * kUs);
  run_with(link);
  std::vector<uint64_t> nak_times;
  for (const Sent& s : link.log) {
    const ParsedPacket pp = parse(s.bytes);
    if (s.from == 1 && pp.bth_opcode == kRoceOpRcAck && s.bytes[pp.bth_offset + kBthLen] == 0x60) {
      EXPECT_EQ(pp.bth_psn, (ipsn + 10) & 0xffffff);
      nak_times.push_back(s.start);
    }
  }
  // Out-of-order packets arrive for about a round trip (4 us): NAKs at
  // least 0.5 us apart, several of them.
  ASSERT_GE(nak_times.size(), 3u);
  for (size_t i = 1; i < nak_times.size(); ++i)
    EXPECT_GE(nak_times[i] - nak_times[i - 1], 500'000u);
  EXPECT_EQ(link.b.counters().naks_sent, nak_times.size());
  EXPECT_EQ(link.b.counters().naks_telling_congestion, 0u);
  EXPECT_EQ(link.b.counters().cnps_sent, 0u);  // no CE marks on this wire
  // cnp_on_nak: each NAK also tells congestion: a CNP frame each...
  NicParams f = p;
  f.dcqcn.cnp_on_nak = true;
  f.dcqcn.min_time_between_cnps = 0;
  Link with_cnp(f, f, 100 * kG, 2 * kUs);
  run_with(with_cnp);
  const NicCounters& fb = with_cnp.b.counters();
  EXPECT_GE(fb.naks_sent, 3u);
  EXPECT_EQ(fb.naks_telling_congestion, fb.naks_sent);
  EXPECT_EQ(fb.cnps_sent, fb.naks_sent);
  EXPECT_GT(with_cnp.a.counters().rate_cuts, 0u);
  // ...or, with cnp_mode ack, BECN on each NAK.
  NicParams b = f;
  b.dcqcn.cnp_in_ack = true;
  Link with_becn(b, b, 100 * kG, 2 * kUs);
  run_with(with_becn);
  const NicCounters& bb = with_becn.b.counters();
  EXPECT_EQ(bb.cnps_sent, 0u);
  EXPECT_EQ(bb.becn_acks_sent, bb.naks_sent);
  EXPECT_EQ(with_becn.a.counters().becn_acks_received, bb.naks_sent);
  EXPECT_GT(with_becn.a.counters().rate_cuts, 0u);
}

// ConWeave's ns-3 IRN receiver: a hole is NAKed at once (sr_nak_delay 0)
// and, with cnp_on_nak, the NAK tells congestion too (rdma-hw.cc:636-647).
TEST(RoceNic, SelectiveRepeatNakCanTellCongestion) {
  auto run_with = [](const NicParams& p) {
    Link link(p, p, 100 * kG, 2 * kUs);
    run_losing_packet_10(link);
    return std::make_pair(link.a.counters(), link.b.counters());
  };
  NicParams p;
  p.loss_recovery = LossRecovery::kSelectiveRepeat;
  p.sr_nak_delay_ns = 0;
  p.dcqcn.min_time_between_cnps = 0;
  const auto [a0, b0] = run_with(p);
  EXPECT_EQ(b0.naks_sent, 1u);
  EXPECT_EQ(b0.naks_telling_congestion, 0u);
  EXPECT_EQ(a0.rate_cuts, 0u);
  p.dcqcn.cnp_on_nak = true;
  const auto [a1, b1] = run_with(p);
  EXPECT_EQ(b1.naks_sent, 1u);
  EXPECT_EQ(b1.naks_telling_congestion, 1u);
  EXPECT_EQ(b1.cnps_sent, 1u);
  EXPECT_EQ(a1.rate_cuts, 1u);
  p.dcqcn.cnp_in_ack = true;  // cnp_mode ack: BECN on the NAK
  const auto [a2, b2] = run_with(p);
  EXPECT_EQ(b2.cnps_sent, 0u);
  EXPECT_EQ(b2.becn_acks_sent, 1u);
  EXPECT_EQ(a2.rate_cuts, 1u);
}

// A NAK is never overtaken by an ACK queued before it. Go-back-N, the
// flow's next-to-last packet arrives right behind the last: the last is
// dropped and NAKed, then the next-to-last is acknowledged. While the
// receiver's wire is busy with its own long frames, the ACK of the packet
// before is still queued when the NAK is: updating that ACK in place would
// send "received up to the next-to-last" ahead of the NAK, which the sender
// then reads as stale, and with nothing more to arrive the flow would wait
// for the retransmission timer (67 ms).
TEST(RoceNic, AQueuedAckIsNotUpdatedPastALaterNak) {
  // Which arrivals find b's wire busy depends on how the two flows' frames
  // interleave: every flow length from 100 to 139 packets is tried.
  uint64_t naks = 0;
  for (uint64_t packets = 100; packets < 140; ++packets) {
    NicParams p;
    Link link(p, p, 100 * kG, 1 * kUs, 10 * kG);  // b's frames hold its wire 10x longer
    const uint32_t ipsn = ipsn_of(0x11);
    const uint64_t last = packets - 1;
    bool held = false;
    link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t) {
      const ParsedPacket pp = parse(f);
      if (from == 0 && is_data(pp) && packet_index(pp, ipsn) == last - 1 && !held) {
        held = true;
        return Verdict::kHoldForSwap;
      }
      return Verdict::kDeliver;
    };
    link.flow(2, 1024 * 1024, 0x22, false);  // b -> a keeps b's wire busy
    link.flow(1, packets * 1024);
    link.run();
    ASSERT_TRUE(held) << packets;
    naks += link.b.counters().naks_sent;
    EXPECT_EQ(link.a.counters().timeouts, 0u) << packets << " packets";
    bool done = false;
    for (const NicFlowStats& f : link.a.take_completed())
      if (f.flow_id == 1) {
        done = true;
        EXPECT_LT(f.finish_ps - f.start_ps, 100 * kUs) << packets << " packets";
      }
    EXPECT_TRUE(done) << packets;
  }
  EXPECT_GE(naks, 30u);  // most runs NAKed their swap: the case is exercised
}

TEST(RoceNic, DroppedPacketSelectiveRepeatResendsOnlyIt) {
  NicParams p;
  p.loss_recovery = LossRecovery::kSelectiveRepeat;
  Link link(p);
  const uint32_t ipsn = ipsn_of(0x11);
  bool dropped = false;
  uint64_t nak_sent_ps = 0, drop_arrival_ps = 0;
  link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t start) {
    const ParsedPacket pp = parse(f);
    if (from == 0 && is_data(pp) && packet_index(pp, ipsn) == 11 && !drop_arrival_ps)
      drop_arrival_ps = start;  // the packet after the hole leaves
    if (from == 0 && is_data(pp) && packet_index(pp, ipsn) == 10 && !dropped) {
      dropped = true;
      return Verdict::kDrop;
    }
    if (from == 1 && f[pp.bth_offset + kBthLen] == 0x60) {
      EXPECT_EQ(pp.bth_psn, (ipsn + 10) & 0xffffff);
      nak_sent_ps = start;
    }
    return Verdict::kDeliver;
  };
  link.flow(1, 400 * 1024);
  link.run();
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  EXPECT_EQ(link.b.counters().naks_sent, 1u);
  EXPECT_EQ(link.a.counters().retransmitted_packets, 1u);
  EXPECT_EQ(link.b.counters().spurious_retransmissions, 0u);
  EXPECT_EQ(link.b.counters().out_of_order_dropped, 0u);
  // The NAK waited for the reorder tolerance (sr_nak_delay, 50 us).
  EXPECT_GE(nak_sent_ps, drop_arrival_ps + 50 * kUs);
  EXPECT_LT(nak_sent_ps, drop_arrival_ps + 55 * kUs);
}

TEST(RoceNic, ReorderingCostsGoBackNButNotSelectiveRepeat) {
  for (LossRecovery mode : {LossRecovery::kGoBackN, LossRecovery::kSelectiveRepeat}) {
    NicParams p;
    p.loss_recovery = mode;
    Link link(p);
    const uint32_t ipsn = ipsn_of(0x11);
    int swaps = 0;
    link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t) {
      const ParsedPacket pp = parse(f);
      if (from != 0 || !is_data(pp)) return Verdict::kDeliver;
      const uint64_t i = packet_index(pp, ipsn);
      if ((i == 20 || i == 50) && swaps < 2) {  // 20↔21, 50↔51
        ++swaps;
        return Verdict::kHoldForSwap;
      }
      return Verdict::kDeliver;
    };
    link.flow(1, 200 * 1024);
    link.run();
    ASSERT_EQ(link.a.take_completed().size(), 1u) << loss_recovery_name(mode);
    const NicCounters& a = link.a.counters();
    const NicCounters& b = link.b.counters();
    EXPECT_GT(b.out_of_order_received, 0u);
    std::printf("[ reorder  ] %s: retransmitted %lu, spurious %lu, NAKs %lu\n",
                loss_recovery_name(mode), static_cast<unsigned long>(a.retransmitted_packets),
                static_cast<unsigned long>(b.spurious_retransmissions),
                static_cast<unsigned long>(b.naks_sent));
    if (mode == LossRecovery::kGoBackN) {
      EXPECT_GT(a.retransmitted_packets, 0u);
      EXPECT_GT(b.naks_sent, 0u);
      EXPECT_GT(b.spurious_retransmissions, 0u);  // resent packets it had
    } else {
      EXPECT_EQ(a.retransmitted_packets, 0u);
      EXPECT_EQ(b.naks_sent, 0u);
      EXPECT_EQ(b.spurious_retransmissions, 0u);
      EXPECT_EQ(b.out_of_order_dropped, 0u);
    }
  }
}

TEST(RoceNic, DroppedLastPacketIsRecoveredByTheTimeout) {
  for (LossRecovery mode : {LossRecovery::kGoBackN, LossRecovery::kSelectiveRepeat}) {
    NicParams p;
    p.loss_recovery = mode;
    p.local_ack_timeout = 8;  // 4.096 us × 256 = 1.048576 ms
    Link link(p);
    const uint32_t ipsn = ipsn_of(0x11);
    int sends_of_last = 0;
    uint64_t last_ack_arrival = 0;
    link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t start) {
      const ParsedPacket pp = parse(f);
      if (from == 0 && is_data(pp) && packet_index(pp, ipsn) == 49 && ++sends_of_last == 1)
        return Verdict::kDrop;
      if (from == 1 && sends_of_last < 2) last_ack_arrival = start + wire_ps(62, 100 * kG) + kUs;
      return Verdict::kDeliver;
    };
    link.flow(1, 50 * 1024);
    link.run();
    const std::vector<NicFlowStats> done = link.a.take_completed();
    ASSERT_EQ(done.size(), 1u) << loss_recovery_name(mode);
    EXPECT_EQ(link.a.counters().timeouts, 1u);
    EXPECT_EQ(done[0].retransmitted_packets, 1u);
    EXPECT_EQ(link.b.counters().naks_sent, 0u);
    // The timer restarted with the last ACK that advanced; then one RTT.
    const uint64_t rto = 4'096 * kNs << 8;
    EXPECT_GE(done[0].finish_ps, last_ack_arrival + rto);
    EXPECT_LT(done[0].finish_ps, last_ack_arrival + rto + 5 * kUs);
  }
}

TEST(RoceNic, LostAckIsRecoveredByTimeoutAndAReAck) {
  NicParams p;
  p.local_ack_timeout = 6;
  Link link(p);
  link.shim = [&](int from, std::vector<uint8_t>&, uint64_t) {
    return from == 1 ? Verdict::kDrop : Verdict::kDeliver;  // every ACK of the first round
  };
  link.flow(1, 5 * 1024);
  link.run(100 * kUs);
  EXPECT_EQ(link.b.receiving_qps(), 0u);  // all in
  link.shim = nullptr;
  link.run();
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  EXPECT_EQ(link.a.counters().timeouts, 1u);
  EXPECT_EQ(link.b.counters().spurious_retransmissions, 5u);  // go-back-N resent all 5
  EXPECT_EQ(link.b.counters().rx_unknown_qp, 0u);
}

TEST(RoceNic, CeMarksSendRateLimitedCnpsThatCutAndRecoverTheRate) {
  NicParams p;
  Link link(p);
  const uint64_t mark_until = 100 * kUs;
  link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t start) {
    if (from == 0 && start < mark_until && is_data(parse(f))) mark_ce(f);
    return Verdict::kDeliver;
  };
  link.flow(1, 40'000'000);
  link.run(mark_until);
  const uint32_t at_mark_end = link.a.current_rate_mbps(0x11);
  const NicCounters b1 = link.b.counters();
  EXPECT_GT(b1.ce_received, 20u);
  EXPECT_GE(b1.cnps_sent, 5u);
  // At most one CNP per min_time_between_cnps (4 us) for the QP.
  EXPECT_LE(b1.cnps_sent, mark_until / (4 * kUs) + 1);
  EXPECT_GT(b1.cnps_suppressed, 0u);
  EXPECT_GT(link.a.counters().rate_cuts, 0u);
  EXPECT_LT(at_mark_end, 20'000u);
  std::vector<uint64_t> cnp_times;
  for (const Sent& s : link.log) {
    if (s.from != 1) continue;
    const ParsedPacket pp = parse(s.bytes);
    if (!pp.is_cnp) continue;
    cnp_times.push_back(s.start);
    EXPECT_EQ(pp.bth_dest_qp, 0x11u);  // the sender's QPN
    EXPECT_EQ(pp.dscp, 48);
    EXPECT_EQ(pp.ecn, kEcnNotEct);
    EXPECT_EQ(pp.ip_end - pp.bth_offset, kBthLen + kCnpPayloadLen + kIcrcLen);
    for (uint32_t k = 0; k < kCnpPayloadLen; ++k)
      EXPECT_EQ(s.bytes[pp.bth_offset + kBthLen + k], 0);
    EXPECT_TRUE(icrc_ok(s.bytes));
  }
  for (size_t i = 1; i < cnp_times.size(); ++i)
    EXPECT_GE(cnp_times[i] - cnp_times[i - 1], 4 * kUs - 200 * kNs);  // a frame's jitter
  // Without marks the rate climbs back toward the line rate.
  link.run(mark_until + 1000 * kUs);
  const uint32_t later = link.a.current_rate_mbps(0x11);
  EXPECT_GT(later, at_mark_end);
  link.run();
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  std::printf("[ dcqcn    ] rate at the end of marking %u Mb/s, 1 ms later %u Mb/s\n", at_mark_end,
              later);
  // Off: marks are counted, nothing else happens.
  NicParams off;
  off.dcqcn.enabled = false;
  Link quiet(off);
  quiet.shim = link.shim;
  quiet.flow(1, 2'000'000);
  quiet.run(50 * kUs);
  EXPECT_EQ(quiet.a.current_rate_mbps(0x11), 100'000u);
  quiet.run();
  EXPECT_GT(quiet.b.counters().ce_received, 0u);
  EXPECT_EQ(quiet.b.counters().cnps_sent, 0u);
  EXPECT_EQ(quiet.a.counters().rate_cuts, 0u);
}

TEST(RoceNic, PfcPauseOfTheDataPriorityStopsDataButNotCnps) {
  NicParams pa, pb;
  pa.dcqcn.enabled = false;  // a keeps its rate, so b's CNPs keep coming
  Link link(pa, pb);
  // b receives a flow from a (CE-marked: b sends CNPs) and sends one to a.
  link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t) {
    if (from == 0 && is_data(parse(f))) mark_ce(f);
    return Verdict::kDeliver;
  };
  link.flow(1, 8'000'000, 0x11, true);
  link.flow(2, 4'000'000, 0x22, false);
  link.run(20 * kUs);
  // A PFC frame for priority 3, 65535 quanta (335.54 us at 100G), reaches b.
  std::array<uint16_t, 8> quanta{};
  quanta[3] = 65535;
  const std::vector<uint8_t> pfc =
      build_frame(pfc_frame_spec(link.b.address().gateway_mac, 1 << 3, quanta));
  const uint64_t t_pfc = link.now;
  link.deliver_at(1, pfc, t_pfc);
  const uint64_t pause = pause_quanta_to_ns(65535, 100 * kG) * kNs;
  link.run(t_pfc + pause + 50 * kUs);
  int data_in = 0, acks_in = 0, cnps_in = 0, data_after = 0;
  for (const Sent& s : link.log) {
    if (s.from != 1) continue;
    const ParsedPacket pp = parse(s.bytes);
    // A frame that started before the pause finishes; nothing starts in it.
    const bool in = s.start > t_pfc && s.start < t_pfc + pause;
    if (is_data(pp) && in) ++data_in;
    if (is_data(pp) && s.start >= t_pfc + pause) ++data_after;
    if (in && pp.bth_opcode == kRoceOpRcAck) ++acks_in;
    if (in && pp.is_cnp) ++cnps_in;
  }
  EXPECT_EQ(data_in, 0);
  EXPECT_EQ(acks_in, 0);   // ack_priority = data_priority (3): paused too
  EXPECT_GT(cnps_in, 10);  // cnp_802p_prio 6 is not paused
  EXPECT_GT(data_after, 0);
  const NicCounters& c = link.b.counters();
  EXPECT_EQ(c.pfc_frames_received, 1u);
  EXPECT_NEAR(static_cast<double>(c.paused_ps[3]), static_cast<double>(pause), 2.0 * kNs);
  EXPECT_EQ(c.paused_ps[6], 0u);
  // a was not paused: its data went on.
  EXPECT_EQ(link.a.counters().paused_ps[3], 0u);
  link.run();
  EXPECT_EQ(link.a.take_completed().size(), 1u);
  EXPECT_EQ(link.b.take_completed().size(), 1u);
}

TEST(RoceNic, QpsShareTheWireRoundRobin) {
  NicParams p;
  Link link(p);
  link.flow(1, 50 * 1024, 0x11);
  link.flow(2, 50 * 1024, 0x22);
  link.b.accept_flow(0x133, link.a.address().ipv4, 0x33, 4791, 46, 50 * 1024);
  link.a.start_flow(3, 0x33, link.b.address().ipv4, 0x133, 4791, 46, 50 * 1024, 0);
  link.run();
  EXPECT_EQ(link.a.take_completed().size(), 3u);
  const std::vector<ParsedPacket> data = link.data_frames(0);
  ASSERT_EQ(data.size(), 150u);
  for (size_t i = 3; i < data.size(); ++i)
    EXPECT_EQ(data[i].bth_dest_qp, data[i - 3].bth_dest_qp) << i;
  EXPECT_NE(data[0].bth_dest_qp, data[1].bth_dest_qp);
  EXPECT_NE(data[1].bth_dest_qp, data[2].bth_dest_qp);
  for (const Sent& s : link.log) {
    const ParsedPacket pp = parse(s.bytes);
    if (s.from == 0) {
      EXPECT_EQ(s.bytes, rebuilt(pp)) << pp.bth_psn;
      EXPECT_EQ(pp.dscp, pp.bth_dest_qp == 0x133 ? 46 : 26);
    }
  }
}

// What the NIC model holds grows with its queue pairs (summary.json's
// cost.memory.hosts).
TEST(RoceNic, StateBytesCountItsQueuePairs) {
  NicParams p;
  RoceNic nic(p, address(1, 100 * kG));
  const uint64_t idle = nic.state_bytes();
  EXPECT_GE(idle, sizeof(RoceNic));
  for (uint32_t i = 0; i < 64; ++i)
    nic.start_flow(i, 0x100 + i, 0x0a000202, 0x200 + i, 0, 26, 1000, 0);
  const uint64_t busy = nic.state_bytes();
  EXPECT_GT(busy, idle + 64 * 100);
}

TEST(RoceNic, RejectsAQpThatIsBusy) {
  NicParams p;
  RoceNic nic(p, address(1, 100 * kG));
  nic.start_flow(1, 0x11, 0x0a000202, 0x111, 0, 26, 1000, 0);
  EXPECT_THROW(nic.start_flow(2, 0x11, 0x0a000202, 0x112, 0, 26, 1000, 0), std::invalid_argument);
  EXPECT_THROW(nic.start_flow(1, 0x12, 0x0a000202, 0x112, 0, 26, 1000, 0), std::invalid_argument);
  EXPECT_THROW(nic.start_flow(3, 1u << 24, 0x0a000202, 0x112, 0, 26, 1000, 0),
               std::invalid_argument);
  nic.accept_flow(0x20, 0x0a000202, 0x99, 0, 26, 10);
  EXPECT_THROW(nic.accept_flow(0x20, 0x0a000202, 0x98, 0, 26, 10), std::invalid_argument);
  ASSERT_NE(nic.flow(1), nullptr);
  EXPECT_FALSE(nic.flow(1)->finished);
  EXPECT_EQ(nic.current_rate_mbps(0x11), 100'000u);
  EXPECT_EQ(nic.current_rate_mbps(0x99), 0u);
}

TEST(RoceNic, SameScenarioSameFrames) {
  auto run = [] {
    NicParams p;
    p.loss_recovery = LossRecovery::kSelectiveRepeat;
    Link link(p);
    int n = 0;
    link.shim = [&](int from, std::vector<uint8_t>& f, uint64_t start) {
      if (from != 0 || !is_data(parse(f))) return Verdict::kDeliver;
      ++n;
      if (start < 30 * kUs) mark_ce(f);
      return n % 97 == 0 ? Verdict::kDrop
                         : (n % 31 == 0 ? Verdict::kHoldForSwap : Verdict::kDeliver);
    };
    link.flow(1, 3'000'000, 0x11);
    link.flow(2, 1'000'000, 0x22);
    link.run();
    uint64_t h = 1469598103934665603ull;
    for (const Sent& s : link.log) {
      h = (h ^ s.start) * 1099511628211ull;
      for (uint8_t c : s.bytes) h = (h ^ c) * 1099511628211ull;
    }
    EXPECT_EQ(link.a.take_completed().size(), 2u);
    return h;
  };
  EXPECT_EQ(run(), run());
}

// Many flows both ways through a wire that drops, reorders and CE-marks
// (fixed-seed pseudo-random): every flow finishes, every byte arrives once,
// both ends free their QPs.
TEST(RoceNic, EveryFlowFinishesThroughALossyReorderingWire) {
  for (LossRecovery mode : {LossRecovery::kGoBackN, LossRecovery::kSelectiveRepeat}) {
    NicParams p;
    p.loss_recovery = mode;
    p.local_ack_timeout = 10;  // 4.2 ms
    p.ack_interval = 3;
    Link link(p);
    uint64_t x = 12345;
    auto rnd = [&] {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return (x >> 33) % 1000;
    };
    link.shim = [&](int, std::vector<uint8_t>& f, uint64_t) {
      const uint64_t r = rnd();
      if (r < 10) return Verdict::kDrop;  // 1 % of every kind of frame
      if (r < 30) return Verdict::kHoldForSwap;
      if (r < 80 && is_data(parse(f))) mark_ce(f);
      return Verdict::kDeliver;
    };
    uint64_t bytes[2] = {0, 0};
    for (uint32_t i = 0; i < 40; ++i) {
      const uint64_t size = (i * 7919) % 300'000;
      const bool from_a = i % 2 == 0;
      link.flow(i, size, 0x1000 + i, from_a);
      bytes[from_a ? 1 : 0] += size;
    }
    link.run();
    EXPECT_EQ(link.a.take_completed().size(), 20u) << loss_recovery_name(mode);
    EXPECT_EQ(link.b.take_completed().size(), 20u) << loss_recovery_name(mode);
    for (int n = 0; n < 2; ++n) {
      const RoceNic& nic = link.nic(n);
      EXPECT_EQ(nic.counters().flows_received, 20u);
      EXPECT_EQ(nic.counters().data_bytes_accepted, bytes[n]) << loss_recovery_name(mode);
      EXPECT_EQ(nic.sending_qps(), 0u);
      EXPECT_EQ(nic.receiving_qps(), 0u);
      EXPECT_GT(nic.counters().retransmitted_packets, 0u);
      EXPECT_GT(nic.counters().cnps_received, 0u);
    }
    std::printf("[ lossy    ] %s: a retransmitted %lu (timeouts %lu), b spurious %lu\n",
                loss_recovery_name(mode),
                static_cast<unsigned long>(link.a.counters().retransmitted_packets),
                static_cast<unsigned long>(link.a.counters().timeouts),
                static_cast<unsigned long>(link.b.counters().spurious_retransmissions));
  }
}

// Not a check: the cost of the model per frame, for the fabric budget
// (~10 M frames a minute over all switches and NICs).
TEST(RoceNic, PerFrameCostIsPrinted) {
  NicParams p;
  Link link(p);
  link.time_nics = true;
  link.flow(1, 100'000'000);  // 97,657 data packets, as many ACKs
  const auto t0 = std::chrono::steady_clock::now();
  link.run();
  const double wall_ns = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - t0)
          .count());
  ASSERT_EQ(link.a.take_completed().size(), 1u);
  const double frames = static_cast<double>(link.log.size());
  const double data = static_cast<double>(link.a.counters().data_packets_sent);
  // build_frame alone for a 1 KB data packet.
  FrameSpec spec;
  spec.payload_len = 1024;
  std::vector<uint8_t> out;
  const int reps = 20000;
  const auto b0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) {
    spec.psn = static_cast<uint32_t>(i);
    build_frame(spec, out);
  }
  const double build_ns = static_cast<double>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - b0)
          .count());
  const double ctrl = frames - static_cast<double>(link.polls_data);
  std::printf(
      "[ cost     ] %.0f frames (%.0f data): poll %.0f ns per data frame, %.0f ns per ACK; "
      "receive %.0f ns per frame; build_frame(1 KB data) alone %.0f ns; the whole test loop "
      "%.0f ns per frame\n",
      frames, data, static_cast<double>(link.poll_data_ns) / static_cast<double>(link.polls_data),
      static_cast<double>(link.poll_ns - link.poll_data_ns) / ctrl, link.receive_ns / frames,
      build_ns / reps, wall_ns / frames);
}

// ------------------------------------------------------------ NicParams

NicParams load(const std::string& text) {
  return load_nic_params(YAML::Load(text), "fabric.yaml");
}

std::string error_of(const std::string& text) {
  try {
    load(text);
  } catch (const NicParamsError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(NicParams, DefaultsAndValues) {
  const NicParams d = load_nic_params(YAML::Node(), "fabric.yaml");
  EXPECT_EQ(d.mtu, 1024u);
  EXPECT_EQ(d.data_dscp, 26);
  EXPECT_EQ(d.data_priority, 3);
  EXPECT_EQ(d.ack_prio(), 3);
  EXPECT_FALSE(d.ack_dscp);
  EXPECT_EQ(d.ack_interval, 1u);
  EXPECT_EQ(d.local_ack_timeout, 14);
  EXPECT_EQ(d.retransmit_timeout_ps(), 4'096'000ull << 14);
  EXPECT_EQ(d.loss_recovery, LossRecovery::kGoBackN);
  EXPECT_EQ(d.sr_nak_delay_ns, 50'000u);
  EXPECT_TRUE(d.dcqcn.enabled);
  EXPECT_EQ(d.dcqcn.rpg_time_reset, 300u);
  EXPECT_EQ(d.dcqcn.rpg_byte_reset, 32767u);
  EXPECT_EQ(d.dcqcn.rpg_ai_rate, 5u);
  EXPECT_EQ(d.dcqcn.rpg_hai_rate, 50u);
  EXPECT_EQ(d.dcqcn.dce_tcp_g, 1019u);
  EXPECT_EQ(d.dcqcn.min_time_between_cnps, 4u);
  EXPECT_EQ(d.dcqcn.cnp_dscp, 48);
  EXPECT_EQ(d.dcqcn.cnp_802p_prio, 6);
  const NicParams p = load(
      "mtu: 4096\nack_interval: 8\nack_dscp: 46\nack_priority: 5\nlocal_ack_timeout: 0\n"
      "loss_recovery: selective_repeat\nsr_nak_delay: 20us\nsr_window: 512\n"
      "dcqcn: {enabled: false, rpg_ai_rate: 40, rpg_max_rate: 25000, clamp_tgt_rate: true,\n"
      "        min_time_between_cnps: 50, cnp_802p_prio: 7}\n");
  EXPECT_EQ(p.mtu, 4096u);
  EXPECT_EQ(p.ack_interval, 8u);
  EXPECT_EQ(p.ack_dscp, 46);
  EXPECT_EQ(p.ack_prio(), 5);
  EXPECT_EQ(p.retransmit_timeout_ps(), 0u);
  EXPECT_EQ(p.loss_recovery, LossRecovery::kSelectiveRepeat);
  EXPECT_EQ(p.sr_nak_delay_ns, 20'000u);
  EXPECT_EQ(p.sr_window, 512u);
  EXPECT_FALSE(p.dcqcn.enabled);
  EXPECT_EQ(p.dcqcn.rpg_ai_rate, 40u);
  EXPECT_EQ(p.dcqcn.rpg_max_rate, 25000u);
  EXPECT_TRUE(p.dcqcn.clamp_tgt_rate);
  EXPECT_EQ(p.dcqcn.min_time_between_cnps, 50u);
  EXPECT_EQ(p.dcqcn.cnp_802p_prio, 7);
  EXPECT_EQ(p.dcqcn.rpg_hai_rate, 50u);  // untouched
}

TEST(NicParams, ErrorsNameTheKeyPath) {
  EXPECT_EQ(error_of("dcqcn: {rpg_ai_rate: fast}"),
            "fabric.yaml: nic.dcqcn.rpg_ai_rate: \"fast\": must be an integer 0..1600000 (Mb/s)");
  EXPECT_EQ(error_of("mtu: 1500"),
            "fabric.yaml: nic.mtu: 1500: must be 256, 512, 1024, 2048 or 4096 (framing ethernet: "
            "the IB path MTUs)");
  EXPECT_EQ(error_of("loss_recovery: irn"),
            "fabric.yaml: nic.loss_recovery: \"irn\": must be one of go_back_n, "
            "selective_repeat");
  EXPECT_EQ(error_of("dcqcn: {enabled: maybe}"),
            "fabric.yaml: nic.dcqcn.enabled: \"maybe\": must be true or false");
  EXPECT_EQ(error_of("data_dscp: 64"), "fabric.yaml: nic.data_dscp: 64: must be an integer 0..63");
  EXPECT_EQ(error_of("sr_window: 100"),
            "fabric.yaml: nic.sr_window: 100: must be a multiple of 64");
  EXPECT_EQ(error_of("sr_nak_delay: 5").rfind("fabric.yaml: nic.sr_nak_delay: 5: ", 0), 0u);
  EXPECT_EQ(error_of("dcqcn: [1, 2]"), "fabric.yaml: nic.dcqcn: expected a map, found a list");
  EXPECT_EQ(error_of("dcqcn: {dce_tcp_rtt: 0}"),
            "fabric.yaml: nic.dcqcn.dce_tcp_rtt: 0: must be an integer 1..131071 (us)");
}

TEST(NicParams, UnknownKeysAreRefused) {
  EXPECT_EQ(error_of("mtu: 1024\nbogus: 1"),
            "fabric.yaml: nic.bogus: unknown key (known: mtu, framing, data_dscp, data_priority, "
            "ack_dscp, "
            "ack_priority, ack_interval, local_ack_timeout, loss_recovery, sr_nak_delay, "
            "sr_window, nak_interval, max_inflight, dcqcn)");
  EXPECT_EQ(
      error_of("dcqcn: {rpg_timer: 1}").rfind("fabric.yaml: nic.dcqcn.rpg_timer: unknown key", 0),
      0u);
}

}  // namespace
}  // namespace rocelb
