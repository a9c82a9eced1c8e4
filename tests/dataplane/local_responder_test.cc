// The local responder (ICMP echo, IPv6 neighbor discovery) byte by byte and
// through process_burst on the default leaf switch (configs/default.yaml).
// Frames are written by hand here, with their own checksum code, so the
// expected replies do not share code with the responder: each expected
// reply is the request's mirror image built from scratch, and every reply's
// IPv4 header, ICMP and ICMPv6 checksums are verified again on their own.
#include "dataplane/forward/local_responder.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "dataplane/forward/counters.h"
#include "dataplane/forward/pipeline.h"
#include "dataplane/wire/parser.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

using Frame = std::vector<uint8_t>;
using Mac = std::array<uint8_t, 6>;
using Ip4 = std::array<uint8_t, 4>;
using Ip6 = std::array<uint8_t, 16>;

// configs/default.yaml: port N has MAC 02:00:00:00:00:0N, 10.0.N.1 and
// fd00:0:N::1; its host has MAC 02:00:00:00:01:0N, 10.0.N.2, fd00:0:N::2.
constexpr Mac port_mac(uint8_t n) {
  return {0x02, 0, 0, 0, 0x00, n};
}
constexpr Mac host_mac(uint8_t n) {
  return {0x02, 0, 0, 0, 0x01, n};
}

Ip4 ip4(const char* text) {
  Ip4 a{};
  EXPECT_EQ(inet_pton(AF_INET, text, a.data()), 1) << text;
  return a;
}
Ip6 ip6(const char* text) {
  Ip6 a{};
  EXPECT_EQ(inet_pton(AF_INET6, text, a.data()), 1) << text;
  return a;
}
Mac mac_of(const char* text) {
  Mac m{};
  unsigned b[6];
  EXPECT_EQ(std::sscanf(text, "%x:%x:%x:%x:%x:%x", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5]), 6);
  for (int i = 0; i < 6; ++i) m[i] = static_cast<uint8_t>(b[i]);
  return m;
}

// The Internet checksum written out plainly: 16-bit big-endian words summed
// in 64 bits, carries folded, complemented.
uint16_t inet_checksum(const Frame& bytes) {
  uint64_t sum = 0;
  for (size_t i = 0; i < bytes.size(); i += 2) {
    const uint64_t hi = bytes[i];
    const uint64_t lo = i + 1 < bytes.size() ? bytes[i + 1] : 0;
    sum += hi * 256 + lo;
  }
  while (sum > 0xffff) sum = (sum & 0xffff) + (sum >> 16);
  return static_cast<uint16_t>(~sum & 0xffff);
}

void put16(Frame& f, size_t at, uint16_t v) {
  f.at(at) = static_cast<uint8_t>(v >> 8);
  f.at(at + 1) = static_cast<uint8_t>(v & 0xff);
}
uint16_t get16(const Frame& f, size_t at) {
  return static_cast<uint16_t>(f.at(at) * 256 + f.at(at + 1));
}

// The bytes an ICMPv6 checksum covers: pseudo-header (RFC 8200 8.1), message.
Frame icmp6_covered(const Ip6& src, const Ip6& dst, const Frame& msg) {
  Frame c(src.begin(), src.end());
  c.insert(c.end(), dst.begin(), dst.end());
  const uint32_t len = static_cast<uint32_t>(msg.size());
  c.insert(c.end(), {static_cast<uint8_t>(len >> 24), static_cast<uint8_t>(len >> 16),
                     static_cast<uint8_t>(len >> 8), static_cast<uint8_t>(len), 0, 0, 0, 58});
  c.insert(c.end(), msg.begin(), msg.end());
  return c;
}

// ICMP messages, checksum field zero until the packet is assembled.
Frame echo_msg(uint8_t type, uint16_t ident, uint16_t seq, size_t payload_len) {
  Frame m = {type,
             0,
             0,
             0,
             static_cast<uint8_t>(ident >> 8),
             static_cast<uint8_t>(ident),
             static_cast<uint8_t>(seq >> 8),
             static_cast<uint8_t>(seq)};
  for (size_t i = 0; i < payload_len; ++i) m.push_back(static_cast<uint8_t>(0x30 + i % 64));
  return m;
}
Frame ns_msg(const Ip6& target, std::optional<Mac> source_lla) {
  Frame m = {135, 0, 0, 0, 0, 0, 0, 0};
  m.insert(m.end(), target.begin(), target.end());
  if (source_lla) {
    m.insert(m.end(), {1, 1});
    m.insert(m.end(), source_lla->begin(), source_lla->end());
  }
  return m;
}
Frame na_msg(uint8_t flags, const Ip6& target, const Mac& target_lla) {
  Frame m = {136, 0, 0, 0, flags, 0, 0, 0};
  m.insert(m.end(), target.begin(), target.end());
  m.insert(m.end(), {2, 1});
  m.insert(m.end(), target_lla.begin(), target_lla.end());
  return m;
}

// Ethernet (+ one 802.1Q tag when vlan_tci is set), padded to 60 bytes.
Frame ethernet(const Mac& dst, const Mac& src, uint16_t ethertype, const Frame& l3,
               std::optional<uint16_t> vlan_tci = std::nullopt) {
  Frame f(dst.begin(), dst.end());
  f.insert(f.end(), src.begin(), src.end());
  if (vlan_tci) f.insert(f.end(), {0x81, 0x00, uint8_t(*vlan_tci >> 8), uint8_t(*vlan_tci)});
  f.insert(f.end(), {uint8_t(ethertype >> 8), uint8_t(ethertype)});
  f.insert(f.end(), l3.begin(), l3.end());
  if (f.size() < 60) f.resize(60, 0);
  return f;
}

struct V4 {
  Ip4 src, dst;
  uint8_t ttl = 64;
  uint8_t tos = 0;
  uint16_t id = 0x1234;
  Frame options = {};
};

// IPv4 + ICMP with both checksums computed.
Frame ipv4_icmp(const V4& h, Frame msg) {
  put16(msg, 2, 0);
  put16(msg, 2, inet_checksum(msg));
  const size_t hlen = 20 + h.options.size();
  Frame ip = {static_cast<uint8_t>(0x40 | hlen / 4), h.tos, 0, 0, 0, 0, 0x40, 0, h.ttl, 1, 0, 0};
  put16(ip, 2, static_cast<uint16_t>(hlen + msg.size()));
  put16(ip, 4, h.id);
  ip.insert(ip.end(), h.src.begin(), h.src.end());
  ip.insert(ip.end(), h.dst.begin(), h.dst.end());
  ip.insert(ip.end(), h.options.begin(), h.options.end());
  put16(ip, 10, inet_checksum(ip));
  ip.insert(ip.end(), msg.begin(), msg.end());
  return ip;
}

struct V6 {
  Ip6 src, dst;
  uint8_t hop_limit = 255;
  uint32_t vtc_flow = 0x60000000;
  Frame hop_by_hop = {};  // an extension header before ICMPv6, if any
  bool fix_checksum = true;
};

// IPv6 + ICMPv6 with the checksum computed (unless told not to).
Frame ipv6_icmp(const V6& h, Frame msg) {
  if (h.fix_checksum) {
    put16(msg, 2, 0);
    put16(msg, 2, inet_checksum(icmp6_covered(h.src, h.dst, msg)));
  }
  Frame ip = {uint8_t(h.vtc_flow >> 24),
              uint8_t(h.vtc_flow >> 16),
              uint8_t(h.vtc_flow >> 8),
              uint8_t(h.vtc_flow),
              0,
              0,
              58,
              h.hop_limit};
  put16(ip, 4, static_cast<uint16_t>(h.hop_by_hop.size() + msg.size()));
  if (!h.hop_by_hop.empty()) ip[6] = 0;
  ip.insert(ip.end(), h.src.begin(), h.src.end());
  ip.insert(ip.end(), h.dst.begin(), h.dst.end());
  Frame hbh = h.hop_by_hop;
  if (!hbh.empty()) hbh[0] = 58;
  ip.insert(ip.end(), hbh.begin(), hbh.end());
  ip.insert(ip.end(), msg.begin(), msg.end());
  return ip;
}

Frame eth4(const Mac& dst, const Mac& src, const Frame& ip,
           std::optional<uint16_t> vlan = std::nullopt) {
  return ethernet(dst, src, 0x0800, ip, vlan);
}
Frame eth6(const Mac& dst, const Mac& src, const Frame& ip,
           std::optional<uint16_t> vlan = std::nullopt) {
  return ethernet(dst, src, 0x86dd, ip, vlan);
}

// Independent checks of a reply's checksums; l3 is the IP header's offset.
void expect_ipv4_checksums_ok(const Frame& f, size_t l3) {
  const size_t hlen = (f.at(l3) & 0x0f) * 4u;
  EXPECT_EQ(inet_checksum(Frame(f.begin() + l3, f.begin() + l3 + hlen)), 0) << "IPv4 header";
  const size_t total = get16(f, l3 + 2);
  EXPECT_EQ(inet_checksum(Frame(f.begin() + l3 + hlen, f.begin() + l3 + total)), 0) << "ICMP";
}
void expect_icmp6_checksum_ok(const Frame& f, size_t l3) {
  Ip6 src, dst;
  std::copy(f.begin() + l3 + 8, f.begin() + l3 + 24, src.begin());
  std::copy(f.begin() + l3 + 24, f.begin() + l3 + 40, dst.begin());
  const size_t plen = get16(f, l3 + 4);
  const Frame msg(f.begin() + l3 + 40, f.begin() + l3 + 40 + plen);
  EXPECT_EQ(inet_checksum(icmp6_covered(src, dst, msg)), 0) << "ICMPv6";
}

// Addresses of port 0 and its host.
const Ip6 kPort0Ll = ip6("fe80::ff:fe00:0");  // from 02:00:00:00:00:00
const Ip6 kPort0V6 = ip6("fd00:0:0::1");
const Ip6 kHost0V6 = ip6("fd00:0:0::2");
const Ip6 kHost0Ll = ip6("fe80::ff:fe00:100");                        // from 02:00:00:00:01:00
const Mac kPort0SolicitedMac = {0x33, 0x33, 0xff, 0x00, 0x00, 0x01};  // ff02::1:ff00:1
const Mac kPort0LlSolicitedMac = {0x33, 0x33, 0xff, 0x00, 0x00, 0x00};
const Ip6 kPort0Solicited = ip6("ff02::1:ff00:1");
const Ip6 kPort0LlSolicited = ip6("ff02::1:ff00:0");
constexpr uint8_t kRSO = kNaFlagRouter | kNaFlagSolicited | kNaFlagOverride;

LocalPort port0() {
  const Mac m = port_mac(0);
  return make_local_port(m.data(), kPort0V6.data());
}

ParsedPacket parsed(const Frame& f) {
  ParsedPacket p;
  EXPECT_EQ(
      parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), p),
      ParseResult::ok);
  return p;
}

// A Neighbor Solicitation from host 0 for target, as Linux sends it to
// resolve an address: to the target's solicited-node group, with a source
// link-layer address option.
Frame host0_ns(const Ip6& target, const Ip6& group, const Mac& group_mac) {
  return eth6(group_mac, host_mac(0),
              ipv6_icmp({.src = kHost0V6, .dst = group}, ns_msg(target, host_mac(0))));
}

// ---------------------------------------------------------------------------
// Addresses

TEST(LocalResponderAddresses, LinkLocalIsModifiedEui64OfTheMac) {
  uint8_t out[16];
  const Mac a = mac_of("00:11:22:33:44:55");
  ipv6_link_local_from_mac(a.data(), out);
  EXPECT_EQ(Ip6(std::to_array(out)), ip6("fe80::211:22ff:fe33:4455"));
  const Mac b = port_mac(0);
  ipv6_link_local_from_mac(b.data(), out);
  EXPECT_EQ(Ip6(std::to_array(out)), kPort0Ll);
  const Mac c = mac_of("02:aa:bb:cc:dd:ee");
  ipv6_link_local_from_mac(c.data(), out);
  EXPECT_EQ(Ip6(std::to_array(out)), ip6("fe80::aa:bbff:fecc:ddee"));
  const LocalPort lp = port0();
  EXPECT_EQ(Ip6(std::to_array(lp.link_local)), kPort0Ll);
  EXPECT_TRUE(lp.has_v6);
  EXPECT_FALSE(make_local_port(b.data(), nullptr).has_v6);
}

TEST(LocalResponderAddresses, SolicitedNodeMacsOfThePort) {
  const Mac m = port_mac(0);
  const Ip6 v6 = kPort0V6;
  EXPECT_TRUE(is_port_solicited_node_mac(kPort0SolicitedMac.data(), m.data(), v6.data()));
  EXPECT_TRUE(is_port_solicited_node_mac(kPort0LlSolicitedMac.data(), m.data(), v6.data()));
  EXPECT_TRUE(is_port_solicited_node_mac(kPort0LlSolicitedMac.data(), m.data(), nullptr));
  EXPECT_FALSE(is_port_solicited_node_mac(kPort0SolicitedMac.data(), m.data(), nullptr));
  const Mac other = {0x33, 0x33, 0xff, 0x00, 0x00, 0x02};  // the host's group
  EXPECT_FALSE(is_port_solicited_node_mac(other.data(), m.data(), v6.data()));
  const Mac all_nodes = {0x33, 0x33, 0, 0, 0, 1};
  EXPECT_FALSE(is_port_solicited_node_mac(all_nodes.data(), m.data(), v6.data()));
  const Mac not_33 = {0x01, 0x33, 0xff, 0, 0, 1};
  EXPECT_FALSE(is_port_solicited_node_mac(not_33.data(), m.data(), v6.data()));
}

TEST(LocalResponderAddresses, PortIpv6Destinations) {
  const LocalPort lp = port0();
  for (const char* yes :
       {"fe80::ff:fe00:0", "fd00:0:0::1", "ff02::1", "ff02::2", "ff02::1:ff00:1", "ff02::1:ff00:0"})
    EXPECT_TRUE(is_port_ipv6_destination(ip6(yes).data(), lp)) << yes;
  for (const char* no : {"fe80::ff:fe00:1", "fd00:0:0::2", "fd00:0:3::1", "ff02::3",
                         "ff02::1:ff00:2", "ff05::1:ff00:1", "::"})
    EXPECT_FALSE(is_port_ipv6_destination(ip6(no).data(), lp)) << no;
}

// ---------------------------------------------------------------------------
// The rewrites, called directly

TEST(LocalResponderRewrite, Icmp4EchoRequestBecomesTheExactReply) {
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1"), .ttl = 64, .tos = 0x10};
  for (size_t payload : {0u, 56u, 1000u}) {
    SCOPED_TRACE(payload);
    Frame f = eth4(port_mac(0), host_mac(0), ipv4_icmp(req, echo_msg(8, 0x4242, 7, payload)));
    const ParsedPacket p = parsed(f);
    const Mac pm = port_mac(0);
    const uint32_t n = static_cast<uint32_t>(f.size());
    ASSERT_EQ(make_icmp4_echo_reply(f.data(), n, n, p, pm.data()), n);
    const V4 rep = {.src = ip4("10.0.0.1"), .dst = ip4("10.0.0.2"), .ttl = 64, .tos = 0x10};
    EXPECT_EQ(f, eth4(host_mac(0), port_mac(0), ipv4_icmp(rep, echo_msg(0, 0x4242, 7, payload))));
    expect_ipv4_checksums_ok(f, 14);
  }
}

TEST(LocalResponderRewrite, Icmp4EchoReplyKeepsVlanTagAndSetsTtl64) {
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.1.6.1"), .ttl = 3};
  Frame f = eth4(port_mac(0), host_mac(0), ipv4_icmp(req, echo_msg(8, 1, 2, 32)), 0x6064);
  const ParsedPacket p = parsed(f);
  const Mac pm = port_mac(0);
  const uint32_t n = static_cast<uint32_t>(f.size());
  ASSERT_EQ(make_icmp4_echo_reply(f.data(), n, n, p, pm.data()), n);
  const V4 rep = {.src = ip4("10.1.6.1"), .dst = ip4("10.0.0.2"), .ttl = 64};
  EXPECT_EQ(f, eth4(host_mac(0), port_mac(0), ipv4_icmp(rep, echo_msg(0, 1, 2, 32)), 0x6064));
  expect_ipv4_checksums_ok(f, 18);
}

TEST(LocalResponderRewrite, Icmp4NotAnswered) {
  const Mac pm = port_mac(0);
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1")};
  auto untouched = [&](Frame f, const char* why) {
    SCOPED_TRACE(why);
    const Frame before = f;
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    EXPECT_EQ(make_icmp4_echo_reply(f.data(), n, n, p, pm.data()), 0u);
    EXPECT_EQ(f, before);
  };
  untouched(eth4(pm, host_mac(0), ipv4_icmp(req, echo_msg(0, 1, 1, 8))), "echo reply");
  untouched(eth4(pm, host_mac(0), ipv4_icmp(req, echo_msg(13, 1, 1, 8))), "timestamp");
  V4 opt = req;
  opt.options = {7, 7, 4, 0, 0, 0, 0, 0};  // record route
  untouched(eth4(pm, host_mac(0), ipv4_icmp(opt, echo_msg(8, 1, 1, 8))), "IPv4 options");
  Frame frag = eth4(pm, host_mac(0), ipv4_icmp(req, echo_msg(8, 1, 1, 8)));
  frag[14 + 6] = 0x20;  // MF; the checksum no longer matters here
  untouched(frag, "first fragment");
  // ICMP header cut short: 4 bytes of ICMP only.
  Frame shortf = eth4(pm, host_mac(0), ipv4_icmp(req, Frame{8, 0, 0xf7, 0xff}));
  untouched(shortf, "short ICMP");
  V4 mc = req;
  mc.src = ip4("224.0.0.1");
  untouched(eth4(pm, host_mac(0), ipv4_icmp(mc, echo_msg(8, 1, 1, 8))), "multicast source");
  // Not ICMP at all.
  Frame tcp = eth4(pm, host_mac(0), ipv4_icmp(req, echo_msg(8, 1, 1, 8)));
  tcp[14 + 9] = 6;
  untouched(tcp, "TCP");
}

TEST(LocalResponderRewrite, Icmp6EchoRequestBecomesTheExactReply) {
  const Mac pm = port_mac(0);
  for (const Ip6& to : {kPort0V6, kPort0Ll, ip6("fd00:0:3::1")}) {
    const Ip6 from = to == kPort0Ll ? kHost0Ll : kHost0V6;
    Frame f = eth6(pm, host_mac(0),
                   ipv6_icmp({.src = from, .dst = to, .hop_limit = 64, .vtc_flow = 0x6abcdef0},
                             echo_msg(128, 0x77, 3, 56)));
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    uint32_t len = 0;
    ASSERT_EQ(answer_icmp6(f.data(), n, n, n, p, port0(), len), LocalVerdict::kReplied);
    ASSERT_EQ(len, n);
    EXPECT_EQ(f, eth6(host_mac(0), pm,
                      ipv6_icmp({.src = to, .dst = from, .hop_limit = 64, .vtc_flow = 0x6abcdef0},
                                echo_msg(129, 0x77, 3, 56))));
    expect_icmp6_checksum_ok(f, 14);
  }
}

TEST(LocalResponderRewrite, Icmp6EchoNotAnswered) {
  const Mac pm = port_mac(0);
  auto verdict = [&](Frame f) {
    const Frame before = f;
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    uint32_t len = 0;
    const LocalVerdict v = answer_icmp6(f.data(), n, n, 4096, p, port0(), len);
    EXPECT_EQ(f, before);
    EXPECT_EQ(len, 0u);
    return v;
  };
  // To all nodes (multicast).
  EXPECT_EQ(
      verdict(eth6(pm, host_mac(0),
                   ipv6_icmp({.src = kHost0V6, .dst = ip6("ff02::1")}, echo_msg(128, 1, 1, 8)))),
      LocalVerdict::kNotMine);
  // With a hop-by-hop header (PadN).
  EXPECT_EQ(
      verdict(
          eth6(pm, host_mac(0),
               ipv6_icmp({.src = kHost0V6, .dst = kPort0V6, .hop_by_hop = {0, 0, 1, 4, 0, 0, 0, 0}},
                         echo_msg(128, 1, 1, 8)))),
      LocalVerdict::kNotMine);
  // An echo reply, a destination unreachable, an MLD report.
  for (uint8_t type : {129, 1, 143})
    EXPECT_EQ(verdict(eth6(pm, host_mac(0),
                           ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, echo_msg(type, 1, 1, 8)))),
              LocalVerdict::kNotMine)
        << int(type);
  // From the unspecified address.
  EXPECT_EQ(verdict(eth6(pm, host_mac(0),
                         ipv6_icmp({.src = Ip6{}, .dst = kPort0V6}, echo_msg(128, 1, 1, 8)))),
            LocalVerdict::kNotMine);
}

TEST(LocalResponderRewrite, NeighborSolicitationBecomesTheExactAdvertisement) {
  struct Case {
    const char* name;
    Frame ns;
    Frame na;
  };
  const Mac pm = port_mac(0);
  const Mac hm = host_mac(0);
  const Case cases[] = {
      {"global target, solicited-node group",
       host0_ns(kPort0V6, kPort0Solicited, kPort0SolicitedMac),
       eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm)))},
      {"link-local target from link-local source",
       eth6(kPort0LlSolicitedMac, hm,
            ipv6_icmp({.src = kHost0Ll, .dst = kPort0LlSolicited}, ns_msg(kPort0Ll, hm))),
       eth6(hm, pm, ipv6_icmp({.src = kPort0Ll, .dst = kHost0Ll}, na_msg(kRSO, kPort0Ll, pm)))},
      {"unicast (unreachability detection), no option: the frame grows",
       eth6(pm, hm, ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, ns_msg(kPort0V6, std::nullopt))),
       eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm)))},
      {"duplicate address detection: to all nodes, solicited clear",
       eth6(kPort0SolicitedMac, hm,
            ipv6_icmp({.src = Ip6{}, .dst = kPort0Solicited}, ns_msg(kPort0V6, std::nullopt))),
       eth6({0x33, 0x33, 0, 0, 0, 1}, pm,
            ipv6_icmp({.src = kPort0V6, .dst = ip6("ff02::1")},
                      na_msg(kNaFlagRouter | kNaFlagOverride, kPort0V6, pm)))},
      {"VLAN tag kept",
       eth6(kPort0SolicitedMac, hm,
            ipv6_icmp({.src = kHost0V6, .dst = kPort0Solicited}, ns_msg(kPort0V6, hm)), 0x0064),
       eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm)),
            0x0064)},
      {"hop-by-hop header dropped, traffic class and flow label cleared",
       eth6(kPort0SolicitedMac, hm,
            ipv6_icmp({.src = kHost0V6,
                       .dst = kPort0Solicited,
                       .vtc_flow = 0x6b812345,
                       .hop_by_hop = {0, 0, 1, 4, 0, 0, 0, 0}},
                      ns_msg(kPort0V6, hm))),
       eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm)))},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Frame f = c.ns;
    const ParsedPacket p = parsed(f);
    EXPECT_TRUE(is_valid_neighbor_solicitation(f.data(), static_cast<uint32_t>(f.size()), p));
    const uint32_t n = static_cast<uint32_t>(f.size());
    f.resize(256, 0xee);  // room to grow, as an mbuf's tailroom
    uint32_t len = 0;
    ASSERT_EQ(answer_icmp6(f.data(), n, n, 256, p, port0(), len), LocalVerdict::kReplied);
    ASSERT_EQ(len, c.na.size());
    f.resize(len);
    EXPECT_EQ(f, c.na);
    expect_icmp6_checksum_ok(f, f.size() - 72);
    EXPECT_EQ(f[f.size() - 72 + 7], 255) << "hop limit";
  }
}

TEST(LocalResponderRewrite, AdvertisementNeedsRoomToGrow) {
  Frame f = eth6(port_mac(0), host_mac(0),
                 ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, ns_msg(kPort0V6, std::nullopt)));
  const Frame before = f;
  const ParsedPacket p = parsed(f);
  const uint32_t n = static_cast<uint32_t>(f.size());  // 78: the NA needs 86
  EXPECT_EQ(make_neighbor_advertisement(f.data(), n, n, p, port0()), 0u);
  EXPECT_EQ(f, before);
  uint32_t len = 0;
  EXPECT_EQ(answer_icmp6(f.data(), n, n, n, p, port0(), len), LocalVerdict::kConsumed);
  EXPECT_EQ(f, before);
}

// RFC 4861 7.1.1: invalid solicitations are not answered (and consumed).
TEST(LocalResponderRewrite, InvalidNeighborSolicitationsAreNotAnswered) {
  const Mac hm = host_mac(0);
  const V6 ok = {.src = kHost0V6, .dst = kPort0Solicited};
  auto ns_to = [&](V6 h, Frame msg) { return eth6(kPort0SolicitedMac, hm, ipv6_icmp(h, msg)); };
  V6 hl64 = ok;
  hl64.hop_limit = 64;
  V6 bad_sum = ok;
  bad_sum.fix_checksum = false;
  Frame code1 = ns_msg(kPort0V6, hm);
  code1[1] = 1;
  Frame short_msg = ns_msg(kPort0V6, std::nullopt);
  short_msg.resize(20);
  Frame zero_opt = ns_msg(kPort0V6, hm);
  zero_opt[25] = 0;
  Frame cut_opt = ns_msg(kPort0V6, std::nullopt);
  cut_opt.insert(cut_opt.end(), {1, 2, 0, 0, 0, 0, 0, 0});  // says 16 bytes, has 8
  V6 dad = ok;
  dad.src = Ip6{};
  V6 dad_unicast = dad;
  dad_unicast.dst = kPort0V6;
  struct Case {
    const char* name;
    Frame frame;
  };
  const Case cases[] = {
      {"hop limit 64", ns_to(hl64, ns_msg(kPort0V6, hm))},
      {"bad checksum", ns_to(bad_sum, ns_msg(kPort0V6, hm))},
      {"code 1", ns_to(ok, code1)},
      {"ICMP length 20", ns_to(ok, short_msg)},
      {"multicast target", ns_to(ok, ns_msg(ip6("ff02::1:ff00:1"), hm))},
      {"option of length 0", ns_to(ok, zero_opt)},
      {"option beyond the message", ns_to(ok, cut_opt)},
      {"unspecified source with a source link-layer option", ns_to(dad, ns_msg(kPort0V6, hm))},
      {"unspecified source to a unicast address", ns_to(dad_unicast, ns_msg(kPort0V6, {}))},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Frame f = c.frame;
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    EXPECT_FALSE(is_valid_neighbor_solicitation(f.data(), n, p));
    f.resize(256, 0);
    const Frame before = f;
    uint32_t len = 0;
    EXPECT_EQ(answer_icmp6(f.data(), n, n, 256, p, port0(), len), LocalVerdict::kConsumed);
    EXPECT_EQ(len, 0u);
    EXPECT_EQ(f, before);
  }
  // Valid, but for an address that is not the port's.
  for (const Ip6& target : {kHost0V6, ip6("fd00:0:3::1"), ip6("fe80::ff:fe00:3")}) {
    Frame f = ns_to(ok, ns_msg(target, hm));
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    EXPECT_TRUE(is_valid_neighbor_solicitation(f.data(), n, p));
    f.resize(256, 0);
    uint32_t len = 0;
    EXPECT_EQ(answer_icmp6(f.data(), n, n, 256, p, port0(), len), LocalVerdict::kConsumed);
  }
}

TEST(LocalResponderRewrite, OtherNdpMessagesAreConsumed) {
  const Mac pm = port_mac(0);
  for (uint8_t type : {133, 134, 136, 137}) {
    Frame msg = echo_msg(type, 0, 0, 16);
    Frame f = eth6(pm, host_mac(0), ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::2")}, msg));
    const Frame before = f;
    const ParsedPacket p = parsed(f);
    const uint32_t n = static_cast<uint32_t>(f.size());
    uint32_t len = 0;
    EXPECT_EQ(answer_icmp6(f.data(), n, n, n, p, port0(), len), LocalVerdict::kConsumed)
        << int(type);
    EXPECT_EQ(f, before);
  }
}

// ---------------------------------------------------------------------------
// Through process_burst

class LocalResponderPipeline : public test::DpdkTest {
 protected:
  void SetUp() override {
    test::DpdkTest::SetUp();
    make_dataplane(test::default_params());
  }

  void run(uint16_t in_port, const std::vector<Frame>& frames) {
    ASSERT_LE(frames.size(), kMaxBurst);
    std::vector<rte_mbuf*> ms;
    for (const Frame& f : frames) {
      ms.push_back(mbuf(f));
      ASSERT_NE(ms.back(), nullptr);
    }
    process_burst(*dp_, 0, in_port, ms.data(), static_cast<uint16_t>(ms.size()), 1000);
  }

  uint64_t queued(uint16_t port, uint8_t tc) const {
    return dp_->tx(port).queues[tc].depth_packets();
  }
  uint64_t queued_anywhere() const {
    uint64_t n = 0;
    for (uint16_t id : dp_->config().port_ids)
      for (uint8_t c = 0; c < kNumTrafficClasses; ++c) n += queued(id, c);
    return n;
  }

  Frame pop(uint16_t port, uint8_t tc) {
    rte_mbuf* m = dp_->tx(port).queues[tc].pop();
    EXPECT_NE(m, nullptr) << "nothing queued on port " << port << " class " << int(tc);
    if (!m) return {};
    ++taken_;
    Frame f = bytes(m);
    rte_pktmbuf_free(m);
    return f;
  }

  // The one frame the switch should now hold: a reply on (port, class 7).
  Frame only_reply(uint16_t port) {
    EXPECT_EQ(queued_anywhere(), 1u) << drops();
    EXPECT_EQ(queued(port, kControlTc), 1u);
    if (queued(port, kControlTc) != 1) return {};
    return pop(port, kControlTc);
  }

  uint64_t counter(uint16_t port, PortCounter c) const { return dp_->snapshot().port[port][c]; }
  uint64_t drop_count(uint16_t port, DropReason r) const {
    return dp_->snapshot().port[port].drops[static_cast<int>(r)];
  }

  std::string drops() const {
    const Snapshot s = dp_->snapshot();
    std::string out;
    for (int p = 0; p < kMaxPorts; ++p)
      for (int r = 0; r < kNumDropReasons; ++r)
        if (s.port[p].drops[r])
          out += " port" + std::to_string(p) + "." + std::string(kDropInfo[r].name) + "=" +
                 std::to_string(s.port[p].drops[r]);
    return "drops:" + (out.empty() ? std::string(" none") : out);
  }

  uint64_t all_drops() const {
    uint64_t n = 0;
    for (const auto& p : dp_->snapshot().port) n += p.total_drops();
    return n;
  }

  // rx + generated == tx + consumed + drops + queued, for the whole switch;
  // frames the test took from a queue count as transmitted.
  void expect_conservation() {
    const Snapshot s = dp_->snapshot();
    uint64_t rx = 0, generated = 0, tx = 0, consumed = 0, dropped = 0;
    for (const auto& p : s.port) {
      rx += p[PortCounter::rx_packets];
      generated += p.generated();
      tx += p[PortCounter::tx_packets];
      consumed += p.consumed();
      dropped += p.total_drops();
    }
    tx += taken_;
    EXPECT_EQ(rx + generated, tx + consumed + dropped + s.queued_packets)
        << "rx " << rx << " generated " << generated << " tx " << tx << " consumed " << consumed
        << " drops " << dropped << " queued " << s.queued_packets;
  }

  void expect_icmp_counts(uint16_t port, uint64_t consumed, uint64_t generated) {
    EXPECT_EQ(counter(port, PortCounter::consumed_icmp), consumed) << "port " << port;
    EXPECT_EQ(counter(port, PortCounter::generated_icmp_replies), generated) << "port " << port;
  }

  // Exactly one drop in the switch: reason on port; nothing queued.
  void expect_only_drop(uint16_t port, DropReason reason) {
    EXPECT_EQ(drop_count(port, reason), 1u)
        << kDropInfo[static_cast<int>(reason)].name << " " << drops();
    EXPECT_EQ(all_drops(), 1u) << drops();
    EXPECT_EQ(queued_anywhere(), 0u);
  }

  uint64_t taken_ = 0;  // frames popped from queues by the test
};

TEST_F(LocalResponderPipeline, PingToThePortAddressIsAnswered) {
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1"), .ttl = 64};
  run(0, {eth4(port_mac(0), host_mac(0), ipv4_icmp(req, echo_msg(8, 9, 1, 56)))});
  const Frame r = only_reply(0);
  const V4 rep = {.src = ip4("10.0.0.1"), .dst = ip4("10.0.0.2"), .ttl = 64};
  EXPECT_EQ(r, eth4(host_mac(0), port_mac(0), ipv4_icmp(rep, echo_msg(0, 9, 1, 56))));
  expect_ipv4_checksums_ok(r, 14);
  expect_icmp_counts(0, 1, 1);
  EXPECT_EQ(counter(0, PortCounter::consumed_arp), 0u);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, PingToAnotherSwitchAddressIsAnsweredOnTheIngressPort) {
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.1.6.1"), .ttl = 1};  // TTL 1: still ours
  run(0, {eth4(port_mac(0), host_mac(0), ipv4_icmp(req, echo_msg(8, 9, 2, 8)))});
  const Frame r = only_reply(0);
  const V4 rep = {.src = ip4("10.1.6.1"), .dst = ip4("10.0.0.2"), .ttl = 64};
  EXPECT_EQ(r, eth4(host_mac(0), port_mac(0), ipv4_icmp(rep, echo_msg(0, 9, 2, 8))));
  expect_icmp_counts(0, 1, 1);
  expect_conservation();
}

TEST_F(LocalResponderPipeline, LargePingInAChainedMbufIsAnswered) {
  make_dataplane(test::default_params({"ports[2].mtu=9000"}));  // a jumbo port
  const V4 req = {.src = ip4("10.0.2.2"), .dst = ip4("10.0.2.1")};
  const Frame f = eth4(port_mac(2), host_mac(2), ipv4_icmp(req, echo_msg(8, 5, 5, 4000)));
  rte_mbuf* m = mbuf(f);
  ASSERT_NE(m, nullptr);
  ASSERT_GT(m->nb_segs, 1);
  process_burst(*dp_, 0, 2, &m, 1, 1000);
  ASSERT_EQ(queued(2, kControlTc), 1u) << drops();
  rte_mbuf* out = dp_->tx(2).queues[kControlTc].pop();
  ASSERT_NE(out, nullptr);
  ++taken_;
  EXPECT_GT(out->nb_segs, 1);
  const Frame r = bytes(out);
  rte_pktmbuf_free(out);
  const V4 rep = {.src = ip4("10.0.2.1"), .dst = ip4("10.0.2.2")};
  EXPECT_EQ(r, eth4(host_mac(2), port_mac(2), ipv4_icmp(rep, echo_msg(0, 5, 5, 4000))));
  expect_ipv4_checksums_ok(r, 14);
  expect_conservation();
}

TEST_F(LocalResponderPipeline, Ping6ToThePortAddressesIsAnswered) {
  for (const Ip6& to : {kPort0V6, kPort0Ll, ip6("fd00:1:7::1")}) {
    const Ip6 from = to == kPort0Ll ? kHost0Ll : kHost0V6;
    run(0, {eth6(port_mac(0), host_mac(0),
                 ipv6_icmp({.src = from, .dst = to, .hop_limit = 64}, echo_msg(128, 4, 4, 56)))});
    const Frame r = only_reply(0);
    EXPECT_EQ(r,
              eth6(host_mac(0), port_mac(0),
                   ipv6_icmp({.src = to, .dst = from, .hop_limit = 64}, echo_msg(129, 4, 4, 56))));
    expect_icmp6_checksum_ok(r, 14);
  }
  expect_icmp_counts(0, 3, 3);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, NeighborSolicitationsAreAnsweredWithAdvertisements) {
  const Mac pm = port_mac(0);
  const Mac hm = host_mac(0);
  // To the solicited-node MAC of the global address, and of the link-local
  // address; unicast to the port MAC (reachability probe, no option).
  run(0, {host0_ns(kPort0V6, kPort0Solicited, kPort0SolicitedMac)});
  EXPECT_EQ(
      only_reply(0),
      eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm))));
  run(0, {eth6(kPort0LlSolicitedMac, hm,
               ipv6_icmp({.src = kHost0Ll, .dst = kPort0LlSolicited}, ns_msg(kPort0Ll, hm)))});
  EXPECT_EQ(
      only_reply(0),
      eth6(hm, pm, ipv6_icmp({.src = kPort0Ll, .dst = kHost0Ll}, na_msg(kRSO, kPort0Ll, pm))));
  run(0, {eth6(pm, hm,
               ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, ns_msg(kPort0V6, std::nullopt)))});
  const Frame r = only_reply(0);
  EXPECT_EQ(
      r, eth6(hm, pm, ipv6_icmp({.src = kPort0V6, .dst = kHost0V6}, na_msg(kRSO, kPort0V6, pm))));
  expect_icmp6_checksum_ok(r, 14);
  expect_icmp_counts(0, 3, 3);
  EXPECT_EQ(counter(0, PortCounter::rx_ipv6), 3u);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, EveryPortAnswersForItsOwnAddresses) {
  for (uint8_t n = 0; n < 8; ++n) {
    SCOPED_TRACE(int(n));
    const uint8_t net = n < 4 ? 0 : 1;
    char text[32];
    std::snprintf(text, sizeof text, "fd00:%u:%u::1", net, n);
    const Ip6 v6 = ip6(text);
    std::snprintf(text, sizeof text, "fd00:%u:%u::2", net, n);
    const Ip6 peer = ip6(text);
    const Mac peer_mac = {0x02, 0, 0, 0, static_cast<uint8_t>(n < 4 ? 1 : 2), n};
    const Ip6 group = ip6("ff02::1:ff00:1");
    run(n, {eth6(kPort0SolicitedMac, peer_mac,
                 ipv6_icmp({.src = peer, .dst = group}, ns_msg(v6, peer_mac)))});
    EXPECT_EQ(only_reply(n),
              eth6(peer_mac, port_mac(n),
                   ipv6_icmp({.src = v6, .dst = peer}, na_msg(kRSO, v6, port_mac(n)))));
    expect_icmp_counts(n, 1, 1);
  }
  expect_conservation();
}

TEST_F(LocalResponderPipeline, SolicitationForAnotherPortsAddressIsConsumedNotAnswered) {
  // fd00:0:3::1 shares port 0's solicited-node group (ff02::1:ff00:1).
  run(0, {host0_ns(ip6("fd00:0:3::1"), kPort0Solicited, kPort0SolicitedMac)});
  EXPECT_EQ(queued_anywhere(), 0u);
  expect_icmp_counts(0, 1, 0);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, InvalidSolicitationsAreConsumedNotAnswered) {
  const Mac hm = host_mac(0);
  Frame short_msg = ns_msg(kPort0V6, std::nullopt);
  short_msg.resize(20);
  run(0, {
             eth6(kPort0SolicitedMac, hm,
                  ipv6_icmp({.src = kHost0V6, .dst = kPort0Solicited, .hop_limit = 64},
                            ns_msg(kPort0V6, hm))),
             eth6(kPort0SolicitedMac, hm,
                  ipv6_icmp({.src = kHost0V6, .dst = kPort0Solicited},
                            ns_msg(ip6("ff02::1:ff00:1"), hm))),
             eth6(kPort0SolicitedMac, hm,
                  ipv6_icmp({.src = kHost0V6, .dst = kPort0Solicited}, short_msg)),
         });
  EXPECT_EQ(queued_anywhere(), 0u);
  expect_icmp_counts(0, 3, 0);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, OtherNdpToTheSwitchIsConsumedNotForwardedNorMartian) {
  const Mac pm = port_mac(0);
  const Mac hm = host_mac(0);
  run(0,
      {
          // Router solicitation to all routers, router advertisement to
          // all nodes, both sent to the port MAC.
          eth6(pm, hm, ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::2")}, echo_msg(133, 0, 0, 0))),
          eth6(pm, hm, ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::1")}, echo_msg(134, 0, 0, 8))),
          // Neighbor advertisement to the link-local address.
          eth6(pm, hm,
               ipv6_icmp({.src = kHost0Ll, .dst = kPort0Ll},
                         na_msg(kNaFlagSolicited, kHost0Ll, hm))),
          // Redirect to the global address, and NA to another port's address.
          eth6(pm, hm, ipv6_icmp({.src = kHost0Ll, .dst = kPort0V6}, echo_msg(137, 0, 0, 32))),
          eth6(pm, hm,
               ipv6_icmp({.src = kHost0V6, .dst = ip6("fd00:0:2::1")}, na_msg(0, kHost0V6, hm))),
      });
  EXPECT_EQ(queued_anywhere(), 0u);
  expect_icmp_counts(0, 5, 0);
  EXPECT_EQ(all_drops(), 0u) << drops();
  expect_conservation();
}

TEST_F(LocalResponderPipeline, OtherMulticastMacsStayRefused) {
  const Mac hm = host_mac(0);
  struct Case {
    const char* name;
    Frame frame;
  };
  const Case cases[] = {
      {"router solicitation to 33:33:00:00:00:02",
       eth6({0x33, 0x33, 0, 0, 0, 2}, hm,
            ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::2")}, echo_msg(133, 0, 0, 0)))},
      {"echo to all nodes",
       eth6({0x33, 0x33, 0, 0, 0, 1}, hm,
            ipv6_icmp({.src = kHost0V6, .dst = ip6("ff02::1")}, echo_msg(128, 0, 0, 8)))},
      {"NS to another solicited-node group",
       host0_ns(ip6("fd00:0:0::5"), ip6("ff02::1:ff00:5"), {0x33, 0x33, 0xff, 0, 0, 5})},
      {"echo request through the solicited-node MAC",
       eth6(kPort0SolicitedMac, hm,
            ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, echo_msg(128, 0, 0, 8)))},
      {"not ICMPv6 through the solicited-node MAC",
       [&] {
         Frame f =
             eth6(kPort0SolicitedMac, hm,
                  ipv6_icmp({.src = kHost0V6, .dst = ip6("fd00:0:3::2")}, echo_msg(128, 0, 0, 8)));
         f[14 + 6] = 6;  // next header TCP: a unicast packet in a multicast frame
         return f;
       }()},
      {"IPv4 to the solicited-node MAC",
       eth4(kPort0SolicitedMac, hm,
            ipv4_icmp({.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1")}, echo_msg(8, 0, 0, 8)))},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    make_dataplane(test::default_params());
    taken_ = 0;
    run(0, {c.frame});
    expect_only_drop(0, DropReason::dst_mac_not_accepted);
    expect_icmp_counts(0, 0, 0);
    expect_conservation();
  }
}

TEST_F(LocalResponderPipeline, UnanswerableMessagesKeepTheirDropReasons) {
  const Mac pm = port_mac(0);
  const Mac hm = host_mac(0);
  V4 opt = {.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1")};
  opt.options = {7, 7, 4, 0, 0, 0, 0, 0};
  struct Case {
    const char* name;
    Frame frame;
    DropReason reason;
  };
  const Case cases[] = {
      {"IPv4 echo with options", eth4(pm, hm, ipv4_icmp(opt, echo_msg(8, 0, 0, 8))),
       DropReason::to_switch_address},
      {"IPv4 echo reply to the switch",
       eth4(pm, hm,
            ipv4_icmp({.src = ip4("10.0.0.2"), .dst = ip4("10.0.3.1")}, echo_msg(0, 0, 0, 8))),
       DropReason::to_switch_address},
      {"IPv6 echo with hop-by-hop header to the port",
       eth6(pm, hm,
            ipv6_icmp({.src = kHost0V6, .dst = kPort0V6, .hop_by_hop = {0, 0, 1, 4, 0, 0, 0, 0}},
                      echo_msg(128, 0, 0, 8))),
       DropReason::to_switch_address},
      {"IPv6 echo reply to another port's address",
       eth6(pm, hm,
            ipv6_icmp({.src = kHost0V6, .dst = ip6("fd00:0:2::1")}, echo_msg(129, 0, 0, 8))),
       DropReason::to_switch_address},
      {"echo to a link-local address that is not the port's",
       eth6(pm, hm,
            ipv6_icmp({.src = kHost0Ll, .dst = ip6("fe80::ff:fe00:3")}, echo_msg(128, 0, 0, 8))),
       DropReason::martian_address},
      {"echo from a link-local source to a host elsewhere",
       eth6(pm, hm,
            ipv6_icmp({.src = kHost0Ll, .dst = ip6("fd00:0:3::2")}, echo_msg(128, 0, 0, 8))),
       DropReason::martian_address},
      {"MLD report to the port MAC",
       eth6(pm, hm, ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::16")}, echo_msg(143, 0, 0, 8))),
       DropReason::martian_address},
      {"ICMPv6 echo to the broadcast MAC",
       eth6({0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, hm,
            ipv6_icmp({.src = kHost0V6, .dst = kPort0V6}, echo_msg(128, 0, 0, 8))),
       DropReason::broadcast_not_routed},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    make_dataplane(test::default_params());
    taken_ = 0;
    run(0, {c.frame});
    expect_only_drop(0, c.reason);
    expect_icmp_counts(0, 0, 0);
    expect_conservation();
  }
}

TEST_F(LocalResponderPipeline, PingThroughTheSwitchIsForwardedNotAnswered) {
  const V4 req = {.src = ip4("10.0.0.2"), .dst = ip4("10.0.3.2"), .ttl = 64};
  run(0, {eth4(port_mac(0), host_mac(0), ipv4_icmp(req, echo_msg(8, 1, 1, 56)))});
  EXPECT_EQ(queued(3, 0), 1u) << drops();
  const Frame r = pop(3, 0);
  V4 fwd = req;
  fwd.ttl = 63;
  EXPECT_EQ(r, eth4(host_mac(3), port_mac(3), ipv4_icmp(fwd, echo_msg(8, 1, 1, 56))));
  run(0, {eth6(port_mac(0), host_mac(0),
               ipv6_icmp({.src = kHost0V6, .dst = ip6("fd00:0:3::2"), .hop_limit = 64},
                         echo_msg(128, 1, 1, 56)))});
  EXPECT_EQ(queued(3, 0), 1u) << drops();
  EXPECT_EQ(pop(3, 0), eth6(host_mac(3), port_mac(3),
                            ipv6_icmp({.src = kHost0V6, .dst = ip6("fd00:0:3::2"), .hop_limit = 63},
                                      echo_msg(128, 1, 1, 56))));
  expect_icmp_counts(0, 0, 0);
}

TEST_F(LocalResponderPipeline, MixedBurstConservesEveryPacket) {
  const Mac pm = port_mac(0);
  const Mac hm = host_mac(0);
  std::vector<Frame> burst;
  for (int i = 0; i < 4; ++i) {
    burst.push_back(eth4(pm, hm,
                         ipv4_icmp({.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1")},
                                   echo_msg(8, 1, static_cast<uint16_t>(i), 16))));
    burst.push_back(host0_ns(kPort0V6, kPort0Solicited, kPort0SolicitedMac));
    burst.push_back(eth6(pm, hm,
                         ipv6_icmp({.src = kHost0V6, .dst = kPort0V6, .hop_limit = 64},
                                   echo_msg(128, 2, static_cast<uint16_t>(i), 16))));
    burst.push_back(eth6(
        pm, hm,
        ipv6_icmp({.src = kHost0Ll, .dst = ip6("ff02::2")}, echo_msg(133, 0, 0, 0))));  // consumed
    burst.push_back(eth4(pm, hm,
                         ipv4_icmp({.src = ip4("10.0.0.2"), .dst = ip4("10.0.3.2")},
                                   echo_msg(8, 3, 3, 16))));  // forwarded
    burst.push_back(eth6(
        {0x33, 0x33, 0, 0, 0, 1}, hm,
        ipv6_icmp({.src = kHost0V6, .dst = ip6("ff02::1")}, echo_msg(128, 0, 0, 8))));  // refused
  }
  burst.push_back(eth4(pm, hm,
                       ipv4_icmp({.src = ip4("10.0.0.2"), .dst = ip4("10.0.0.1")},
                                 echo_msg(0, 1, 1, 16))));  // to_switch_address
  run(0, burst);
  expect_icmp_counts(0, 16, 12);
  EXPECT_EQ(queued(0, kControlTc), 12u);
  EXPECT_EQ(queued(3, 0), 4u);
  EXPECT_EQ(drop_count(0, DropReason::dst_mac_not_accepted), 4u);
  EXPECT_EQ(drop_count(0, DropReason::to_switch_address), 1u);
  EXPECT_EQ(all_drops(), 5u) << drops();
  const Snapshot s = dp_->snapshot();
  EXPECT_EQ(s.port[0].consumed(), 16u);
  EXPECT_EQ(s.port[0].generated(), 12u);
  expect_conservation();
}

}  // namespace
}  // namespace rocelb
