// The frames the RoCE NIC model (dataplane/sim/roce_nic.h) puts on the
// wire are byte for byte what rocelb's builder (build_frame) makes for the
// same fields, whichever way the NIC makes them (full-MTU data, ACK, NAK
// and CNP frames are patched copies of one template each): QPNs up to 24
// bits, PSNs anywhere in the 24-bit space, DSCPs of every kind, explicit
// and derived UDP source ports. Two NICs on a wire that CE-marks some data
// frames (CNPs) and drops one (a NAK under go-back-N).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <vector>

#include "dataplane/sim/nic_params.h"
#include "dataplane/sim/roce_nic.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/roce.h"
#include "frame_spec_of.h"

namespace rocelb {
namespace {

constexpr uint64_t kG = 1'000'000'000;
constexpr uint64_t kUs = 1'000'000;  // ps

NicAddress address(uint8_t id) {
  NicAddress a;
  a.mac = {0x02, 0x00, 0x0a, 0x00, id, 0x02};
  a.gateway_mac = {0x02, 0x00, 0x01, 0x00, 0x00, id};
  a.ipv4 = 0x0a000002u | (uint32_t{id} << 8);  // 10.0.id.2
  a.speed_bps = 100 * kG;
  return a;
}

ParsedPacket parse(const std::vector<uint8_t>& f) {
  ParsedPacket pp;
  parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), pp);
  return pp;
}

// What build_frame makes for the fields of the RoCEv2 frame `f`.
std::vector<uint8_t> rebuilt(const std::vector<uint8_t>& f) {
  const ParsedPacket pp = parse(f);
  FrameSpec spec = test::frame_spec_of(pp);
  const uint32_t ext = roce_ext_headers_len(pp.bth_opcode);
  if (pp.bth_opcode == kRoceOpRcAck) {
    spec.aeth_syndrome = f[pp.bth_offset + kBthLen];
    spec.aeth_msn = load_be24(f.data() + pp.bth_offset + kBthLen + 1);
  }
  spec.payload_len = pp.ip_end - pp.bth_offset - kBthLen - ext - pp.bth_pad - kIcrcLen;
  return build_frame(spec);
}

struct Seen {
  size_t data = 0, acks = 0, naks = 0, cnps = 0;
  size_t becn = 0;   // ACKs and NAKs with BECN set
  size_t marks = 0;  // data frames CE-marked on the wire
  NicCounters sender, receiver;
};

// A flow of `size` bytes from NIC a (QP qpn) to NIC b (QP dst_qpn), every
// frame either sends compared with build_frame's; every 5th data frame is
// CE-marked, the 7th dropped once.
Seen run_flow(const NicParams& p, uint32_t qpn, uint32_t dst_qpn, uint16_t sport, uint8_t dscp,
              uint64_t size) {
  RoceNic a(p, address(1)), b(p, address(2));
  b.accept_flow(dst_qpn, a.address().ipv4, qpn, sport, dscp, size);
  a.start_flow(1, qpn, b.address().ipv4, dst_qpn, sport, dscp, size, 0);
  struct InFlight {
    uint64_t t, seq;
    int to;
    std::vector<uint8_t> bytes;
    bool operator>(const InFlight& o) const { return t > o.t || (t == o.t && seq > o.seq); }
  };
  std::priority_queue<InFlight, std::vector<InFlight>, std::greater<InFlight>> wire;
  uint64_t seq = 0, now = 0, data = 0;
  bool dropped = false;
  Seen seen;
  std::vector<uint8_t> buf(16384);
  RoceNic* nic[2] = {&a, &b};
  for (uint64_t guard = 0; guard < 10'000'000; ++guard) {
    const uint64_t tw = wire.empty() ? UINT64_MAX : wire.top().t;
    const uint64_t t = std::min({tw, a.next_wakeup_ps(), b.next_wakeup_ps()});
    if (t == UINT64_MAX) break;
    now = std::max(now, t);
    while (!wire.empty() && wire.top().t <= now) {
      const InFlight f = wire.top();
      wire.pop();
      nic[f.to]->receive(f.bytes.data(), static_cast<uint32_t>(f.bytes.size()), f.t);
    }
    for (int i = 0; i < 2; ++i) {
      if (nic[i]->next_wakeup_ps() > now) continue;
      uint64_t start = 0;
      const uint32_t len = nic[i]->poll(now, buf.data(), static_cast<uint32_t>(buf.size()), &start);
      if (len == 0) continue;
      std::vector<uint8_t> f(buf.begin(), buf.begin() + len);
      EXPECT_EQ(f, rebuilt(f)) << "NIC " << i << ", frame of " << len << " bytes at " << start;
      const ParsedPacket pp = parse(f);
      if (pp.bth_opcode == kRoceOpCnp)
        ++seen.cnps;
      else if (pp.bth_opcode == kRoceOpRcAck)
        ++(f[pp.bth_offset + kBthLen] == 0x1f ? seen.acks : seen.naks);
      else
        ++seen.data;
      seen.becn += pp.bth_becn;
      if (i == 0 && pp.bth_opcode != kRoceOpRcAck && pp.bth_opcode != kRoceOpCnp) {
        ++data;
        if (data == 7 && !dropped) {
          dropped = true;
          continue;
        }
        if (data % 5 == 0) {  // CE
          ++seen.marks;
          uint8_t* ip = f.data() + kEthHeaderLen;
          ip[kIpv4TosOffset] = static_cast<uint8_t>(ip[kIpv4TosOffset] | kEcnCe);
          store_be16(ip + kIpv4ChecksumOffset, 0);
          store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, kIpv4MinHeaderLen));
        }
      }
      wire.push(InFlight{start + (len + 20) * 80 + 1 * kUs, seq++, 1 - i, std::move(f)});
    }
  }
  EXPECT_EQ(a.take_completed().size(), 1u);
  seen.sender = a.counters();
  seen.receiver = b.counters();
  return seen;
}

TEST(RoceNicFrames, EveryFrameIsWhatBuildFrameMakes) {
  NicParams p;
  p.dcqcn.min_time_between_cnps = 0;  // a CNP for every mark
  Seen all;
  for (const uint32_t qpn : {0x11u, 0x2345u, 0xfffffeu, 0x800000u})
    for (const uint8_t dscp : {RoceNic::kDefaultDscp, uint8_t{0}, uint8_t{63}})
      for (const uint16_t sport : {uint16_t{0}, uint16_t{0xc123}}) {
        const uint32_t dst_qpn = (qpn * 7 + 0x100) & 0xffffff;
        const Seen s = run_flow(p, qpn, dst_qpn, sport, dscp, 37 * 1024 + 101);
        EXPECT_EQ(s.naks, 1u) << qpn;  // go-back-N, one drop
        all.data += s.data;
        all.acks += s.acks;
        all.naks += s.naks;
        all.cnps += s.cnps;
      }
  EXPECT_GT(all.data, 24u * 38);
  EXPECT_GT(all.acks, 24u * 30);
  EXPECT_GT(all.cnps, 24u * 5);
  // ACKs and CNPs with their own DSCPs, ACKs every other packet, one
  // full-MTU packet and none at all (a 1-byte message).
  NicParams q;
  q.ack_dscp = 48;
  q.dcqcn.cnp_dscp = 40;
  q.ack_interval = 2;
  q.dcqcn.min_time_between_cnps = 0;
  EXPECT_GT(run_flow(q, 0x77, 0x177, 0, RoceNic::kDefaultDscp, 64 * 1024).cnps, 0u);
  EXPECT_EQ(run_flow(q, 0x78, 0x178, 0, RoceNic::kDefaultDscp, 1024).data, 1u);
  EXPECT_EQ(run_flow(q, 0x79, 0x179, 0, RoceNic::kDefaultDscp, 1).data, 1u);
}

// cnp_mode ack: no CNP frame; a CE mark sets BECN in the QP's next ACK or
// NAK (the frames still what build_frame makes: the ICRC masks the bit),
// and the sender takes each such ACK as a CNP: it cuts its rate.
TEST(RoceNicFrames, CnpModeAckTellsEachMarkInTheNextAck) {
  NicParams p;
  p.dcqcn.cnp_in_ack = true;
  const Seen s = run_flow(p, 0x21, 0x121, 0, RoceNic::kDefaultDscp, 37 * 1024 + 101);
  EXPECT_EQ(s.cnps, 0u);
  EXPECT_EQ(s.receiver.cnps_sent, 0u);
  ASSERT_GT(s.marks, 5u);
  // Every mark that reached the receiver is told, some in one NAK or ACK
  // with others (the packets behind the drop are NAKed once, not ACKed).
  EXPECT_GT(s.becn, s.marks / 2);
  EXPECT_LE(s.becn, s.marks);
  EXPECT_EQ(s.receiver.becn_acks_sent, s.becn);
  EXPECT_EQ(s.sender.becn_acks_received, s.becn);
  EXPECT_GT(s.sender.rate_cuts, 0u);
  // The same flow with CNP frames, one per mark: as many notifications.
  NicParams f;
  f.dcqcn.min_time_between_cnps = 0;
  const Seen c = run_flow(f, 0x21, 0x121, 0, RoceNic::kDefaultDscp, 37 * 1024 + 101);
  EXPECT_EQ(c.becn, 0u);
  EXPECT_EQ(c.cnps, c.marks - c.receiver.cnps_suppressed);
  EXPECT_GT(c.sender.rate_cuts, 0u);
}

}  // namespace
}  // namespace rocelb
