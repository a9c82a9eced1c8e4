#include "dataplane/wire/parser.h"

#include <algorithm>
#include <cstring>

#include "dataplane/wire/arp.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/ipv6.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/roce.h"
#include "dataplane/wire/udp.h"

namespace rocelb {
namespace {

constexpr uint32_t kMaxFrameLen = 65535;  // offsets in ParsedPacket are 16-bit

// BTH at off; it must end at or before limit.
ParseResult parse_bth(const uint8_t* data, uint32_t off, uint32_t limit, ParsedPacket& out) {
  if (off + kBthLen > limit) return ParseResult::bth_truncated;
  const uint8_t* b = data + off;
  out.has_bth = true;
  out.bth_offset = static_cast<uint16_t>(off);
  out.bth_opcode = b[kBthOpcodeOffset];
  out.is_cnp = b[kBthOpcodeOffset] == kRoceOpCnp;
  uint8_t flags = b[kBthFlagsOffset];
  out.bth_se = flags & kBthSe;
  out.bth_migreq = flags & kBthMigReq;
  out.bth_pad = (flags >> 4) & 3;
  out.bth_tver = flags & 0x0f;
  out.bth_pkey = load_be16(b + kBthPkeyOffset);
  out.bth_dest_qp = load_be24(b + kBthDestQpOffset);
  out.bth_ack_req = b[kBthAckReqOffset] & kBthAckReq;
  out.bth_becn = b[kBthResv8aOffset] & kBthBecn;
  out.bth_psn = load_be24(b + kBthPsnOffset);
  return ParseResult::ok;
}

// What follows an IP header at l4 (out.proto set). Headers must end at or
// before min(avail, ip_end); ip_end is the end the IP header announces.
ParseResult parse_l4(const uint8_t* data, uint32_t avail, uint32_t l4, uint32_t ip_end,
                     bool fragment, ParsedPacket& out) {
  if (out.proto != kIpProtoUdp) return ParseResult::ok;
  uint32_t limit = std::min(avail, ip_end);
  if (l4 + kUdpHeaderLen > limit) return ParseResult::udp_truncated;
  const uint8_t* u = data + l4;
  out.has_udp = true;
  out.sport = load_be16(u + kUdpSrcPortOffset);
  out.dport = load_be16(u + kUdpDstPortOffset);
  uint32_t udp_len = load_be16(u + kUdpLengthOffset);
  if (udp_len < kUdpHeaderLen) return ParseResult::udp_bad_length;
  // A first fragment's UDP length counts the whole reassembled datagram.
  uint32_t udp_end = ip_end;
  if (!fragment) {
    if (l4 + udp_len > ip_end) return ParseResult::udp_bad_length;
    udp_end = l4 + udp_len;
  }
  if (out.dport != kRoceV2UdpPort) return ParseResult::ok;
  out.is_rocev2 = true;
  return parse_bth(data, l4 + kUdpHeaderLen, std::min(avail, udp_end), out);
}

ParseResult parse_ipv4(const uint8_t* data, uint32_t avail, uint32_t frame_len, uint32_t off,
                       ParsedPacket& out) {
  out.kind = L3Kind::kIpv4;
  if (off + kIpv4MinHeaderLen > avail) return ParseResult::ipv4_truncated;
  const uint8_t* ip = data + off;
  if ((ip[0] >> 4) != 4) return ParseResult::ipv4_bad_version;
  uint32_t ihl = (ip[0] & 0x0fu) * 4;
  if (ihl < kIpv4MinHeaderLen) return ParseResult::ipv4_bad_ihl;
  if (off + ihl > avail) return ParseResult::ipv4_truncated;
  out.ip_version = 4;
  out.dscp = ip[kIpv4TosOffset] >> 2;
  out.ecn = ip[kIpv4TosOffset] & 3;
  out.ttl = ip[kIpv4TtlOffset];
  out.proto = ip[kIpv4ProtoOffset];
  std::memcpy(out.src_ip, ip + kIpv4SrcOffset, 4);
  std::memcpy(out.dst_ip, ip + kIpv4DstOffset, 4);
  uint32_t l4 = off + ihl;
  out.l4_offset = static_cast<uint16_t>(l4);
  uint32_t total = load_be16(ip + kIpv4TotalLenOffset);
  if (total < ihl) return ParseResult::ipv4_bad_total_length;
  uint32_t ip_end = off + total;
  bool beyond = ip_end > frame_len;
  out.ip_end = static_cast<uint16_t>(std::min(ip_end, frame_len));
  uint16_t frag = load_be16(ip + kIpv4FragOffset);
  out.is_fragment = (frag & (kIpv4FlagMf | kIpv4FragOffsetMask)) != 0;
  out.is_later_fragment = (frag & kIpv4FragOffsetMask) != 0;
  if (!out.is_later_fragment) {
    ParseResult r = parse_l4(data, avail, l4, ip_end, out.is_fragment, out);
    if (r != ParseResult::ok) return r;
  }
  return beyond ? ParseResult::ipv4_bad_total_length : ParseResult::ok;
}

ParseResult parse_ipv6(const uint8_t* data, uint32_t avail, uint32_t frame_len, uint32_t off,
                       ParsedPacket& out) {
  out.kind = L3Kind::kIpv6;
  if (off + kIpv6HeaderLen > avail) return ParseResult::ipv6_truncated;
  const uint8_t* ip = data + off;
  if ((ip[0] >> 4) != 6) return ParseResult::ipv6_bad_version;
  out.ip_version = 6;
  uint8_t tclass = static_cast<uint8_t>(load_be16(ip) >> 4);
  out.dscp = tclass >> 2;
  out.ecn = tclass & 3;
  out.ttl = ip[kIpv6HopLimitOffset];
  std::memcpy(out.src_ip, ip + kIpv6SrcOffset, 16);
  std::memcpy(out.dst_ip, ip + kIpv6DstOffset, 16);
  uint32_t ip_end = off + kIpv6HeaderLen + load_be16(ip + kIpv6PayloadLenOffset);
  bool beyond = ip_end > frame_len;
  out.ip_end = static_cast<uint16_t>(std::min(ip_end, frame_len));
  uint32_t limit = std::min(avail, ip_end);
  uint8_t nh = ip[kIpv6NextHeaderOffset];
  uint32_t cur = off + kIpv6HeaderLen;
  out.l4_offset = static_cast<uint16_t>(std::min(cur, frame_len));
  // Every extension header is at least 8 bytes, so the walk ends.
  while (ipv6_is_skippable_ext(nh)) {
    out.proto = nh;
    if (cur + 2 > limit) return ParseResult::ipv6_ext_truncated;
    uint32_t len = ipv6_ext_len(nh, data[cur + 1]);
    if (cur + len > limit) return ParseResult::ipv6_ext_truncated;
    if (nh == kIpv6ExtFragment) {
      uint16_t fo = load_be16(data + cur + 2);
      out.is_fragment = true;
      if (fo & kIpv6FragOffsetMask) out.is_later_fragment = true;
    }
    nh = data[cur];
    cur += len;
    out.l4_offset = static_cast<uint16_t>(cur);
    if (out.is_later_fragment) break;
  }
  out.proto = nh;
  if (!out.is_later_fragment) {
    ParseResult r = parse_l4(data, avail, cur, ip_end, out.is_fragment, out);
    if (r != ParseResult::ok) return r;
  }
  return beyond ? ParseResult::ipv6_bad_payload_length : ParseResult::ok;
}

ParseResult parse_rocev1(const uint8_t* data, uint32_t avail, uint32_t frame_len, uint32_t off,
                         ParsedPacket& out) {
  out.kind = L3Kind::kRoceV1;
  out.is_rocev1 = true;
  if (off + kGrhLen > avail) return ParseResult::grh_truncated;
  const uint8_t* g = data + off;
  uint8_t tclass = static_cast<uint8_t>(load_be16(g) >> 4);
  out.dscp = tclass >> 2;
  out.ecn = tclass & 3;
  out.ttl = g[kIpv6HopLimitOffset];
  out.proto = g[kIpv6NextHeaderOffset];
  std::memcpy(out.src_ip, g + kIpv6SrcOffset, 16);
  std::memcpy(out.dst_ip, g + kIpv6DstOffset, 16);
  uint32_t bth = off + kGrhLen;
  out.l4_offset = static_cast<uint16_t>(bth);
  uint32_t grh_end = std::min(bth + load_be16(g + kIpv6PayloadLenOffset), frame_len);
  out.ip_end = static_cast<uint16_t>(grh_end);
  if (out.proto != kGrhNextHeaderIba) return ParseResult::ok;
  return parse_bth(data, bth, std::min(avail, grh_end), out);
}

ParseResult parse_arp(const uint8_t* data, uint32_t avail, uint32_t off, ParsedPacket& out) {
  out.kind = L3Kind::kArp;
  if (off + kArpLen > avail) return ParseResult::arp_truncated;
  const uint8_t* a = data + off;
  if (load_be16(a + kArpHtypeOffset) != kArpHtypeEthernet ||
      load_be16(a + kArpPtypeOffset) != kArpPtypeIpv4 || a[kArpHlenOffset] != kArpHlenEthernet ||
      a[kArpPlenOffset] != kArpPlenIpv4)
    return ParseResult::arp_unsupported;
  out.arp_op = load_be16(a + kArpOpOffset);
  out.arp_sha = a + kArpShaOffset;
  out.arp_spa = load_be32(a + kArpSpaOffset);
  out.arp_tha = a + kArpThaOffset;
  out.arp_tpa = load_be32(a + kArpTpaOffset);
  return ParseResult::ok;
}

ParseResult parse_mac_control(const uint8_t* data, uint32_t avail, uint32_t off,
                              ParsedPacket& out) {
  out.kind = L3Kind::kMacControl;
  if (off + 2 > avail) return ParseResult::mac_control_truncated;
  const uint8_t* m = data + off;
  out.mac_control_opcode = load_be16(m + kMacControlOpcodeOffset);
  if (out.mac_control_opcode == kPauseOpcode) {
    if (off + kPauseBodyLen > avail) return ParseResult::mac_control_truncated;
    out.pause_quanta = load_be16(m + kPauseQuantaOffset);
    return ParseResult::ok;
  }
  if (out.mac_control_opcode == kPfcOpcode) {
    if (off + kPfcBodyLen > avail) return ParseResult::mac_control_truncated;
    out.pfc_class_enable = m[kPfcClassEnableOffset + 1];
    for (uint32_t i = 0; i < kPfcPriorities; ++i)
      out.pfc_quanta[i] = load_be16(m + kPfcQuantaOffset + 2 * i);
    return ParseResult::ok;
  }
  return ParseResult::mac_control_bad_opcode;
}

ParseResult parse(const uint8_t* data, uint32_t avail, uint32_t frame_len, ParsedPacket& out) {
  frame_len = std::min(frame_len, kMaxFrameLen);
  avail = std::min(avail, frame_len);
  if (avail < kEthHeaderLen) return ParseResult::eth_truncated;
  out.dst_mac = data + kEthDstOffset;
  out.src_mac = data + kEthSrcOffset;
  uint32_t off = kEthTypeOffset;  // at the Ethertype / TPID
  uint16_t type = load_be16(data + off);
  while (is_vlan_tpid(type)) {
    if (out.num_vlans == 2) return ParseResult::too_many_vlans;
    if (off + 2 + kVlanTagLen > avail) return ParseResult::vlan_truncated;
    if (out.num_vlans == 0) {
      uint16_t tci = load_be16(data + off + 2);
      out.pcp = vlan_tci_pcp(tci);
      out.vid = vlan_tci_vid(tci);
    }
    ++out.num_vlans;
    off += kVlanTagLen;
    type = load_be16(data + off);
  }
  off += 2;
  out.ethertype = type;
  out.l3_offset = static_cast<uint16_t>(off);
  switch (type) {
    case kEthertypeIpv4:
      return parse_ipv4(data, avail, frame_len, off, out);
    case kEthertypeIpv6:
      return parse_ipv6(data, avail, frame_len, off, out);
    case kEthertypeRoceV1:
      return parse_rocev1(data, avail, frame_len, off, out);
    case kEthertypeArp:
      return parse_arp(data, avail, off, out);
    case kEthertypeMacControl:
      return parse_mac_control(data, avail, off, out);
    default:
      return ParseResult::ok;
  }
}

constexpr const char* kResultNames[] = {
#define ROCELB_X(name, help) #name,
    ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
};
constexpr const char* kResultHelp[] = {
#define ROCELB_X(name, help) help,
    ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
};

}  // namespace

ParseResult parse_frame(const uint8_t* data, uint32_t avail, uint32_t frame_len,
                        ParsedPacket& out) {
  // Copied from a constant rather than assigned `ParsedPacket{}`: the
  // compiler clears the 160 bytes with ten vector stores instead of a `rep
  // stos`, whose start-up cost alone was a tenth of a forwarded packet's.
  static const ParsedPacket kEmpty{};
  std::memcpy(&out, &kEmpty, sizeof out);
  out.result = parse(data, avail, frame_len, out);
  return out.result;
}

const char* parse_result_name(ParseResult r) {
  auto i = static_cast<unsigned>(r);
  return i < static_cast<unsigned>(kNumParseResults) ? kResultNames[i] : "unknown";
}

const char* parse_result_help(ParseResult r) {
  auto i = static_cast<unsigned>(r);
  return i < static_cast<unsigned>(kNumParseResults) ? kResultHelp[i] : "unknown";
}

}  // namespace rocelb
