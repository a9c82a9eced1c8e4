// parse_frame(): fields of every protocol, truncation at every byte of
// representative frames (whole frame cut, and first segment shorter than the
// frame), inconsistent lengths and fragments. Frames come from packet_builder.
#include "dataplane/wire/parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/ipv6.h"
#include "dataplane/wire/packet_builder.h"

namespace rocelb {
namespace {

using Bytes = std::vector<uint8_t>;

ParsedPacket parse(const Bytes& f) {
  ParsedPacket p;
  parse_frame(f.data(), static_cast<uint32_t>(f.size()), static_cast<uint32_t>(f.size()), p);
  return p;
}

std::string name(ParseResult r) {
  return parse_result_name(r);
}

IpBytes v6(uint16_t last) {
  return ipv6_bytes({0xfd00, 0, 0, 0, 0, 0, 0, last});
}

// ---------------------------------------------------------------------------
// Fields, table-driven.

struct FieldCase {
  const char* name;
  std::function<FrameSpec()> spec;
  std::function<void(Bytes&)> patch;  // applied to the built frame, may be empty
  ParseResult result;
  std::function<void(const ParsedPacket&, const Bytes&)> check;
};

FrameSpec rocev2_v4() {
  FrameSpec s;
  s.src_ip = ipv4_bytes(192, 168, 1, 10);
  s.dst_ip = ipv4_bytes(192, 168, 2, 20);
  s.dscp = 26;
  s.ecn = kEcnEct0;
  s.ttl = 63;
  s.sport = 0xc123;
  s.opcode = kRoceOpRcWriteOnly;
  s.se = true;
  s.migreq = true;
  s.pad = 2;
  s.tver = 0;
  s.pkey = 0x8001;
  s.dest_qp = 0xabcdef;
  s.ack_req = true;
  s.psn = 0xfedcba;
  s.payload_len = 30;
  return s;
}

FrameSpec rocev2_v6() {
  FrameSpec s = rocev2_v4();
  s.payload = FramePayload::kIpv6;
  s.src_ip = v6(1);
  s.dst_ip = v6(2);
  s.flow_label = 0xabcde;
  s.dscp = 46;
  s.ecn = kEcnCe;
  return s;
}

const std::vector<FieldCase>& field_cases() {
  static const std::vector<FieldCase> cases = {
      {"rocev2_ipv4", rocev2_v4, nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_EQ(p.kind, L3Kind::kIpv4);
         EXPECT_EQ(p.dst_mac, f.data());
         EXPECT_EQ(p.src_mac, f.data() + 6);
         EXPECT_EQ(p.ethertype, 0x0800);
         EXPECT_EQ(p.num_vlans, 0);
         EXPECT_EQ(p.l3_offset, 14);
         EXPECT_EQ(p.ip_version, 4);
         EXPECT_EQ(p.dscp, 26);
         EXPECT_EQ(p.ecn, 2);
         EXPECT_EQ(p.ttl, 63);
         EXPECT_EQ(p.proto, 17);
         EXPECT_FALSE(p.is_fragment);
         const uint8_t src[4] = {192, 168, 1, 10}, dst[4] = {192, 168, 2, 20};
         EXPECT_EQ(std::memcmp(p.src_ip, src, 4), 0);
         EXPECT_EQ(std::memcmp(p.dst_ip, dst, 4), 0);
         EXPECT_EQ(p.l4_offset, 34);
         // 20 IP + 8 UDP + 12 BTH + 16 RETH + 30 payload + 2 pad + 4 ICRC
         EXPECT_EQ(p.ip_end, 14 + 92);
         EXPECT_TRUE(p.has_udp);
         EXPECT_EQ(p.sport, 0xc123);
         EXPECT_EQ(p.dport, 4791);
         EXPECT_TRUE(p.has_bth);
         EXPECT_TRUE(p.is_rocev2);
         EXPECT_FALSE(p.is_rocev1);
         EXPECT_FALSE(p.is_cnp);
         EXPECT_EQ(p.bth_offset, 42);
         EXPECT_EQ(p.bth_opcode, kRoceOpRcWriteOnly);
         EXPECT_TRUE(p.bth_se);
         EXPECT_TRUE(p.bth_migreq);
         EXPECT_EQ(p.bth_pad, 2);
         EXPECT_EQ(p.bth_tver, 0);
         EXPECT_EQ(p.bth_pkey, 0x8001);
         EXPECT_EQ(p.bth_dest_qp, 0xabcdefu);
         EXPECT_TRUE(p.bth_ack_req);
         EXPECT_EQ(p.bth_psn, 0xfedcbau);
       }},
      {"rocev2_bth_flags_clear",
       [] {
         FrameSpec s;
         s.pad = 0;
         s.tver = 0xf;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_FALSE(p.bth_se);
         EXPECT_FALSE(p.bth_migreq);
         EXPECT_FALSE(p.bth_ack_req);
         EXPECT_EQ(p.bth_pad, 0);
         EXPECT_EQ(p.bth_tver, 0xf);
         EXPECT_EQ(p.bth_pkey, 0xffff);
         EXPECT_EQ(p.bth_opcode, kRoceOpRcSendOnly);
       }},
      {"two_vlans_and_ipv4_options",
       [] {
         FrameSpec s = rocev2_v4();
         s.vlans = {{kEthertypeQinQ, 5, true, 100}, {kEthertypeVlan, 3, false, 4094}};
         s.ipv4_options = {0x94, 0x04, 0x00, 0x00, 0x01, 0x01};  // router alert, NOP, NOP
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.num_vlans, 2);
         EXPECT_EQ(p.pcp, 5);  // outermost
         EXPECT_EQ(p.vid, 100);
         EXPECT_EQ(p.ethertype, 0x0800);
         EXPECT_EQ(p.l3_offset, 22);
         EXPECT_EQ(p.l4_offset, 22 + 28);
         EXPECT_EQ(p.bth_offset, 22 + 28 + 8);
         EXPECT_EQ(p.bth_psn, 0xfedcbau);
       }},
      {"old_qinq_tpid_outer",
       [] {
         FrameSpec s;
         s.vlans = {{kEthertypeQinQOld, 7, false, 1}, {kEthertypeVlan, 0, false, 2}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.num_vlans, 2);
         EXPECT_EQ(p.pcp, 7);
         EXPECT_EQ(p.vid, 1);
         EXPECT_TRUE(p.has_bth);
       }},
      {"one_vlan",
       [] {
         FrameSpec s;
         s.vlans = {{kEthertypeVlan, 3, false, 42}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.num_vlans, 1);
         EXPECT_EQ(p.pcp, 3);
         EXPECT_EQ(p.vid, 42);
         EXPECT_EQ(p.l3_offset, 18);
       }},
      {"three_vlans",
       [] {
         FrameSpec s;
         s.vlans = {{kEthertypeQinQ, 0, false, 1},
                    {kEthertypeVlan, 0, false, 2},
                    {kEthertypeVlan, 0, false, 3}};
         return s;
       },
       nullptr, ParseResult::too_many_vlans, nullptr},
      {"cnp",
       [] {
         FrameSpec s;
         s.opcode = kRoceOpCnp;
         s.payload_len = kCnpPayloadLen;
         s.dest_qp = 0x123;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_cnp);
         EXPECT_EQ(p.bth_opcode, 0x81);
         EXPECT_EQ(p.bth_dest_qp, 0x123u);
       }},
      {"ack_not_cnp",
       [] {
         FrameSpec s;
         s.opcode = kRoceOpRcAck;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_FALSE(p.is_cnp);
         EXPECT_EQ(p.bth_opcode, 0x11);
       }},
      {"udp_not_roce",
       [] {
         FrameSpec s;
         s.dport = 53;
         s.payload_len = 20;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.has_udp);
         EXPECT_EQ(p.dport, 53);
         EXPECT_FALSE(p.is_rocev2);
         EXPECT_FALSE(p.has_bth);
       }},
      {"roce_port_as_source_only",
       [] {
         FrameSpec s;
         s.sport = 4791;
         s.dport = 5000;
         s.payload_len = 20;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) { EXPECT_FALSE(p.has_bth); }},
      {"tcp",
       [] {
         FrameSpec s;
         s.ip_proto = kIpProtoTcp;
         s.payload_len = 40;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.proto, 6);
         EXPECT_FALSE(p.has_udp);
         EXPECT_EQ(p.l4_offset, 34);
         EXPECT_EQ(p.ip_end, 14 + 60);
       }},
      {"rocev2_ipv6", rocev2_v6, nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.kind, L3Kind::kIpv6);
         EXPECT_EQ(p.ethertype, 0x86dd);
         EXPECT_EQ(p.ip_version, 6);
         EXPECT_EQ(p.dscp, 46);
         EXPECT_EQ(p.ecn, 3);
         EXPECT_EQ(p.ttl, 63);
         EXPECT_EQ(p.proto, 17);
         IpBytes s = v6(1), d = v6(2);
         EXPECT_EQ(std::memcmp(p.src_ip, s.data(), 16), 0);
         EXPECT_EQ(std::memcmp(p.dst_ip, d.data(), 16), 0);
         EXPECT_EQ(p.l4_offset, 54);
         EXPECT_EQ(p.ip_end, 54 + 72);
         EXPECT_EQ(p.bth_offset, 62);
         EXPECT_TRUE(p.is_rocev2);
         EXPECT_EQ(p.bth_dest_qp, 0xabcdefu);
         EXPECT_EQ(p.bth_psn, 0xfedcbau);
       }},
      {"ipv6_every_extension",
       [] {
         FrameSpec s = rocev2_v6();
         // 8 + 24 + 16 + 24 (AH, length field 4) + 8 + 16 = 96 bytes
         s.ipv6_ext = {{kIpv6ExtHopByHop, 8}, {kIpv6ExtDestOptions, 24}, {kIpv6ExtRouting, 16},
                       {kIpv6ExtAh, 24},      {kIpv6ExtFragment, 8},     {kIpv6ExtDestOptions, 16}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_EQ(f[54 + 48 + 1], 4);  // AH length field: 24 / 4 - 2
         EXPECT_EQ(p.proto, 17);
         EXPECT_TRUE(p.is_fragment);  // a fragment header, even at offset 0
         EXPECT_FALSE(p.is_later_fragment);
         EXPECT_EQ(p.l4_offset, 54 + 96);
         EXPECT_EQ(p.bth_offset, 54 + 96 + 8);
         EXPECT_TRUE(p.has_bth);
         EXPECT_EQ(p.bth_psn, 0xfedcbau);
       }},
      {"ipv6_ah_in_4_byte_units",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtAh, 12}, {kIpv6ExtAh, 20}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.l4_offset, 54 + 32);
         EXPECT_TRUE(p.has_bth);
         EXPECT_EQ(p.bth_dest_qp, 0xabcdefu);
       }},
      {"ipv6_long_options",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtHopByHop, 2048}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.l4_offset, 54 + 2048);
         EXPECT_TRUE(p.has_bth);
       }},
      {"ipv6_esp_ends_parsing",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtHopByHop, 8}};
         s.ip_proto = kIpv6ExtEsp;
         s.payload_len = 24;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.proto, 50);
         EXPECT_EQ(p.l4_offset, 62);
         EXPECT_FALSE(p.has_udp);
       }},
      {"ipv6_no_next_header",
       [] {
         FrameSpec s = rocev2_v6();
         s.ip_proto = kIpv6NoNextHeader;
         s.payload_len = 0;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.proto, 59);
         EXPECT_EQ(p.ip_end, 54);
         EXPECT_FALSE(p.has_udp);
       }},
      {"rocev1",
       [] {
         FrameSpec s = rocev2_v6();
         s.payload = FramePayload::kRoceV1;
         s.opcode = kRoceOpRcReadRequest;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.kind, L3Kind::kRoceV1);
         EXPECT_EQ(p.ethertype, 0x8915);
         EXPECT_TRUE(p.is_rocev1);
         EXPECT_FALSE(p.is_rocev2);
         EXPECT_EQ(p.ip_version, 0);
         EXPECT_FALSE(p.has_udp);
         EXPECT_EQ(p.dscp, 46);
         EXPECT_EQ(p.ecn, 3);
         EXPECT_EQ(p.ttl, 63);
         EXPECT_EQ(p.proto, 0x1b);
         IpBytes s = v6(1), d = v6(2);
         EXPECT_EQ(std::memcmp(p.src_ip, s.data(), 16), 0);
         EXPECT_EQ(std::memcmp(p.dst_ip, d.data(), 16), 0);
         EXPECT_EQ(p.l4_offset, 54);
         EXPECT_EQ(p.bth_offset, 54);
         EXPECT_EQ(p.ip_end, 54 + 12 + 16 + 30 + 2 + 4);
         EXPECT_TRUE(p.has_bth);
         EXPECT_EQ(p.bth_opcode, kRoceOpRcReadRequest);
         EXPECT_EQ(p.bth_dest_qp, 0xabcdefu);
         EXPECT_EQ(p.bth_psn, 0xfedcbau);
         EXPECT_EQ(p.bth_pkey, 0x8001);
       }},
      {"rocev1_other_next_header",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kRoceV1;
         return s;
       },
       [](Bytes& f) { f[14 + 6] = 0x11; }, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_rocev1);
         EXPECT_FALSE(p.has_bth);
       }},
      {"arp_request",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.arp_op = 1;
         s.arp_sha = {0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee};
         s.arp_spa = 0x0a010203;
         s.arp_tha = {0, 0, 0, 0, 0, 0};
         s.arp_tpa = 0x0a010204;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_EQ(p.kind, L3Kind::kArp);
         EXPECT_EQ(p.arp_op, 1);
         EXPECT_EQ(p.arp_sha, f.data() + 22);
         EXPECT_EQ(p.arp_sha[1], 0xaa);
         EXPECT_EQ(p.arp_spa, 0x0a010203u);
         EXPECT_EQ(p.arp_tha, f.data() + 32);
         EXPECT_EQ(p.arp_tpa, 0x0a010204u);
         EXPECT_EQ(p.ip_version, 0);
       }},
      {"arp_reply_vlan",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.vlans = {{kEthertypeVlan, 0, false, 7}};
         s.arp_op = 2;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.arp_op, 2);
         EXPECT_EQ(p.l3_offset, 18);
         EXPECT_EQ(p.arp_tpa, 0x0a000002u);
       }},
      {"arp_other_htype",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.arp_htype = 6;
         return s;
       },
       nullptr, ParseResult::arp_unsupported, nullptr},
      {"arp_other_ptype",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.arp_ptype = 0x86dd;
         return s;
       },
       nullptr, ParseResult::arp_unsupported, nullptr},
      {"arp_other_hlen",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.arp_hlen = 8;
         return s;
       },
       nullptr, ParseResult::arp_unsupported, nullptr},
      {"arp_other_plen",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kArp;
         s.arp_plen = 16;
         return s;
       },
       nullptr, ParseResult::arp_unsupported, nullptr},
      {"pfc",
       [] {
         return pfc_frame_spec({0x02, 0, 0, 0, 0, 9}, 0x88, {1, 2, 3, 0xffff, 5, 6, 7, 0x8000});
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_EQ(f.size(), 60u);
         EXPECT_EQ(p.kind, L3Kind::kMacControl);
         EXPECT_EQ(p.ethertype, 0x8808);
         EXPECT_EQ(p.mac_control_opcode, 0x0101);
         EXPECT_EQ(p.pfc_class_enable, 0x88);
         const uint16_t q[8] = {1, 2, 3, 0xffff, 5, 6, 7, 0x8000};
         for (int i = 0; i < 8; ++i) EXPECT_EQ(p.pfc_quanta[i], q[i]) << i;
       }},
      {"pause",
       [] {
         return pause_frame_spec({0x02, 0, 0, 0, 0, 9}, 0x1234);
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.mac_control_opcode, 0x0001);
         EXPECT_EQ(p.pause_quanta, 0x1234);
       }},
      {"mac_control_other_opcode",
       [] {
         FrameSpec s = pause_frame_spec({0x02, 0, 0, 0, 0, 9}, 1);
         s.mac_control_opcode = 0x0002;  // GATE
         return s;
       },
       nullptr, ParseResult::mac_control_bad_opcode,
       [](const ParsedPacket& p, const Bytes&) { EXPECT_EQ(p.mac_control_opcode, 2); }},
      {"other_ethertype",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kRaw;
         s.ethertype = 0x88cc;  // LLDP
         s.payload_len = 30;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_EQ(p.kind, L3Kind::kOther);
         EXPECT_EQ(p.ethertype, 0x88cc);
         EXPECT_EQ(p.l3_offset, 14);
       }},
      {"ieee_802_3_length_field",
       [] {
         FrameSpec s;
         s.payload = FramePayload::kRaw;
         s.ethertype = 46;
         s.payload_len = 46;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) { EXPECT_EQ(p.kind, L3Kind::kOther); }},
      // Bad headers.
      {"ipv4_bad_version", [] { return FrameSpec{}; }, [](Bytes& f) { f[14] = 0x65; },
       ParseResult::ipv4_bad_version, nullptr},
      {"ipv4_ihl_below_5", [] { return FrameSpec{}; }, [](Bytes& f) { f[14] = 0x44; },
       ParseResult::ipv4_bad_ihl, nullptr},
      {"ipv6_bad_version", rocev2_v6, [](Bytes& f) { f[14] = 0x40; }, ParseResult::ipv6_bad_version,
       nullptr},
      // Inconsistent lengths.
      {"ipv4_total_length_below_ihl", [] { return FrameSpec{}; },
       [](Bytes& f) { store_be16(&f[16], 19); }, ParseResult::ipv4_bad_total_length, nullptr},
      {"ipv4_total_length_below_options",
       [] {
         FrameSpec s;
         s.ipv4_options = {1, 1, 1, 1};
         return s;
       },
       [](Bytes& f) { store_be16(&f[16], 20); }, ParseResult::ipv4_bad_total_length, nullptr},
      {"ipv4_total_length_beyond_frame", rocev2_v4,
       [](Bytes& f) { store_be16(&f[16], load_be16(&f[16]) + 1); },
       ParseResult::ipv4_bad_total_length,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_TRUE(p.has_bth);  // the headers were fine
         EXPECT_EQ(p.ip_end, f.size());
       }},
      {"ipv4_total_length_short_cuts_udp", rocev2_v4, [](Bytes& f) { store_be16(&f[16], 24); },
       ParseResult::udp_truncated, nullptr},
      {"ipv4_total_length_below_udp_length", rocev2_v4, [](Bytes& f) { store_be16(&f[16], 28); },
       ParseResult::udp_bad_length, nullptr},
      {"ethernet_padding_excluded",
       [] {
         FrameSpec s;
         s.dport = 7;
         s.payload_len = 2;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes& f) {
         EXPECT_EQ(f.size(), 60u);
         EXPECT_EQ(p.ip_end, 14 + 30);
       }},
      {"udp_length_below_8", rocev2_v4, [](Bytes& f) { store_be16(&f[38], 7); },
       ParseResult::udp_bad_length,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.has_udp);
         EXPECT_FALSE(p.has_bth);
       }},
      {"udp_length_beyond_ip", rocev2_v4,
       [](Bytes& f) { store_be16(&f[38], load_be16(&f[38]) + 1); }, ParseResult::udp_bad_length,
       nullptr},
      {"udp_length_shorter_than_ip_ok",
       [] {
         FrameSpec s;
         s.dport = 9;
         s.payload_len = 40;
         return s;
       },
       [](Bytes& f) { store_be16(&f[38], 8); }, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) { EXPECT_TRUE(p.has_udp); }},
      {"udp_length_8_cuts_bth", rocev2_v4, [](Bytes& f) { store_be16(&f[38], 8); },
       ParseResult::bth_truncated,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_rocev2);
         EXPECT_FALSE(p.has_bth);
       }},
      {"ipv6_payload_length_beyond_frame", rocev2_v6,
       [](Bytes& f) { store_be16(&f[18], load_be16(&f[18]) + 1); },
       ParseResult::ipv6_bad_payload_length, nullptr},
      {"ipv6_payload_length_cuts_extension",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtHopByHop, 16}};
         return s;
       },
       [](Bytes& f) { store_be16(&f[18], 8); }, ParseResult::ipv6_ext_truncated, nullptr},
      {"ipv6_extension_length_beyond_frame",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtDestOptions, 8}};
         return s;
       },
       [](Bytes& f) { f[55] = 200; }, ParseResult::ipv6_ext_truncated, nullptr},
      {"ipv6_udp_length_beyond_payload", rocev2_v6,
       [](Bytes& f) { store_be16(&f[58], load_be16(&f[58]) + 4); }, ParseResult::udp_bad_length,
       nullptr},
      // Fragments.
      {"ipv4_first_fragment",
       [] {
         FrameSpec s = rocev2_v4();
         s.df = false;
         s.more_fragments = true;
         return s;
       },
       // the UDP length counts the whole datagram: longer than this fragment
       [](Bytes& f) { store_be16(&f[38], 1000); }, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_fragment);
         EXPECT_FALSE(p.is_later_fragment);
         EXPECT_TRUE(p.has_udp);
         EXPECT_TRUE(p.has_bth);
       }},
      {"ipv4_later_fragment",
       [] {
         FrameSpec s = rocev2_v4();
         s.df = false;
         s.frag_offset = 185;
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_fragment);
         EXPECT_TRUE(p.is_later_fragment);
         EXPECT_FALSE(p.has_udp);
         EXPECT_FALSE(p.has_bth);
         EXPECT_EQ(p.proto, 17);
         EXPECT_EQ(p.l4_offset, 34);
       }},
      {"ipv4_last_fragment_bad_udp_ignored",
       [] {
         FrameSpec s;
         s.df = false;
         s.frag_offset = 1;
         return s;
       },
       [](Bytes& f) { store_be16(&f[38], 3); }, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) { EXPECT_TRUE(p.is_later_fragment); }},
      {"ipv6_first_fragment",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {{kIpv6ExtFragment, 8, 0, true}};
         return s;
       },
       [](Bytes& f) { store_be16(&f[62 + 4], 1400); }, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_fragment);
         EXPECT_FALSE(p.is_later_fragment);
         EXPECT_TRUE(p.has_bth);
       }},
      {"ipv6_later_fragment",
       [] {
         FrameSpec s = rocev2_v6();
         s.ipv6_ext = {
             {kIpv6ExtHopByHop, 8}, {kIpv6ExtFragment, 8, 100, false}, {kIpv6ExtDestOptions, 8}};
         return s;
       },
       nullptr, ParseResult::ok,
       [](const ParsedPacket& p, const Bytes&) {
         EXPECT_TRUE(p.is_fragment);
         EXPECT_TRUE(p.is_later_fragment);
         EXPECT_FALSE(p.has_udp);
         EXPECT_EQ(p.proto, kIpv6ExtDestOptions);  // next header of the fragment header
         EXPECT_EQ(p.l4_offset, 54 + 16);
       }},
  };
  return cases;
}

class ParserFields : public ::testing::TestWithParam<size_t> {};

TEST_P(ParserFields, Parses) {
  const FieldCase& c = field_cases()[GetParam()];
  SCOPED_TRACE(c.name);
  Bytes f = build_frame(c.spec());
  if (c.patch) c.patch(f);
  ParsedPacket p = parse(f);
  EXPECT_EQ(name(p.result), name(c.result));
  EXPECT_EQ(name(parse_frame(f.data(), f.size(), f.size(), p)), name(c.result));
  if (c.check) c.check(p, f);
}

INSTANTIATE_TEST_SUITE_P(Table, ParserFields, ::testing::Range<size_t>(0, field_cases().size()),
                         [](const ::testing::TestParamInfo<size_t>& i) {
                           return std::string(field_cases()[i.param].name);
                         });

// ---------------------------------------------------------------------------
// Truncation at every byte.

struct Layer {
  uint32_t end;  // offset one past this layer's header
  ParseResult reason;
};

struct TruncCase {
  const char* name;
  FrameSpec spec;
  std::vector<Layer> layers;  // outermost first
  ParseResult payload_cut;    // frame cut after the last header
};

std::vector<TruncCase> trunc_cases() {
  std::vector<TruncCase> v;
  {
    FrameSpec s = rocev2_v4();
    s.vlans = {{kEthertypeQinQ, 1, false, 10}, {kEthertypeVlan, 2, false, 20}};
    s.ipv4_options = {0x94, 0x04, 0x00, 0x00, 0x01, 0x01, 0x01, 0x00};
    v.push_back({"rocev2_ipv4_2vlans_options",
                 s,
                 {{14, ParseResult::eth_truncated},
                  {18, ParseResult::vlan_truncated},
                  {22, ParseResult::vlan_truncated},
                  {22 + 28, ParseResult::ipv4_truncated},
                  {50 + 8, ParseResult::udp_truncated},
                  {58 + 12, ParseResult::bth_truncated}},
                 ParseResult::ipv4_bad_total_length});
  }
  {
    FrameSpec s = rocev2_v6();
    s.vlans = {{kEthertypeVlan, 3, false, 5}};
    s.ipv6_ext = {
        {kIpv6ExtHopByHop, 8}, {kIpv6ExtRouting, 24}, {kIpv6ExtAh, 16}, {kIpv6ExtDestOptions, 8}};
    v.push_back({"rocev2_ipv6_extensions",
                 s,
                 {{14, ParseResult::eth_truncated},
                  {18, ParseResult::vlan_truncated},
                  {58, ParseResult::ipv6_truncated},
                  {66, ParseResult::ipv6_ext_truncated},
                  {90, ParseResult::ipv6_ext_truncated},
                  {106, ParseResult::ipv6_ext_truncated},
                  {114, ParseResult::ipv6_ext_truncated},
                  {122, ParseResult::udp_truncated},
                  {134, ParseResult::bth_truncated}},
                 ParseResult::ipv6_bad_payload_length});
  }
  {
    FrameSpec s = rocev2_v6();
    s.payload = FramePayload::kRoceV1;
    v.push_back({"rocev1",
                 s,
                 {{14, ParseResult::eth_truncated},
                  {54, ParseResult::grh_truncated},
                  {66, ParseResult::bth_truncated}},
                 ParseResult::ok});
  }
  {
    FrameSpec s;
    s.payload = FramePayload::kArp;
    s.vlans = {{kEthertypeVlan, 0, false, 1}};
    v.push_back({"arp",
                 s,
                 {{14, ParseResult::eth_truncated},
                  {18, ParseResult::vlan_truncated},
                  {18 + 28, ParseResult::arp_truncated}},
                 ParseResult::ok});
  }
  v.push_back({"pfc",
               pfc_frame_spec({2, 0, 0, 0, 0, 1}, 0xff, {1, 2, 3, 4, 5, 6, 7, 8}),
               {{14, ParseResult::eth_truncated}, {34, ParseResult::mac_control_truncated}},
               ParseResult::ok});
  v.push_back({"pause",
               pause_frame_spec({2, 0, 0, 0, 0, 1}, 77),
               {{14, ParseResult::eth_truncated}, {18, ParseResult::mac_control_truncated}},
               ParseResult::ok});
  return v;
}

// The fields a truncated-but-ok parse must share with the full parse.
void expect_same(const ParsedPacket& a, const ParsedPacket& b, bool frame_cut) {
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.ethertype, b.ethertype);
  EXPECT_EQ(a.num_vlans, b.num_vlans);
  EXPECT_EQ(a.vid, b.vid);
  EXPECT_EQ(a.l3_offset, b.l3_offset);
  EXPECT_EQ(a.ip_version, b.ip_version);
  EXPECT_EQ(a.dscp, b.dscp);
  EXPECT_EQ(a.proto, b.proto);
  EXPECT_EQ(std::memcmp(a.src_ip, b.src_ip, 16), 0);
  EXPECT_EQ(std::memcmp(a.dst_ip, b.dst_ip, 16), 0);
  EXPECT_EQ(a.l4_offset, b.l4_offset);
  // A RoCEv1 GRH's payload length is cut to the frame: no verdict says so.
  if (!(frame_cut && a.kind == L3Kind::kRoceV1)) {
    EXPECT_EQ(a.ip_end, b.ip_end);
  }
  EXPECT_EQ(a.has_udp, b.has_udp);
  EXPECT_EQ(a.sport, b.sport);
  EXPECT_EQ(a.has_bth, b.has_bth);
  EXPECT_EQ(a.bth_offset, b.bth_offset);
  EXPECT_EQ(a.bth_dest_qp, b.bth_dest_qp);
  EXPECT_EQ(a.bth_psn, b.bth_psn);
  EXPECT_EQ(a.arp_op, b.arp_op);
  EXPECT_EQ(a.arp_tpa, b.arp_tpa);
  EXPECT_EQ(a.mac_control_opcode, b.mac_control_opcode);
  EXPECT_EQ(a.pause_quanta, b.pause_quanta);
  EXPECT_EQ(a.pfc_class_enable, b.pfc_class_enable);
  EXPECT_EQ(a.pfc_quanta[7], b.pfc_quanta[7]);
}

// No flag may claim a header that was not read whole.
void expect_no_garbage(const ParsedPacket& p) {
  switch (p.result) {
    case ParseResult::eth_truncated:
      EXPECT_EQ(p.dst_mac, nullptr);
      EXPECT_EQ(p.l3_offset, 0);
      break;
    case ParseResult::vlan_truncated:
    case ParseResult::ipv4_truncated:
    case ParseResult::ipv6_truncated:
    case ParseResult::grh_truncated:
      EXPECT_EQ(p.ip_version, 0);
      [[fallthrough]];
    case ParseResult::ipv6_ext_truncated:
    case ParseResult::udp_truncated:
      EXPECT_FALSE(p.has_udp);
      [[fallthrough]];
    case ParseResult::bth_truncated:
      EXPECT_FALSE(p.has_bth);
      break;
    case ParseResult::arp_truncated:
      EXPECT_EQ(p.arp_sha, nullptr);
      EXPECT_EQ(p.arp_op, 0);
      break;
    case ParseResult::mac_control_truncated:
      EXPECT_EQ(p.pause_quanta, 0);
      EXPECT_EQ(p.pfc_class_enable, 0);
      break;
    default:
      break;
  }
}

ParseResult expected_cut(const TruncCase& c, uint32_t cut, uint32_t full, bool frame_cut) {
  for (const Layer& l : c.layers)
    if (cut < l.end) return l.reason;
  if (cut < full && frame_cut) return c.payload_cut;
  return ParseResult::ok;
}

TEST(ParserTruncation, EveryLength) {
  for (const TruncCase& c : trunc_cases()) {
    SCOPED_TRACE(c.name);
    Bytes f = build_frame(c.spec);
    uint32_t full = static_cast<uint32_t>(f.size());
    ParsedPacket whole = parse(f);
    ASSERT_EQ(name(whole.result), "ok");
    ASSERT_GT(full, c.layers.back().end);
    for (uint32_t cut = 0; cut <= full; ++cut) {
      SCOPED_TRACE("cut at " + std::to_string(cut) + " of " + std::to_string(full));
      // Exactly cut bytes on the heap: a read past them is an overflow that
      // the sanitizer build reports.
      std::unique_ptr<uint8_t[]> buf(new uint8_t[cut == 0 ? 1 : cut]);
      std::memcpy(buf.get(), f.data(), cut);
      for (bool frame_cut : {true, false}) {
        SCOPED_TRACE(frame_cut ? "frame cut" : "first segment cut");
        ParsedPacket p;
        ParseResult r = parse_frame(buf.get(), cut, frame_cut ? cut : full, p);
        EXPECT_EQ(r, p.result);
        EXPECT_EQ(name(r), name(expected_cut(c, cut, full, frame_cut)));
        expect_no_garbage(p);
        if (r == ParseResult::ok) expect_same(p, whole, frame_cut);
      }
    }
  }
}

// ---------------------------------------------------------------------------
// Lengths and resets.

TEST(Parser, AvailAboveFrameLenIsCut) {
  Bytes f = build_frame(rocev2_v4());
  ParsedPacket p;
  // The frame is 40 bytes; 40 more readable bytes do not make it longer.
  EXPECT_EQ(parse_frame(f.data(), f.size(), 40, p), ParseResult::udp_truncated);
}

TEST(Parser, ResetsThePacket) {
  Bytes roce = build_frame(rocev2_v4());
  Bytes arp = build_frame([] {
    FrameSpec s;
    s.payload = FramePayload::kArp;
    return s;
  }());
  ParsedPacket p;
  ASSERT_EQ(parse_frame(roce.data(), roce.size(), roce.size(), p), ParseResult::ok);
  ASSERT_TRUE(p.has_bth);
  ASSERT_EQ(parse_frame(arp.data(), arp.size(), arp.size(), p), ParseResult::ok);
  EXPECT_FALSE(p.has_bth);
  EXPECT_FALSE(p.has_udp);
  EXPECT_EQ(p.ip_version, 0);
  EXPECT_EQ(p.bth_psn, 0u);
  EXPECT_EQ(p.src_ip[0], 0);
  ASSERT_EQ(parse_frame(roce.data(), 3, 3, p), ParseResult::eth_truncated);
  EXPECT_EQ(p.kind, L3Kind::kOther);
  EXPECT_EQ(p.arp_op, 0);
}

TEST(Parser, FrameAbove64KiBIsParsedAsCut) {
  FrameSpec s;
  s.dport = 1;
  s.payload_len = 100;
  Bytes f = build_frame(s);
  uint32_t ip_end = static_cast<uint32_t>(f.size());
  f.resize(70000, 0xee);
  ParsedPacket p;
  EXPECT_EQ(parse_frame(f.data(), f.size(), f.size(), p), ParseResult::ok);
  EXPECT_EQ(p.ip_end, ip_end);
  // An IPv6 jumbo-sized datagram past 65535 bytes of frame is reported.
  FrameSpec big = rocev2_v6();
  big.payload_len = 65492;  // IPv6 payload length 65532
  Bytes g = build_frame(big);
  ASSERT_GT(g.size(), 65535u);
  EXPECT_EQ(parse_frame(g.data(), g.size(), g.size(), p), ParseResult::ipv6_bad_payload_length);
  EXPECT_TRUE(p.has_bth);
}

TEST(Parser, ResultNames) {
  EXPECT_STREQ(parse_result_name(ParseResult::ok), "ok");
  EXPECT_STREQ(parse_result_name(ParseResult::mac_control_bad_opcode), "mac_control_bad_opcode");
  EXPECT_STREQ(parse_result_help(ParseResult::too_many_vlans), "more than two VLAN tags");
  EXPECT_STREQ(parse_result_name(static_cast<ParseResult>(200)), "unknown");
}

}  // namespace
}  // namespace rocelb
