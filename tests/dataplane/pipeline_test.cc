// Packet fixtures for the per-packet path (process_burst) on the default leaf
// switch (configs/default.yaml): an input frame built with the packet builder
// enters one port; the test expects either exactly one frame queued on
// (egress port, traffic class), byte-identical to an expected frame built
// independently (next-hop destination MAC, egress port source MAC, TTL or
// hop limit − 1, fresh IPv4 checksum), or one drop with the named reason on
// the right port and nothing queued. Also: ECMP stickiness, ARP replies,
// PFC/PAUSE consumption, classification, tail drop, conservation of packets
// in a mixed burst and multi-segment frames.
#include "dataplane/forward/pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "dataplane/forward/counters.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/conweave_shim.h"
#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/roce.h"
#include "pfc/pfc_frame.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

using Frame = std::vector<uint8_t>;

// Addresses of configs/default.yaml.
constexpr MacBytes port_mac(uint8_t n) {
  return {0x02, 0, 0, 0, 0x00, n};
}
constexpr MacBytes host_mac(uint8_t n) {
  return {0x02, 0, 0, 0, 0x01, n};
}
constexpr MacBytes spine_mac(uint8_t n) {
  return {0x02, 0, 0, 0, 0x02, n};
}
constexpr MacBytes kBroadcastMac = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
constexpr uint16_t kFirstUplink = 4;
constexpr uint16_t kLastUplink = 7;

constexpr uint32_t v4_host(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return (uint32_t{a} << 24) | (uint32_t{b} << 16) | (uint32_t{c} << 8) | d;
}
IpBytes v6(std::array<uint16_t, 8> g) {
  return ipv6_bytes(g);
}

// RoCEv2 over IPv4 sent by the host behind `in_port` to the switch.
FrameSpec roce4(uint16_t in_port, IpBytes src, IpBytes dst, uint8_t dscp = 26) {
  FrameSpec s;
  s.dst_mac = port_mac(static_cast<uint8_t>(in_port));
  s.src_mac = host_mac(static_cast<uint8_t>(in_port));
  s.payload = FramePayload::kIpv4;
  s.src_ip = src;
  s.dst_ip = dst;
  s.dscp = dscp;
  s.ecn = kEcnEct0;
  s.sport = 49152;
  s.dest_qp = 0x000123;
  s.psn = 7;
  s.payload_len = 64;
  return s;
}

// RoCEv2 over IPv6 likewise.
FrameSpec roce6(uint16_t in_port, IpBytes src, IpBytes dst, uint8_t dscp = 26) {
  FrameSpec s = roce4(in_port, src, dst, dscp);
  s.payload = FramePayload::kIpv6;
  s.flow_label = 0x12345;
  return s;
}

FrameSpec with(FrameSpec s, const std::function<void(FrameSpec&)>& f) {
  f(s);
  return s;
}

// The frame the switch should send for `in`: next-hop destination MAC, egress
// port source MAC, TTL / hop limit one lower, everything else (ICRC, UDP
// checksum: neither covers the TTL) rebuilt from the same spec.
Frame forwarded(FrameSpec in, const MacBytes& next_hop, uint16_t out_port) {
  in.dst_mac = next_hop;
  in.src_mac = port_mac(static_cast<uint8_t>(out_port));
  in.ttl = static_cast<uint8_t>(in.ttl - 1);
  return build_frame(in);
}

Frame truncated(Frame f, size_t len) {
  f.resize(len);
  return f;
}

Frame patched(Frame f, size_t offset, uint8_t value) {
  f.at(offset) = value;
  return f;
}

std::string drop_name(DropReason r) {
  return std::string(kDropInfo[static_cast<int>(r)].name);
}

std::string counter_name(PortCounter c) {
  return std::string(kPortCounterInfo[static_cast<int>(c)].name);
}

// Every non-zero drop counter, for failure messages.
std::string drops_text(const Snapshot& s) {
  std::string out;
  for (int p = 0; p < kMaxPorts; ++p)
    for (int r = 0; r < kNumDropReasons; ++r)
      if (s.port[p].drops[r])
        out += " port" + std::to_string(p) + "." + std::string(kDropInfo[r].name) + "=" +
               std::to_string(s.port[p].drops[r]);
  return out.empty() ? " (none)" : out;
}

uint64_t all_drops(const Snapshot& s) {
  uint64_t n = 0;
  for (const auto& p : s.port) n += p.total_drops();
  return n;
}

using Counts = std::vector<std::pair<PortCounter, uint64_t>>;

class PipelineTest : public test::DpdkTest {
 protected:
  struct Queued {
    uint16_t port;
    uint8_t tc;
    uint64_t packets;
  };
  struct Out {
    bool ok = false;
    uint16_t port = 0;
    uint8_t tc = 0;
    uint16_t nb_segs = 0;
    Frame bytes;
  };

  void start(const std::vector<std::string>& sets = {}) {
    make_dataplane(test::default_params(sets));
  }

  void run(uint16_t in_port, const Frame& frame, uint64_t now_ns = 1000) {
    rte_mbuf* m = mbuf(frame);
    ASSERT_NE(m, nullptr);
    process_burst(*dp_, 0, in_port, &m, 1, now_ns);
  }

  void run_burst(uint16_t in_port, const std::vector<Frame>& frames, uint64_t now_ns = 1000) {
    ASSERT_LE(frames.size(), kMaxBurst);
    std::vector<rte_mbuf*> ms;
    for (const Frame& f : frames) {
      ms.push_back(mbuf(f));
      ASSERT_NE(ms.back(), nullptr);
    }
    process_burst(*dp_, 0, in_port, ms.data(), static_cast<uint16_t>(ms.size()), now_ns);
  }

  // Every non-empty queue of the switch.
  std::vector<Queued> occupied() const {
    std::vector<Queued> out;
    for (uint16_t id : dp_->config().port_ids)
      for (uint8_t c = 0; c < kNumTrafficClasses; ++c) {
        const uint64_t n = dp_->tx(id).queues[c].depth_packets();
        if (n) out.push_back({id, c, n});
      }
    return out;
  }

  uint64_t queued_total() const {
    uint64_t n = 0;
    for (const Queued& q : occupied()) n += q.packets;
    return n;
  }

  // Pops one frame from (port, tc) and frees its mbuf; like the transmit
  // path, it gives a lossless frame's bytes back to its ingress port's PFC hold.
  Frame pop(uint16_t port, uint8_t tc) {
    rte_mbuf* m = dp_->tx(port).queues[tc].pop();
    EXPECT_NE(m, nullptr) << "nothing queued on port " << port << " class " << int(tc);
    if (!m) return {};
    dp_->pfc().release(m->port, tc, m->pkt_len);
    Frame f = bytes(m);
    rte_pktmbuf_free(m);
    return f;
  }

  // Expects exactly one frame queued in the whole switch and takes it.
  Out take_only() {
    Out o;
    const std::vector<Queued> occ = occupied();
    EXPECT_EQ(occ.size(), 1u) << "queues holding frames: " << occ.size()
                              << "; drops:" << drops_text(dp_->snapshot());
    if (occ.size() != 1) return o;
    EXPECT_EQ(occ[0].packets, 1u);
    if (occ[0].packets != 1) return o;
    rte_mbuf* m = dp_->tx(occ[0].port).queues[occ[0].tc].pop();
    if (!m) return o;
    o.port = occ[0].port;
    o.tc = occ[0].tc;
    o.nb_segs = m->nb_segs;
    o.bytes = bytes(m);
    rte_pktmbuf_free(m);
    o.ok = true;
    return o;
  }

  // Expects exactly one drop in the whole switch: `reason` on `port`; and
  // nothing queued anywhere.
  void expect_only_drop(uint16_t port, DropReason reason) {
    const Snapshot s = dp_->snapshot();
    EXPECT_EQ(s.port[port].drops[static_cast<int>(reason)], 1u)
        << "expected " << drop_name(reason) << " on port " << port << "; drops:" << drops_text(s);
    EXPECT_EQ(all_drops(s), 1u) << "drops:" << drops_text(s);
    EXPECT_EQ(s.queued_packets, 0u);
    EXPECT_EQ(queued_total(), 0u);
  }

  void expect_counts(uint16_t port, const Counts& counts) {
    const Snapshot s = dp_->snapshot();
    for (const auto& [c, v] : counts)
      EXPECT_EQ(s.port[port][c], v) << counter_name(c) << " on port " << port;
  }

  // rx + generated == tx + consumed + drops + queued, for the whole switch.
  void expect_conservation() {
    const Snapshot s = dp_->snapshot();
    uint64_t rx = 0, generated = 0, tx = 0, consumed = 0, drops = 0;
    for (const auto& p : s.port) {
      rx += p[PortCounter::rx_packets];
      generated += p.generated();
      tx += p[PortCounter::tx_packets];
      consumed += p.consumed();
      drops += p.total_drops();
    }
    EXPECT_EQ(rx + generated, tx + consumed + drops + s.queued_packets)
        << "rx " << rx << " generated " << generated << " tx " << tx << " consumed " << consumed
        << " drops " << drops << " queued " << s.queued_packets;
  }
};

// ---------------------------------------------------------------------------
// Forwarded frames

struct ForwardCase {
  const char* name;
  std::vector<std::string> sets = {};  // config overrides
  uint16_t in_port = 0;
  FrameSpec spec;
  int out_port = -1;  // -1: any uplink (4..7); the next hop is then that port's spine
  uint8_t tc = 0;
  MacBytes next_hop = {};  // ignored for uplinks
  Counts rx_counts = {};   // on the ingress port, beyond rx_packets/rx_bytes
};

std::vector<ForwardCase> forward_cases() {
  const IpBytes h0 = ipv4_bytes(10, 0, 0, 2);
  const IpBytes h0v6 = v6({0xfd00, 0, 0, 0, 0, 0, 0, 2});
  const IpBytes h3 = ipv4_bytes(10, 0, 3, 2);
  const IpBytes h3v6 = v6({0xfd00, 0, 3, 0, 0, 0, 0, 2});
  auto cnp = [](FrameSpec& s) {
    s.opcode = kRoceOpCnp;
    s.payload_len = kCnpPayloadLen;
  };
  auto tag = [](uint8_t pcp, uint16_t vid) {
    return [pcp, vid](FrameSpec& s) { s.vlans = {VlanTag{kEthertypeVlan, pcp, false, vid}}; };
  };
  using C = PortCounter;
  return {
      {.name = "rocev2_ipv4_remote_to_uplink",
       .spec = roce4(0, h0, ipv4_bytes(10, 2, 0, 2)),
       .tc = 3,
       .rx_counts = {{C::rx_ipv4, 1}, {C::rx_rocev2, 1}, {C::rx_ipv6, 0}, {C::rx_cnp, 0}}},
      {.name = "rocev2_ipv6_remote_to_uplink_hop_limit_63",
       .spec = roce6(0, h0v6, v6({0xfd00, 2, 0, 0, 0, 0, 0, 2})),
       .tc = 3,
       .rx_counts = {{C::rx_ipv6, 1}, {C::rx_rocev2, 1}, {C::rx_ipv4, 0}}},
      {.name = "ipv4_host0_to_host3_dscp26",
       .spec = roce4(0, h0, h3),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_ipv4, 1}, {C::rx_rocev2, 1}}},
      {.name = "ipv4_host0_to_host3_dscp0",
       .spec = roce4(0, h0, h3, 0),
       .out_port = 3,
       .tc = 0,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_ipv4, 1}}},
      {.name = "ipv4_host2_to_host1_ttl255",
       .in_port = 2,
       .spec = with(roce4(2, ipv4_bytes(10, 0, 2, 2), ipv4_bytes(10, 0, 1, 2)),
                    [](FrameSpec& s) { s.ttl = 255; }),
       .out_port = 1,
       .tc = 3,
       .next_hop = host_mac(1)},
      {.name = "ipv4_ttl2_still_forwarded",
       .spec = with(roce4(0, h0, h3), [](FrameSpec& s) { s.ttl = 2; }),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3)},
      {.name = "ipv6_host0_to_host3",
       .spec = roce6(0, h0v6, h3v6),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_ipv6, 1}, {C::rx_rocev2, 1}}},
      {.name = "ipv6_host3_to_host0_dscp48",
       .in_port = 3,
       .spec = roce6(3, h3v6, h0v6, 48),
       .out_port = 0,
       .tc = 6,
       .next_hop = host_mac(0)},
      {.name = "ipv4_with_options_and_udp_checksum",
       .spec = with(roce4(0, h0, h3),
                    [](FrameSpec& s) {
                      s.ipv4_options = {0x01, 0x01, 0x01, 0x00};  // NOP, NOP, NOP, EOL
                      s.udp_checksum = true;
                    }),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3)},
      {.name = "ipv4_plain_udp_not_roce",
       .spec = with(roce4(0, h0, ipv4_bytes(10, 0, 2, 2), 0), [](FrameSpec& s) { s.dport = 53; }),
       .out_port = 2,
       .tc = 0,
       .next_hop = host_mac(2),
       .rx_counts = {{C::rx_rocev2, 0}, {C::rx_ipv4, 1}}},
      {.name = "ipv6_with_hop_by_hop_extension",
       .in_port = 1,
       .spec = with(roce6(1, v6({0xfd00, 0, 1, 0, 0, 0, 0, 2}), v6({0xfd00, 0, 2, 0, 0, 0, 0, 2})),
                    [](FrameSpec& s) {
                      s.ipv6_ext = {Ipv6Ext{0, 8}};
                    }),
       .out_port = 2,
       .tc = 3,
       .next_hop = host_mac(2),
       .rx_counts = {{C::rx_rocev2, 1}}},
      {.name = "cnp_dscp48_class6",
       .spec = with(with(roce4(0, h0, h3, 48), cnp), [](FrameSpec& s) { s.ecn = kEcnNotEct; }),
       .out_port = 3,
       .tc = 6,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_cnp, 1}, {C::rx_rocev2, 1}}},
      {.name = "cnp_to_uplink_class6",
       .in_port = 1,
       .spec = with(roce4(1, ipv4_bytes(10, 0, 1, 2), ipv4_bytes(10, 3, 0, 9), 48), cnp),
       .tc = 6,
       .rx_counts = {{C::rx_cnp, 1}}},
      {.name = "trust_dscp_tagged_pcp6_dscp0",
       .spec = with(roce4(0, h0, h3, 0), tag(6, 100)),
       .out_port = 3,
       .tc = 0,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_vlan_tagged, 1}}},
      {.name = "trust_pcp_tagged_pcp3_dscp0",
       .sets = {"qos.trust=pcp"},
       .spec = with(roce4(0, h0, h3, 0), tag(3, 100)),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_vlan_tagged, 1}}},
      {.name = "trust_pcp_tagged_pcp0_dscp26",
       .sets = {"qos.trust=pcp"},
       .spec = with(roce4(0, h0, h3, 26), tag(0, 7)),
       .out_port = 3,
       .tc = 0,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_vlan_tagged, 1}}},
      {.name = "trust_pcp_untagged_by_dscp26",
       .sets = {"qos.trust=pcp"},
       .spec = roce4(0, h0, h3, 26),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3),
       .rx_counts = {{C::rx_vlan_tagged, 0}}},
      {.name = "trust_pcp_untagged_by_dscp48",
       .sets = {"qos.trust=pcp"},
       .spec = roce6(0, h0v6, h3v6, 48),
       .out_port = 3,
       .tc = 6,
       .next_hop = host_mac(3)},
      {.name = "promiscuous_port_forwards_foreign_unicast",
       .sets = {"ports[0].promiscuous=true"},
       .spec = with(roce4(0, h0, h3),
                    [](FrameSpec& s) { s.dst_mac = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee}; }),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3)},
      {.name = "no_default_route_host_to_host_still_works",
       .sets = {"routes=[]"},
       .spec = roce4(0, h0, h3),
       .out_port = 3,
       .tc = 3,
       .next_hop = host_mac(3)},
  };
}

TEST_F(PipelineTest, ForwardCases) {
  for (const ForwardCase& c : forward_cases()) {
    SCOPED_TRACE(c.name);
    start(c.sets);
    const Frame in = build_frame(c.spec);
    run(c.in_port, in);
    const Out out = take_only();
    if (!out.ok) continue;

    uint16_t expect_port = static_cast<uint16_t>(c.out_port);
    MacBytes next_hop = c.next_hop;
    if (c.out_port < 0) {
      EXPECT_GE(out.port, kFirstUplink);
      EXPECT_LE(out.port, kLastUplink);
      expect_port = out.port;
      next_hop = spine_mac(static_cast<uint8_t>(out.port));
    }
    EXPECT_EQ(out.port, expect_port);
    EXPECT_EQ(out.tc, c.tc);
    EXPECT_EQ(out.bytes, forwarded(c.spec, next_hop, expect_port));

    ParsedPacket p;
    ASSERT_EQ(parse_frame(out.bytes.data(), static_cast<uint32_t>(out.bytes.size()),
                          static_cast<uint32_t>(out.bytes.size()), p),
              ParseResult::ok);
    EXPECT_EQ(p.ttl, c.spec.ttl - 1);
    if (p.ip_version == 4) {
      EXPECT_TRUE(ipv4_checksum_ok(out.bytes.data() + p.l3_offset));
    }

    const Snapshot s = dp_->snapshot();
    EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
    EXPECT_EQ(s.port[c.in_port][PortCounter::rx_packets], 1u);
    EXPECT_EQ(s.port[c.in_port][PortCounter::rx_bytes], in.size());
    EXPECT_EQ(s.queue[expect_port][c.tc].enqueued_packets, 1u);
    EXPECT_EQ(s.queue[expect_port][c.tc].enqueued_bytes, in.size());
    for (const auto& [k, n] : c.rx_counts) EXPECT_EQ(s.port[c.in_port][k], n) << counter_name(k);
    uint64_t member_packets = 0;
    for (const auto& m : s.member) member_packets += m.packets;
    EXPECT_EQ(member_packets, c.out_port < 0 ? 1u : 0u);
  }
}

// ---------------------------------------------------------------------------
// Dropped frames

struct DropCase {
  const char* name;
  std::vector<std::string> sets = {};
  uint16_t in_port = 0;
  Frame frame;
  uint16_t drop_port = 0;
  DropReason reason = DropReason::kCount;
  Counts rx_counts = {};  // on the ingress port
};

std::vector<DropCase> drop_cases() {
  const IpBytes h0 = ipv4_bytes(10, 0, 0, 2);
  const IpBytes h0v6 = v6({0xfd00, 0, 0, 0, 0, 0, 0, 2});
  const IpBytes remote6 = v6({0xfd00, 2, 0, 0, 0, 0, 0, 2});
  const FrameSpec remote = roce4(0, h0, ipv4_bytes(10, 2, 0, 2));
  const Frame good = build_frame(remote);
  auto ttl = [](uint8_t t) { return [t](FrameSpec& s) { s.ttl = t; }; };
  auto dst = [](MacBytes m) { return [m](FrameSpec& s) { s.dst_mac = m; }; };
  const MacBytes foreign = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};

  FrameSpec arp;  // an ARP request from host 0 for another port's address
  arp.payload = FramePayload::kArp;
  arp.dst_mac = kBroadcastMac;
  arp.src_mac = host_mac(0);
  arp.arp_sha = host_mac(0);
  arp.arp_spa = v4_host(10, 0, 0, 2);
  arp.arp_tpa = v4_host(10, 0, 1, 1);

  FrameSpec v1 = roce6(0, h0v6, v6({0xfd00, 0, 3, 0, 0, 0, 0, 2}));
  v1.payload = FramePayload::kRoceV1;

  FrameSpec raw;
  raw.payload = FramePayload::kRaw;
  raw.ethertype = 0x88b5;  // IEEE local experimental
  raw.dst_mac = port_mac(0);
  raw.src_mac = host_mac(0);
  raw.payload_len = 46;

  FrameSpec bad_mc = pause_frame_spec(host_mac(0), 10);
  bad_mc.mac_control_opcode = 0x0002;

  using C = PortCounter;
  using R = DropReason;
  return {
      // TTL / hop limit.
      {.name = "ttl1_group_route",
       .frame = build_frame(with(remote, ttl(1))),
       .reason = R::ttl_expired,
       .rx_counts = {{C::rx_rocev2, 1}}},
      {.name = "ttl1_connected_route",
       .frame = build_frame(with(roce4(0, h0, ipv4_bytes(10, 0, 3, 2)), ttl(1))),
       .reason = R::ttl_expired},
      {.name = "ttl0", .frame = build_frame(with(remote, ttl(0))), .reason = R::ttl_expired},
      {.name = "hop_limit1_group_route",
       .frame = build_frame(with(roce6(0, h0v6, remote6), ttl(1))),
       .reason = R::ttl_expired,
       .rx_counts = {{C::rx_ipv6, 1}}},
      {.name = "hop_limit1_connected_route",
       .in_port = 1,
       .frame = build_frame(with(
           roce6(1, v6({0xfd00, 0, 1, 0, 0, 0, 0, 2}), v6({0xfd00, 0, 3, 0, 0, 0, 0, 2})), ttl(1))),
       .drop_port = 1,
       .reason = R::ttl_expired},

      // Destination MAC.
      {.name = "dst_mac_of_another_port",
       .frame = build_frame(with(remote, dst(port_mac(1)))),
       .reason = R::dst_mac_not_accepted,
       .rx_counts = {{C::rx_rocev2, 1}}},
      {.name = "dst_mac_foreign_unicast",
       .frame = build_frame(with(remote, dst(foreign))),
       .reason = R::dst_mac_not_accepted},
      {.name = "ipv4_multicast_mac_refused_when_promiscuous",
       .sets = {"ports[0].promiscuous=true"},
       .frame = build_frame(with(remote, dst({0x01, 0x00, 0x5e, 0x00, 0x00, 0x01}))),
       .reason = R::dst_mac_not_accepted},
      {.name = "ipv6_multicast_mac_refused_when_promiscuous",
       .sets = {"ports[0].promiscuous=true"},
       .frame = build_frame(with(roce6(0, h0v6, remote6), dst({0x33, 0x33, 0, 0, 0, 0x01}))),
       .reason = R::dst_mac_not_accepted},
      {.name = "promiscuous_is_per_port",
       .sets = {"ports[1].promiscuous=true"},
       .frame = build_frame(with(remote, dst(foreign))),
       .reason = R::dst_mac_not_accepted},

      // ARP not for the switch.
      {.name = "arp_for_another_ports_address",
       .frame = build_frame(arp),
       .reason = R::arp_not_for_switch,
       .rx_counts = {{C::consumed_arp, 0}, {C::generated_arp_replies, 0}}},
      {.name = "arp_for_a_host",
       .frame = build_frame(with(arp, [](FrameSpec& s) { s.arp_tpa = v4_host(10, 0, 0, 3); })),
       .reason = R::arp_not_for_switch},

      // RoCEv1 is link-local.
      {.name = "rocev1",
       .frame = build_frame(v1),
       .reason = R::rocev1_not_routable,
       .rx_counts = {{C::rx_rocev1, 1}, {C::rx_rocev2, 0}}},

      // The switch's own addresses.
      {.name = "to_own_port_address",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(10, 0, 0, 1))),
       .reason = R::to_switch_address},
      {.name = "to_other_port_address",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(10, 0, 3, 1))),
       .reason = R::to_switch_address},
      {.name = "to_uplink_address",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(10, 1, 6, 1))),
       .reason = R::to_switch_address},
      {.name = "to_own_ipv6_address",
       .frame = build_frame(roce6(0, h0v6, v6({0xfd00, 0, 0, 0, 0, 0, 0, 1}))),
       .reason = R::to_switch_address},
      {.name = "to_other_ipv6_address",
       .frame = build_frame(roce6(0, h0v6, v6({0xfd00, 0, 2, 0, 0, 0, 0, 1}))),
       .reason = R::to_switch_address},

      // Addresses no router forwards, even though the default route matches.
      {.name = "martian_ipv4_multicast_dst",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(239, 1, 1, 1))),
       .reason = R::martian_address},
      {.name = "martian_ipv4_limited_broadcast_dst",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(255, 255, 255, 255))),
       .reason = R::martian_address},
      {.name = "martian_ipv4_loopback_src",
       .frame = build_frame(roce4(0, ipv4_bytes(127, 0, 0, 1), ipv4_bytes(10, 2, 0, 2))),
       .reason = R::martian_address},
      {.name = "martian_ipv4_zero_src",
       .frame = build_frame(roce4(0, ipv4_bytes(0, 0, 0, 0), ipv4_bytes(10, 2, 0, 2))),
       .reason = R::martian_address},
      {.name = "martian_ipv6_link_local_dst",
       .frame = build_frame(roce6(0, h0v6, v6({0xfe80, 0, 0, 0, 0, 0, 0, 9}))),
       .reason = R::martian_address},
      {.name = "martian_ipv6_link_local_src",
       .frame = build_frame(roce6(0, v6({0xfebf, 0, 0, 0, 0, 0, 0, 9}), remote6)),
       .reason = R::martian_address},
      {.name = "martian_ipv6_multicast_dst",
       .frame = build_frame(roce6(0, h0v6, v6({0xff02, 0, 0, 0, 0, 0, 0, 1}))),
       .reason = R::martian_address},
      {.name = "martian_ipv6_loopback_dst",
       .frame = build_frame(roce6(0, h0v6, v6({0, 0, 0, 0, 0, 0, 0, 1}))),
       .reason = R::martian_address},

      // Connected subnet without a neighbor entry.
      {.name = "no_neighbor_v4",
       .frame = build_frame(roce4(0, h0, ipv4_bytes(10, 0, 2, 77))),
       .reason = R::no_neighbor},
      {.name = "no_neighbor_v6",
       .frame = build_frame(roce6(0, h0v6, v6({0xfd00, 0, 2, 0, 0, 0, 0, 0x77}))),
       .reason = R::no_neighbor},

      // Ethertypes and broadcast.
      {.name = "unknown_ethertype", .frame = build_frame(raw), .reason = R::unsupported_ethertype},
      {.name = "unknown_ethertype_broadcast",
       .frame = build_frame(with(raw, dst(kBroadcastMac))),
       .reason = R::broadcast_not_routed},
      {.name = "ipv4_to_broadcast_mac",
       .frame = build_frame(with(remote, dst(kBroadcastMac))),
       .reason = R::broadcast_not_routed,
       .rx_counts = {{C::rx_ipv4, 1}}},
      {.name = "ipv6_to_broadcast_mac",
       .frame = build_frame(with(roce6(0, h0v6, remote6), dst(kBroadcastMac))),
       .reason = R::broadcast_not_routed},

      // No route (default routes removed).
      {.name = "no_route_v4", .sets = {"routes=[]"}, .frame = good, .reason = R::no_route},
      {.name = "no_route_v6",
       .sets = {"routes=[]"},
       .frame = build_frame(roce6(0, h0v6, remote6)),
       .reason = R::no_route},

      // Parser failures: each maps to its parse_<result> reason, on the
      // ingress port.
      {.name = "parse_eth_truncated",
       .in_port = 2,
       .frame = truncated(good, 10),
       .drop_port = 2,
       .reason = R::parse_eth_truncated,
       .rx_counts = {{C::rx_ipv4, 0}}},
      {.name = "parse_ipv4_truncated",
       .frame = truncated(good, 14 + 10),
       .reason = R::parse_ipv4_truncated,
       .rx_counts = {{C::rx_ipv4, 0}}},
      {.name = "parse_ipv4_bad_ihl",
       .frame = patched(good, 14, 0x44),  // IHL 4: 16 bytes
       .reason = R::parse_ipv4_bad_ihl},
      {.name = "parse_ipv4_bad_version",
       .frame = patched(good, 14, 0x65),
       .reason = R::parse_ipv4_bad_version},
      {.name = "parse_ipv4_bad_total_length",
       .frame = patched(good, 14 + 2, 0xff),  // total length beyond the frame
       .reason = R::parse_ipv4_bad_total_length},
      {.name = "parse_udp_bad_length",
       .frame = patched(patched(good, 14 + 20 + 4, 0x00), 14 + 20 + 5, 0x04),  // UDP length 4
       .reason = R::parse_udp_bad_length},
      {.name = "parse_bth_truncated",
       .in_port = 3,
       .frame = truncated(good, 14 + 20 + 8 + 6),
       .drop_port = 3,
       .reason = R::parse_bth_truncated},
      {.name = "parse_too_many_vlans",
       .frame = build_frame(with(remote,
                                 [](FrameSpec& s) {
                                   s.vlans = {VlanTag{kEthertypeQinQ, 0, false, 1},
                                              VlanTag{kEthertypeVlan, 0, false, 2},
                                              VlanTag{kEthertypeVlan, 0, false, 3}};
                                 })),
       .reason = R::parse_too_many_vlans},
      {.name = "parse_ipv6_truncated",
       .frame = truncated(build_frame(roce6(0, h0v6, remote6)), 14 + 39),
       .reason = R::parse_ipv6_truncated},
      {.name = "parse_arp_unsupported",
       .frame = build_frame(with(arp, [](FrameSpec& s) { s.arp_htype = 6; })),
       .reason = R::parse_arp_unsupported},
      {.name = "parse_mac_control_bad_opcode",
       .frame = build_frame(bad_mc),
       .reason = R::parse_mac_control_bad_opcode,
       .rx_counts = {{C::consumed_pause, 0}}},
      {.name = "parse_grh_truncated",
       .frame = truncated(build_frame(v1), 14 + 30),
       .reason = R::parse_grh_truncated,
       .rx_counts = {{C::rx_rocev1, 0}}},
  };
}

TEST_F(PipelineTest, DropCases) {
  for (const DropCase& c : drop_cases()) {
    SCOPED_TRACE(c.name);
    start(c.sets);
    run(c.in_port, c.frame);
    expect_only_drop(c.drop_port, c.reason);
    const Snapshot s = dp_->snapshot();
    EXPECT_EQ(s.port[c.in_port][PortCounter::rx_packets], 1u);
    EXPECT_EQ(s.port[c.in_port][PortCounter::rx_bytes], c.frame.size());
    EXPECT_EQ(s.port[c.in_port].consumed(), 0u);
    EXPECT_EQ(s.port[c.in_port].generated(), 0u);
    for (const auto& [k, n] : c.rx_counts) EXPECT_EQ(s.port[c.in_port][k], n) << counter_name(k);
    expect_conservation();
  }
}

// ports[].mtu: an IP packet of exactly the MTU passes; one byte more is
// refused at the ingress port (oversize_frame), or, when the ingress port
// takes jumbo frames, at the egress port (mtu_exceeded, counted there).
TEST_F(PipelineTest, MtuIsCheckedAtIngressAndEgress) {
  auto sized = [](uint32_t ip_bytes) {
    // RoCEv2 over IPv4: 20 IP + 8 UDP + 12 BTH + payload + 4 ICRC.
    FrameSpec f = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 0, 3, 2));
    f.payload_len = ip_bytes - 44;
    return build_frame(f);
  };
  start();
  run(0, sized(1500));
  EXPECT_EQ(queued_total(), 1u);
  EXPECT_EQ(all_drops(dp_->snapshot()), 0u);

  start();
  run(0, sized(1501));
  expect_only_drop(0, DropReason::oversize_frame);
  expect_conservation();

  start({"ports[0].mtu=9000"});
  run(0, sized(1501));
  expect_only_drop(3, DropReason::mtu_exceeded);
  expect_conservation();
  run(0, sized(1500));
  EXPECT_EQ(queued_total(), 1u);

  start({"ports[0].mtu=9000", "ports[3].mtu=9000"});
  run(0, sized(9000));
  EXPECT_EQ(queued_total(), 1u);
  EXPECT_EQ(all_drops(dp_->snapshot()), 0u);
}

// The drop names the counters publish for parser failures are
// "parse_<result>", and every parse result maps onto its own drop reason.
TEST(PipelineDropNames, ParseResultsMapToParseDropReasons) {
  for (int i = 1; i < kNumParseResults; ++i) {
    const auto r = static_cast<ParseResult>(i);
    const DropReason d = drop_from_parse(r);
    EXPECT_EQ(drop_name(d), std::string("parse_") + parse_result_name(r));
  }
  EXPECT_EQ(drop_name(DropReason::queue_full), "queue_full");
  EXPECT_EQ(drop_name(DropReason::ttl_expired), "ttl_expired");
}

// ---------------------------------------------------------------------------
// ECMP

TEST_F(PipelineTest, EcmpFlowStaysOnOneMemberAndMemberCountersAddUp) {
  start();
  constexpr int kPackets = 100;
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 2, 0, 2));
  int out_port = -1;
  uint64_t bytes_in = 0;
  for (int i = 0; i < kPackets; ++i) {
    s.psn = static_cast<uint32_t>(i);  // not part of the flow
    s.ip_id = static_cast<uint16_t>(i * 7);
    const Frame in = build_frame(s);
    bytes_in += in.size();
    run(0, in, 1000 + 100 * static_cast<uint64_t>(i));
    const Out out = take_only();
    ASSERT_TRUE(out.ok) << "packet " << i;
    ASSERT_GE(out.port, kFirstUplink);
    ASSERT_LE(out.port, kLastUplink);
    if (out_port < 0) out_port = out.port;
    EXPECT_EQ(out.port, out_port) << "packet " << i << " left the flow's member";
    EXPECT_EQ(out.tc, 3);
    EXPECT_EQ(out.bytes, forwarded(s, spine_mac(static_cast<uint8_t>(out.port)), out.port))
        << "packet " << i;
  }
  const Snapshot snap = dp_->snapshot();
  ASSERT_EQ(snap.member.size(), 4u);  // uplinks: 10.1.4.2 .. 10.1.7.2 → ports 4..7
  uint64_t packets = 0, bytes = 0;
  for (size_t k = 0; k < snap.member.size(); ++k) {
    packets += snap.member[k].packets;
    bytes += snap.member[k].bytes;
    const uint64_t want = static_cast<int>(k) + kFirstUplink == out_port ? kPackets : 0;
    EXPECT_EQ(snap.member[k].packets, want) << "member " << k;
  }
  EXPECT_EQ(packets, static_cast<uint64_t>(kPackets));
  EXPECT_EQ(bytes, bytes_in);
  EXPECT_EQ(snap.port[0][PortCounter::rx_rocev2], static_cast<uint64_t>(kPackets));
  EXPECT_EQ(snap.queue[out_port][3].enqueued_packets, static_cast<uint64_t>(kPackets));
  EXPECT_EQ(all_drops(snap), 0u);
}

TEST_F(PipelineTest, EcmpSpreadsFlowsOverEveryMember) {
  start();
  std::set<uint16_t> used;
  std::array<uint64_t, kMaxPorts> per_port{};
  for (uint16_t sp = 0; sp < 256; ++sp) {
    FrameSpec s = roce4(1, ipv4_bytes(10, 0, 1, 2), ipv4_bytes(10, 2, 0, 2));
    s.sport = static_cast<uint16_t>(49152 + sp);
    run(1, build_frame(s));
    const Out out = take_only();
    ASSERT_TRUE(out.ok);
    used.insert(out.port);
    ++per_port[out.port];
  }
  EXPECT_EQ(used, (std::set<uint16_t>{4, 5, 6, 7}));
  const Snapshot snap = dp_->snapshot();
  for (uint16_t p = kFirstUplink; p <= kLastUplink; ++p)
    EXPECT_EQ(snap.member[p - kFirstUplink].packets, per_port[p]) << "port " << p;
}

// groups.*.control_by_hash (ConWeave's ns-3 balances data only): under
// spraying, a flow's data packets spread over the uplinks but its ACKs and
// CNPs all take the flow hash's member; without it, they spread too.
TEST_F(PipelineTest, ControlByHashKeepsAFlowsAcksOnOneMember) {
  for (const bool by_hash : {true, false}) {
    start({"groups.uplinks.mode=per_packet_random",
           std::string("groups.uplinks.control_by_hash=") + (by_hash ? "true" : "false")});
    std::map<uint8_t, std::set<uint16_t>> ports;  // by opcode
    for (int i = 0; i < 64; ++i)
      for (const uint8_t op : {kRoceOpRcSendOnly, kRoceOpRcAck, kRoceOpCnp}) {
        FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 2, 0, 2));
        s.opcode = op;
        s.psn = static_cast<uint32_t>(i);
        run(0, build_frame(s), 1000 + 100 * static_cast<uint64_t>(i));
        const Out out = take_only();
        ASSERT_TRUE(out.ok) << int(op) << " " << i;
        ports[op].insert(out.port);
      }
    EXPECT_EQ(ports[kRoceOpRcSendOnly].size(), 4u) << by_hash;  // data is sprayed
    EXPECT_EQ(ports[kRoceOpRcAck].size(), by_hash ? 1u : 4u);
    EXPECT_EQ(ports[kRoceOpCnp].size(), by_hash ? 1u : 4u);
    if (by_hash) EXPECT_EQ(ports[kRoceOpRcAck], ports[kRoceOpCnp]);  // one flow, one hash
    dp_.reset();
  }
}

// A packet the switch drops for its TTL is not sent to any member, so it must
// not count as load on one.
TEST_F(PipelineTest, TtlExpiredIsNotCountedOnAGroupMember) {
  start();
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 2, 0, 2));
  s.ttl = 1;
  run(0, build_frame(s));
  expect_only_drop(0, DropReason::ttl_expired);
  const Snapshot snap = dp_->snapshot();
  uint64_t member_packets = 0, member_bytes = 0;
  for (const auto& m : snap.member) {
    member_packets += m.packets;
    member_bytes += m.bytes;
  }
  EXPECT_EQ(member_packets, 0u) << "a TTL-expired packet counted as sent to a group member";
  EXPECT_EQ(member_bytes, 0u);
}

// ---------------------------------------------------------------------------
// ARP

FrameSpec arp_request(uint16_t port, uint8_t host_octet, uint32_t target) {
  FrameSpec s;
  s.payload = FramePayload::kArp;
  s.dst_mac = kBroadcastMac;
  s.src_mac = host_mac(static_cast<uint8_t>(port));
  s.arp_op = 1;
  s.arp_sha = host_mac(static_cast<uint8_t>(port));
  s.arp_spa = v4_host(10, 0, static_cast<uint8_t>(port), host_octet);
  s.arp_tha = {};
  s.arp_tpa = target;
  return s;
}

// The reply the switch should send for `req` from port `port`.
Frame arp_reply(const FrameSpec& req, uint16_t port) {
  FrameSpec r = req;
  r.dst_mac = req.arp_sha;
  r.src_mac = port_mac(static_cast<uint8_t>(port));
  r.arp_op = 2;
  r.arp_sha = port_mac(static_cast<uint8_t>(port));
  r.arp_spa = req.arp_tpa;
  r.arp_tha = req.arp_sha;
  r.arp_tpa = req.arp_spa;
  return build_frame(r);  // padded to 60 bytes
}

TEST_F(PipelineTest, ArpRequestForPortAddressIsAnswered) {
  start();
  const FrameSpec req = arp_request(0, 2, v4_host(10, 0, 0, 1));
  run(0, build_frame(req));
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.port, 0);
  EXPECT_EQ(out.tc, kControlTc);
  EXPECT_EQ(out.tc, 7);
  EXPECT_EQ(out.bytes, arp_reply(req, 0));
  EXPECT_EQ(out.bytes.size(), 60u);
  expect_counts(0, {{PortCounter::rx_packets, 1},
                    {PortCounter::consumed_arp, 1},
                    {PortCounter::generated_arp_replies, 1}});
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
  EXPECT_EQ(s.queue[0][kControlTc].enqueued_packets, 1u);
}

TEST_F(PipelineTest, ArpRequestOnEveryPortIsAnsweredOnThatPort) {
  start();
  for (uint8_t p = 0; p < 8; ++p) {
    SCOPED_TRACE("port " + std::to_string(p));
    FrameSpec req = arp_request(p, 2, v4_host(10, p < 4 ? 0 : 1, p, 1));
    req.src_mac = {0x02, 0, 0, 0, 0x03, p};
    req.arp_sha = req.src_mac;
    req.arp_spa = v4_host(10, p < 4 ? 0 : 1, p, 2);
    run(p, build_frame(req));
    const Out out = take_only();
    ASSERT_TRUE(out.ok);
    EXPECT_EQ(out.port, p);
    EXPECT_EQ(out.tc, kControlTc);
    EXPECT_EQ(out.bytes, arp_reply(req, p));
    expect_counts(p, {{PortCounter::consumed_arp, 1}, {PortCounter::generated_arp_replies, 1}});
  }
}

TEST_F(PipelineTest, ShortArpRequestGetsAReplyPaddedTo60Bytes) {
  start();
  const FrameSpec req = arp_request(0, 2, v4_host(10, 0, 0, 1));
  const Frame in = truncated(build_frame(req), 14 + 28);  // no Ethernet padding
  run(0, in);
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.bytes.size(), 60u);
  EXPECT_EQ(out.bytes, arp_reply(req, 0));
  expect_counts(0, {{PortCounter::rx_bytes, 42}, {PortCounter::generated_arp_replies, 1}});
}

TEST_F(PipelineTest, ArpRequestUnicastToPortMacIsAnswered) {
  start();
  FrameSpec req = arp_request(2, 2, v4_host(10, 0, 2, 1));
  req.dst_mac = port_mac(2);
  req.arp_tha = port_mac(2);
  run(2, build_frame(req));
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.port, 2);
  EXPECT_EQ(out.bytes, arp_reply(req, 2));
}

TEST_F(PipelineTest, VlanTaggedArpReplyKeepsTheTag) {
  start();
  FrameSpec req = arp_request(0, 2, v4_host(10, 0, 0, 1));
  req.vlans = {VlanTag{kEthertypeVlan, 5, false, 42}};
  run(0, build_frame(req));
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.port, 0);
  EXPECT_EQ(out.tc, kControlTc);
  EXPECT_EQ(out.bytes, arp_reply(req, 0));
  EXPECT_EQ(out.bytes.size(), 60u);
  expect_counts(0, {{PortCounter::rx_vlan_tagged, 1},
                    {PortCounter::consumed_arp, 1},
                    {PortCounter::generated_arp_replies, 1}});
}

TEST_F(PipelineTest, ArpReplyToTheSwitchIsConsumedWithoutAnswer) {
  start();
  FrameSpec rep = arp_request(0, 2, v4_host(10, 0, 0, 1));
  rep.arp_op = 2;
  rep.dst_mac = port_mac(0);
  rep.arp_tha = port_mac(0);
  run(0, build_frame(rep));
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.queued_packets, 0u);
  EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
  expect_counts(0, {{PortCounter::consumed_arp, 1}, {PortCounter::generated_arp_replies, 0}});
  expect_conservation();
}

// ---------------------------------------------------------------------------
// MAC control

TEST_F(PipelineTest, PfcFrameIsConsumed) {
  start();
  const Frame in = build_frame(pfc_frame_spec(host_mac(0), 0x08, {0, 0, 0, 0xffff, 0, 0, 0, 0}));
  run(0, in);
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.queued_packets, 0u);
  EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
  expect_counts(0, {{PortCounter::rx_packets, 1},
                    {PortCounter::rx_pfc_frames, 1},
                    {PortCounter::consumed_pfc, 1},
                    {PortCounter::rx_pause_frames, 0},
                    {PortCounter::consumed_pause, 0}});
  expect_conservation();
}

TEST_F(PipelineTest, PauseFrameIsConsumed) {
  start();
  run(5, build_frame(pause_frame_spec(spine_mac(5), 0xffff)));
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.queued_packets, 0u);
  EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
  expect_counts(5, {{PortCounter::rx_packets, 1},
                    {PortCounter::rx_pause_frames, 1},
                    {PortCounter::consumed_pause, 1},
                    {PortCounter::rx_pfc_frames, 0},
                    {PortCounter::consumed_pfc, 0}});
  expect_conservation();
}

TEST_F(PipelineTest, PfcFrameToPortMacIsConsumedAndToOtherMulticastIsRefused) {
  start();
  FrameSpec s = pfc_frame_spec(host_mac(0), 0x01, {100, 0, 0, 0, 0, 0, 0, 0});
  s.dst_mac = port_mac(0);
  run(0, build_frame(s));
  expect_counts(0, {{PortCounter::consumed_pfc, 1}});
  s.dst_mac = {0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e};  // LLDP's group address
  run(0, build_frame(s));
  expect_only_drop(0, DropReason::dst_mac_not_accepted);
  expect_counts(0, {{PortCounter::consumed_pfc, 1}, {PortCounter::rx_pfc_frames, 1}});
}

// An IP packet sent to the PFC group address is not MAC control: refused.
TEST_F(PipelineTest, IpToPfcAddressIsRefused) {
  start();
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 0, 3, 2));
  s.dst_mac = kPfcDstMac;
  run(0, build_frame(s));
  expect_only_drop(0, DropReason::dst_mac_not_accepted);
}

// ---------------------------------------------------------------------------
// Tail drop

// A 1100-byte RoCEv2 frame from host 0 (58 bytes of headers and ICRC; no pad
// bytes, so the frame has exactly that size).
FrameSpec big_frame(IpBytes dst) {
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), dst);
  s.payload_len = 1100 - (14 + 20 + 8 + kBthLen + kIcrcLen);
  s.pad = 0;
  return s;
}

TEST_F(PipelineTest, TailDropCountsOnEgressPortAndQueue) {
  start({"qos.queue_limit=3000", "qos.pfc_enable=[]"});  // class 3 lossy: tail drop
  FrameSpec s = big_frame(ipv4_bytes(10, 0, 3, 2));
  ASSERT_EQ(build_frame(s).size(), 1100u);
  for (uint32_t i = 0; i < 3; ++i) {
    s.psn = i;
    run(0, build_frame(s));
  }
  const Snapshot snap = dp_->snapshot();
  EXPECT_EQ(dp_->tx(3).queues[3].depth_packets(), 2u);
  EXPECT_EQ(dp_->tx(3).queues[3].depth_bytes(), 2200u);
  EXPECT_EQ(snap.queued_packets, 2u);
  EXPECT_EQ(snap.port[3].drops[static_cast<int>(DropReason::queue_full)], 1u)
      << "drops:" << drops_text(snap);
  EXPECT_EQ(snap.port[0].total_drops(), 0u) << "tail drop counted on the ingress port";
  EXPECT_EQ(all_drops(snap), 1u) << drops_text(snap);
  EXPECT_EQ(snap.queue[3][3].enqueued_packets, 2u);
  EXPECT_EQ(snap.queue[3][3].enqueued_bytes, 2200u);
  EXPECT_EQ(snap.queue[3][3].dropped_packets, 1u);
  EXPECT_EQ(snap.queue[3][3].dropped_bytes, 1100u);
  EXPECT_EQ(snap.port[0][PortCounter::rx_packets], 3u);
  expect_conservation();
  // The two queued are the first two, in order.
  for (uint32_t i = 0; i < 2; ++i) {
    s.psn = i;
    EXPECT_EQ(pop(3, 3), forwarded(s, host_mac(3), 3));
  }
}

TEST_F(PipelineTest, TailDropOnAnUplinkCountsOnThatUplink) {
  start({"qos.queue_limit=3000", "qos.pfc_enable=[]"});  // class 3 lossy: tail drop
  FrameSpec s = big_frame(ipv4_bytes(10, 2, 0, 2));
  for (uint32_t i = 0; i < 3; ++i) run(0, build_frame(s));
  const std::vector<Queued> occ = occupied();
  ASSERT_EQ(occ.size(), 1u);
  const uint16_t up = occ[0].port;
  EXPECT_EQ(occ[0].packets, 2u);
  const Snapshot snap = dp_->snapshot();
  EXPECT_EQ(snap.port[up].drops[static_cast<int>(DropReason::queue_full)], 1u) << drops_text(snap);
  EXPECT_EQ(all_drops(snap), 1u) << drops_text(snap);
  EXPECT_EQ(snap.queue[up][3].dropped_packets, 1u);
  expect_conservation();
}

// ---------------------------------------------------------------------------
// Conservation over a mixed burst

TEST_F(PipelineTest, MixedBurstConservesEveryPacket) {
  start({"qos.queue_limit=3000", "qos.pfc_enable=[]"});  // class 3 lossy: tail drop
  const IpBytes h0 = ipv4_bytes(10, 0, 0, 2);
  const IpBytes h0v6 = v6({0xfd00, 0, 0, 0, 0, 0, 0, 2});
  std::vector<Frame> burst;
  uint64_t expect_queued = 0, expect_drops = 0, expect_consumed = 0, expect_generated = 0;
  // Routed to the uplinks.
  for (uint8_t i = 0; i < 4; ++i) {
    FrameSpec s = roce4(0, h0, ipv4_bytes(10, 2, i, 2));
    s.sport = static_cast<uint16_t>(50000 + i);
    burst.push_back(build_frame(s));
    ++expect_queued;
  }
  for (uint8_t i = 0; i < 2; ++i) {
    burst.push_back(build_frame(roce6(0, h0v6, v6({0xfd00, 2, i, 0, 0, 0, 0, 2}))));
    ++expect_queued;
  }
  // Three big frames of one flow to host 3: the third is tail-dropped.
  const FrameSpec big = big_frame(ipv4_bytes(10, 0, 3, 2));
  for (int i = 0; i < 3; ++i) burst.push_back(build_frame(big));
  expect_queued += 2;
  ++expect_drops;
  // ARP: one answered, one not for the switch.
  burst.push_back(build_frame(arp_request(0, 2, v4_host(10, 0, 0, 1))));
  ++expect_consumed;
  ++expect_generated;
  ++expect_queued;
  burst.push_back(build_frame(arp_request(0, 2, v4_host(10, 0, 1, 1))));
  ++expect_drops;
  // PFC and PAUSE.
  burst.push_back(build_frame(pfc_frame_spec(host_mac(0), 0x08, {0, 0, 0, 500, 0, 0, 0, 0})));
  burst.push_back(build_frame(pause_frame_spec(host_mac(0), 500)));
  expect_consumed += 2;
  // Dropped for assorted reasons.
  FrameSpec v1 = roce6(0, h0v6, v6({0xfd00, 0, 3, 0, 0, 0, 0, 2}));
  v1.payload = FramePayload::kRoceV1;
  burst.push_back(build_frame(v1));
  burst.push_back(build_frame(roce4(0, h0, ipv4_bytes(10, 0, 0, 1))));
  burst.push_back(build_frame(roce4(0, h0, ipv4_bytes(10, 0, 2, 77))));
  FrameSpec raw;
  raw.payload = FramePayload::kRaw;
  raw.ethertype = 0x88b5;
  raw.dst_mac = port_mac(0);
  raw.payload_len = 46;
  burst.push_back(build_frame(raw));
  burst.push_back(build_frame(with(roce4(0, h0, ipv4_bytes(10, 0, 3, 2)),
                                   [](FrameSpec& s) { s.dst_mac = kBroadcastMac; })));
  const Frame good = build_frame(roce4(0, h0, ipv4_bytes(10, 2, 0, 2)));
  burst.push_back(truncated(good, 24));
  burst.push_back(patched(good, 14, 0x44));
  burst.push_back(
      build_frame(with(roce4(0, h0, ipv4_bytes(10, 0, 2, 2)), [](FrameSpec& s) { s.ttl = 1; })));
  burst.push_back(build_frame(
      with(roce4(0, h0, ipv4_bytes(10, 2, 0, 2)), [](FrameSpec& s) { s.dst_mac = port_mac(3); })));
  expect_drops += 9;
  // A CNP and a class-0 packet to hosts.
  burst.push_back(build_frame(with(roce4(0, h0, ipv4_bytes(10, 0, 3, 2), 48), [](FrameSpec& s) {
    s.opcode = kRoceOpCnp;
    s.payload_len = kCnpPayloadLen;
  })));
  burst.push_back(build_frame(roce4(0, h0, ipv4_bytes(10, 0, 1, 2), 0)));
  expect_queued += 2;
  // Fill up to 32 with more remote flows, v4 and v6.
  for (uint8_t i = 0; burst.size() < kMaxBurst; ++i) {
    if (i % 2) {
      burst.push_back(build_frame(roce6(0, h0v6, v6({0xfd00, 3, i, 0, 0, 0, 0, 9}))));
    } else {
      FrameSpec s = roce4(0, h0, ipv4_bytes(10, 3, i, 9));
      s.sport = static_cast<uint16_t>(60000 + i);
      burst.push_back(build_frame(s));
    }
    ++expect_queued;
  }
  ASSERT_EQ(burst.size(), 32u);

  run_burst(0, burst);
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.port[0][PortCounter::rx_packets], 32u);
  EXPECT_EQ(s.queued_packets, expect_queued);
  EXPECT_EQ(queued_total(), expect_queued);
  EXPECT_EQ(all_drops(s), expect_drops) << drops_text(s);
  EXPECT_EQ(s.port[0].consumed(), expect_consumed);
  EXPECT_EQ(s.port[0].generated(), expect_generated);
  EXPECT_EQ(s.port[3].drops[static_cast<int>(DropReason::queue_full)], 1u) << drops_text(s);
  EXPECT_EQ(s.port[0][PortCounter::rx_cnp], 1u);
  EXPECT_EQ(dp_->tx(3).queues[6].depth_packets(), 1u);
  EXPECT_EQ(dp_->tx(1).queues[0].depth_packets(), 1u);
  EXPECT_EQ(dp_->tx(0).queues[kControlTc].depth_packets(), 1u);
  uint64_t member_packets = 0;
  for (const auto& m : s.member) member_packets += m.packets;
  EXPECT_EQ(member_packets, 4u + 2u + (32u - 24u));
  expect_conservation();

  // Send everything: tx takes over from queued and the balance still holds.
  uint64_t sent = 0;
  for (uint16_t id : dp_->config().port_ids) {
    rte_mbuf* out[kMaxBurst];
    uint64_t start_ps[kMaxBurst];
    uint64_t now_ps = 1'000'000'000;  // 1 ms: after the burst's 500-quanta pause of port 0
    while (!dp_->tx(id).empty()) {
      // One frame may start at a time: step to when the wire is free again.
      now_ps = dp_->tx(id).shaper.next_start(now_ps);
      const uint16_t n = dp_->dequeue(id, now_ps, out, start_ps, kMaxBurst);
      ASSERT_GT(n, 0) << "port " << id << " holds frames but sends none";
      for (uint16_t i = 0; i < n; ++i) {
        dp_->tx(id).count_tx(out[i]->pkt_len);
        rte_pktmbuf_free(out[i]);
      }
      sent += n;
    }
  }
  EXPECT_EQ(sent, expect_queued);
  const Snapshot after = dp_->snapshot();
  EXPECT_EQ(after.queued_packets, 0u);
  uint64_t tx = 0;
  for (const auto& p : after.port) tx += p[PortCounter::tx_packets];
  EXPECT_EQ(tx, expect_queued);
  expect_conservation();
}

// The order of frames in a burst does not change any single frame's fate.
TEST_F(PipelineTest, BurstGivesTheSameResultAsOneByOne) {
  const IpBytes h0 = ipv4_bytes(10, 0, 0, 2);
  const IpBytes h0v6 = v6({0xfd00, 0, 0, 0, 0, 0, 0, 2});
  std::vector<Frame> frames;
  for (uint8_t i = 0; i < 16; ++i) {
    FrameSpec s4 = roce4(0, h0, ipv4_bytes(10, i % 3 == 0 ? 0 : 4, i % 4, 2));
    s4.sport = static_cast<uint16_t>(40000 + 13 * i);
    frames.push_back(build_frame(s4));
    frames.push_back(build_frame(roce6(0, h0v6,
                                       v6({0xfd00, static_cast<uint16_t>(i % 2 ? 0 : 7),
                                           static_cast<uint16_t>(i % 4), 0, 0, 0, 0, 2}))));
  }
  auto collect = [&]() {
    std::vector<std::pair<std::pair<uint16_t, uint8_t>, Frame>> out;
    for (const Queued& q : occupied())
      for (uint64_t k = 0; k < q.packets; ++k) out.push_back({{q.port, q.tc}, pop(q.port, q.tc)});
    std::sort(out.begin(), out.end());
    return out;
  };
  start();
  run_burst(0, frames);
  const auto burst = collect();
  const Snapshot sb = dp_->snapshot();
  start();
  for (const Frame& f : frames) run(0, f);
  const auto single = collect();
  const Snapshot ss = dp_->snapshot();
  EXPECT_EQ(burst.size(), frames.size() - all_drops(sb));
  EXPECT_EQ(burst, single);
  EXPECT_EQ(all_drops(sb), all_drops(ss));
}

// ---------------------------------------------------------------------------
// TTL rewrite: the incremental IPv4 checksum equals a fresh one for every
// checksum value the header can have (ip_id sweeps all of them).

TEST_F(PipelineTest, Ipv4ChecksumAfterTtlDecrementMatchesFullRecompute) {
  start();
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 0, 3, 2));
  s.dport = 4000;  // plain UDP: quicker to build, same IPv4 rewrite
  s.payload_len = 8;
  uint32_t mismatches = 0;
  for (uint32_t base = 0; base < 65536; base += kMaxBurst) {
    std::vector<Frame> in, want;
    for (uint32_t k = 0; k < kMaxBurst; ++k) {
      s.ip_id = static_cast<uint16_t>(base + k);
      s.ttl = static_cast<uint8_t>(2 + (base / kMaxBurst + k) % 254);
      in.push_back(build_frame(s));
      want.push_back(forwarded(s, host_mac(3), 3));
    }
    run_burst(0, in);
    for (uint32_t k = 0; k < kMaxBurst; ++k) {
      const Frame got = pop(3, 3);
      if (got.size() < 26) {
        ADD_FAILURE() << "ip_id " << base + k << ": nothing forwarded";
        ++mismatches;
        continue;
      }
      if (got != want[k] && ++mismatches <= 5)
        ADD_FAILURE() << "ip_id " << base + k << ": checksum " << std::hex
                      << load_be16(got.data() + 24) << " want " << load_be16(want[k].data() + 24);
    }
    ASSERT_EQ(queued_total(), 0u);
  }
  EXPECT_EQ(mismatches, 0u);
}

// ---------------------------------------------------------------------------
// Multi-segment mbufs

// Jumbo frames on every port (ports[].mtu), so 4000-byte payloads pass.
std::vector<std::string> jumbo_ports() {
  std::vector<std::string> sets;
  for (int i = 0; i < 8; ++i) sets.push_back("ports[" + std::to_string(i) + "].mtu=9000");
  return sets;
}

TEST_F(PipelineTest, MultiSegmentFrameIsForwarded) {
  start(jumbo_ports());
  FrameSpec s = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 0, 3, 2));
  s.payload_len = 4000;
  const Frame in = build_frame(s);
  rte_mbuf* m = mbuf(in);
  ASSERT_NE(m, nullptr);
  ASSERT_GT(m->nb_segs, 1) << "frame fits one segment: the test does not test chains";
  process_burst(*dp_, 0, 0, &m, 1, 1000);
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_EQ(out.port, 3);
  EXPECT_EQ(out.tc, 3);
  EXPECT_GT(out.nb_segs, 1);
  EXPECT_EQ(out.bytes, forwarded(s, host_mac(3), 3));
  const Snapshot snap = dp_->snapshot();
  EXPECT_EQ(snap.port[0][PortCounter::rx_bytes], in.size());
  EXPECT_EQ(snap.queue[3][3].enqueued_bytes, in.size());
}

TEST_F(PipelineTest, MultiSegmentIpv6FrameToUplinkIsForwarded) {
  start(jumbo_ports());
  FrameSpec s = roce6(1, v6({0xfd00, 0, 1, 0, 0, 0, 0, 2}), v6({0xfd00, 9, 0, 0, 0, 0, 0, 1}));
  s.payload_len = 4000;
  const Frame in = build_frame(s);
  rte_mbuf* m = mbuf(in);
  ASSERT_NE(m, nullptr);
  ASSERT_GT(m->nb_segs, 1);
  process_burst(*dp_, 0, 1, &m, 1, 1000);
  const Out out = take_only();
  ASSERT_TRUE(out.ok);
  EXPECT_GE(out.port, kFirstUplink);
  EXPECT_LE(out.port, kLastUplink);
  EXPECT_EQ(out.bytes, forwarded(s, spine_mac(static_cast<uint8_t>(out.port)), out.port));
  const Snapshot snap = dp_->snapshot();
  uint64_t member_bytes = 0;
  for (const auto& mc : snap.member) member_bytes += mc.bytes;
  EXPECT_EQ(member_bytes, in.size());
}

// Mode conweave, one leaf playing both ToRs' parts. As the source ToR: a
// RoCE data packet for a remote host leaves on an uplink with ConWeave's
// header after IPv4 (protocol 253; an RTT request, epoch 1, the member it
// took), 16 bytes longer, the RoCE packet after it unchanged. As the
// destination ToR: that marked packet, coming in from a spine for a local
// host, leaves on the host's port as it was first built (TTL aside, its
// ICRC intact), and the RTT reply it asked for leaves on an uplink; the
// reply, coming back for a flow this leaf sends, is taken by the group
// (timely), consumed and not forwarded.
TEST_F(PipelineTest, ConWeaveMarksWhatItSendsUnmarksWhatItDeliversAndAnswers) {
  start({"groups.uplinks.mode=conweave"});
  dp_->set_control_pool(pool_);
  const FrameSpec data = roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 2, 0, 2));
  const Frame plain = build_frame(data);
  run(0, plain, 1000);
  const Out marked = take_only();
  ASSERT_TRUE(marked.ok);
  ASSERT_GE(marked.port, kFirstUplink);
  ASSERT_LE(marked.port, kLastUplink);
  ASSERT_EQ(marked.bytes.size(), plain.size() + kConWeaveShimLen);
  const uint8_t* ip = marked.bytes.data() + 14;
  EXPECT_EQ(ip[kIpv4ProtoOffset], kIpProtoConWeave);
  EXPECT_EQ(load_be16(ip + kIpv4TotalLenOffset), plain.size() - 14 + kConWeaveShimLen);
  EXPECT_TRUE(ipv4_checksum_ok(ip));
  ConWeaveShim sh;
  ASSERT_TRUE(read_conweave_shim(ip + 20, sh));
  EXPECT_EQ(sh.kind, ConWeaveKind::kInit);
  EXPECT_EQ(sh.epoch, 1);
  EXPECT_EQ(sh.phase, 0);
  EXPECT_EQ(sh.path, marked.port - kFirstUplink);
  EXPECT_EQ(sh.tx_ns, 1000u);
  // UDP, BTH, payload and ICRC follow as the host sent them.
  EXPECT_TRUE(std::equal(plain.begin() + 34, plain.end(), marked.bytes.begin() + 34 + 16));

  // The same packet arrives from a spine for host 1 (the destination ToR).
  FrameSpec to1 = data;
  to1.dst_ip = ipv4_bytes(10, 0, 1, 2);
  to1.src_ip = ipv4_bytes(10, 2, 0, 2);
  Frame in = build_frame(to1);
  in.insert(in.begin() + 34, marked.bytes.begin() + 34, marked.bytes.begin() + 50);
  in[14 + kIpv4ProtoOffset] = kIpProtoConWeave;
  store_be16(in.data() + 14 + kIpv4TotalLenOffset,
             static_cast<uint16_t>(load_be16(in.data() + 14 + kIpv4TotalLenOffset) + 16));
  store_be16(in.data() + 14 + kIpv4ChecksumOffset, ipv4_header_checksum(in.data() + 14, 20));
  const MacBytes leaf4 = port_mac(4), spine0 = spine_mac(0);
  std::copy(leaf4.begin(), leaf4.end(), in.begin());
  std::copy(spine0.begin(), spine0.end(), in.begin() + 6);
  run(4, in, 2000);
  FrameSpec delivered = to1;
  delivered.src_mac = spine_mac(0);
  EXPECT_EQ(pop(1, 3), forwarded(delivered, host_mac(1), 1));
  const Out reply = take_only();  // the RTT reply, on an uplink, class 6
  ASSERT_TRUE(reply.ok);
  EXPECT_GE(reply.port, kFirstUplink);
  EXPECT_EQ(reply.tc, 6);
  ASSERT_EQ(reply.bytes.size(), kConWeaveControlFrameLen);
  const uint8_t* rip = reply.bytes.data() + 14;
  EXPECT_EQ(rip[kIpv4ProtoOffset], kIpProtoConWeave);
  EXPECT_EQ(rip[kIpv4TosOffset] >> 2, 48);
  EXPECT_EQ(load_be32(rip + kIpv4SrcOffset), v4_host(10, 0, 1, 2));
  EXPECT_EQ(load_be32(rip + kIpv4DstOffset), v4_host(10, 2, 0, 2));
  ConWeaveShim rs;
  ASSERT_TRUE(read_conweave_shim(rip + 20, rs));
  EXPECT_EQ(rs.kind, ConWeaveKind::kReplyInit);
  EXPECT_EQ(rs.epoch, 1);
  EXPECT_EQ(rs.flow, sh.flow);
  Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.port[4][PortCounter::generated_conweave], 1u);

  // The reply for the first flow comes back from a spine: the source ToR's
  // group takes it in time (deadline 1000 ns + 4 us + 4 us).
  Frame back(kConWeaveControlFrameLen, 0);
  const MacBytes leaf5 = port_mac(5), spine1 = spine_mac(1);
  std::copy(leaf5.begin(), leaf5.end(), back.begin());
  std::copy(spine1.begin(), spine1.end(), back.begin() + 6);
  store_be16(back.data() + 12, 0x0800);
  std::copy(reply.bytes.begin() + 14, reply.bytes.end(), back.begin() + 14);
  store_be32(back.data() + 14 + kIpv4SrcOffset, v4_host(10, 2, 0, 2));
  store_be32(back.data() + 14 + kIpv4DstOffset, v4_host(10, 0, 0, 2));
  store_be16(back.data() + 14 + kIpv4ChecksumOffset, ipv4_header_checksum(back.data() + 14, 20));
  run(5, back, 5000);
  EXPECT_EQ(queued_total(), 0u);
  s = dp_->snapshot();
  EXPECT_EQ(s.port[5][PortCounter::consumed_conweave], 1u);
  EXPECT_EQ(s.groups[0].conweave_replies_timely, 1u);
  EXPECT_EQ(all_drops(s), 0u) << drops_text(s);
  // A reply for a flow no conweave group sends (its source is local) is
  // dropped, named.
  store_be32(back.data() + 14 + kIpv4SrcOffset, v4_host(10, 0, 2, 2));
  store_be16(back.data() + 14 + kIpv4ChecksumOffset, ipv4_header_checksum(back.data() + 14, 20));
  run(5, back, 6000);
  expect_only_drop(5, DropReason::conweave_unmatched);
}

// conweave keeps one core's state: a switch of two workers refuses it, at
// start and in a config change (which leaves the running config).
TEST_F(PipelineTest, ConWeaveNeedsOneWorker) {
  try {
    make_dataplane(test::default_params({"groups.uplinks.mode=conweave"}), 2);
    ADD_FAILURE() << "two workers took conweave";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "groups.uplinks.mode: conweave runs on one forwarding worker (a flow's replies "
              "reach another core than its data); this switch has 2");
  }
  make_dataplane(test::default_params(), 2);
  EXPECT_THROW(dp_->apply(SwitchConfig::build(
                   test::default_params({"groups.uplinks.mode=conweave"}), &dp_->config())),
               std::invalid_argument);
  EXPECT_EQ(dp_->config().groups[0].spec.mode, LbMode::kFixed);
}

// qos.pfc.admission: with `headroom` a lossless PG's packets are refused
// past its XOFF threshold plus its headroom; with `shared_pool` (ns-3's
// switch-mmu.cc) only once the lossless bytes of the whole switch fill the
// shared buffer less every port's headroom. Nothing is dequeued here.
TEST_F(PipelineTest, LosslessAdmissionByHeadroomOrBySharedPool) {
  const FrameSpec spec = with(roce4(0, ipv4_bytes(10, 0, 0, 2), ipv4_bytes(10, 0, 1, 2)),
                              [](FrameSpec& f) { f.payload_len = 1000; });
  const Frame f = build_frame(spec);
  const uint64_t len = f.size();
  auto admitted = [&](const std::string& admission) {
    start({"qos.pfc.xoff=10000", "qos.pfc.xon=5000", "qos.pfc.headroom=5000",
           "qos.buffer.shared_size=100000", "qos.pfc.admission=" + admission});
    for (int b = 0; b < 4; ++b) run_burst(0, std::vector<Frame>(32, f), 1000 + b);
    const Snapshot s = dp_->snapshot();
    EXPECT_EQ(s.port[0].drops[static_cast<int>(DropReason::lossless_dropped)] + s.queued_packets,
              128u);
    const uint64_t queued = s.queued_packets;
    while (queued_total()) pop(1, 3);
    return queued;
  };
  EXPECT_EQ(admitted("headroom"), (10000 + 5000) / len);
  // 100,000 B less 8 ports' 5,000 B of headroom.
  EXPECT_EQ(admitted("shared_pool"), 60000 / len);
  EXPECT_EQ(dp_->config().qos.pfc.pool_limit_bytes, 60000u);
}

}  // namespace
}  // namespace rocelb
