#include "dataplane/wire/packet_builder.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "dataplane/wire/arp.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/ipv6.h"
#include "dataplane/wire/mac_control.h"

namespace rocelb {
namespace {

[[noreturn]] void bad(const std::string& field, const std::string& rule) {
  throw std::invalid_argument("FrameSpec." + field + ": " + rule);
}

// Appends n bytes (zeroed) and returns the offset of the first.
size_t grow(std::vector<uint8_t>& out, size_t n) {
  size_t at = out.size();
  out.resize(at + n, 0);
  return at;
}

void put_mac(std::vector<uint8_t>& out, const MacBytes& m) {
  out.insert(out.end(), m.begin(), m.end());
}

void put16(std::vector<uint8_t>& out, uint16_t v) {
  size_t at = grow(out, 2);
  store_be16(out.data() + at, v);
}

void check_ip_fields(const FrameSpec& s) {
  if (s.dscp > 63) bad("dscp", "at most 63");
  if (s.ecn > 3) bad("ecn", "at most 3");
  if (s.flow_label > 0xfffff) bad("flow_label", "20 bits");
}

// What follows the IP header (or GRH) and how long each part is.
struct L4Layout {
  bool udp = false;
  bool bth = false;
  uint32_t ext_len = 0;  // RoCE extension headers
  uint8_t pad = 0;
  uint32_t bth_block = 0;  // BTH + extension headers + payload + pad + ICRC
  uint32_t l4_len = 0;     // everything after the IP header and its extensions
};

L4Layout l4_layout(const FrameSpec& s, bool udp, bool bth) {
  L4Layout l;
  l.udp = udp;
  l.bth = bth;
  if (bth) {
    if (s.dest_qp > 0xffffff) bad("dest_qp", "24 bits");
    if (s.psn > 0xffffff) bad("psn", "24 bits");
    if (s.tver > 15) bad("tver", "4 bits");
    if (s.deth_src_qp > 0xffffff) bad("deth_src_qp", "24 bits");
    if (s.aeth_msn > 0xffffff) bad("aeth_msn", "24 bits");
    l.pad = s.pad ? *s.pad : static_cast<uint8_t>((4 - s.payload_len % 4) % 4);
    if (l.pad > 3) bad("pad", "at most 3");
    l.ext_len = roce_ext_headers_len(s.opcode);
    l.bth_block = kBthLen + l.ext_len + s.payload_len + l.pad + (s.icrc ? kIcrcLen : 0);
  }
  uint32_t after_udp = bth ? l.bth_block : s.payload_len;
  l.l4_len = udp ? kUdpHeaderLen + after_udp : s.payload_len;
  return l;
}

void fill_pattern(uint8_t* p, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i);
}

// Writes BTH, extension headers, payload and pad at p; the ICRC is left zero.
void write_bth_block(const FrameSpec& s, const L4Layout& l, uint8_t* p) {
  p[kBthOpcodeOffset] = s.opcode;
  p[kBthFlagsOffset] = static_cast<uint8_t>((s.se ? kBthSe : 0) | (s.migreq ? kBthMigReq : 0) |
                                            (l.pad << 4) | s.tver);
  store_be16(p + kBthPkeyOffset, s.pkey);
  p[kBthResv8aOffset] = s.becn ? kBthBecn : 0;
  store_be24(p + kBthDestQpOffset, s.dest_qp);
  p[kBthAckReqOffset] = s.ack_req ? kBthAckReq : 0;
  store_be24(p + kBthPsnOffset, s.psn);
  uint8_t* e = p + kBthLen;
  uint8_t ext = roce_ext_headers(s.opcode);
  if (ext & kRoceExtRdeth) e += kRdethLen;
  if (ext & kRoceExtDeth) {
    store_be32(e, s.deth_qkey);
    store_be24(e + 5, s.deth_src_qp);
    e += kDethLen;
  }
  if (ext & kRoceExtReth) {
    store_be64(e, s.reth_va);
    store_be32(e + 8, s.reth_rkey);
    store_be32(e + 12, s.reth_dma_len ? *s.reth_dma_len : s.payload_len);
    e += kRethLen;
  }
  if (ext & kRoceExtAtomicEth) {
    store_be64(e, s.reth_va);
    store_be32(e + 8, s.reth_rkey);
    e += kAtomicEthLen;
  }
  if (ext & kRoceExtAeth) {
    e[0] = s.aeth_syndrome;
    store_be24(e + 1, s.aeth_msn);
    e += kAethLen;
  }
  if (ext & kRoceExtAtomicAckEth) e += kAtomicAckEthLen;
  if (ext & kRoceExtImm) {
    store_be32(e, s.imm_data);
    e += kImmLen;
  }
  if (ext & kRoceExtIeth) {
    store_be32(e, s.ieth_rkey);
    e += kIethLen;
  }
  // A CNP's 16 bytes are reserved: zeros.
  if (s.opcode != kRoceOpCnp) fill_pattern(e, s.payload_len);
}

// Writes the UDP header and what follows, or the raw payload, at p.
void write_l4(const FrameSpec& s, const L4Layout& l, uint8_t* p) {
  if (!l.udp) {
    fill_pattern(p, s.payload_len);
    return;
  }
  store_be16(p + kUdpSrcPortOffset, s.sport);
  store_be16(p + kUdpDstPortOffset, s.dport);
  store_be16(p + kUdpLengthOffset, static_cast<uint16_t>(l.l4_len));
  if (l.bth)
    write_bth_block(s, l, p + kUdpHeaderLen);
  else
    fill_pattern(p + kUdpHeaderLen, s.payload_len);
}

void build_ipv4(const FrameSpec& s, std::vector<uint8_t>& out) {
  check_ip_fields(s);
  if (s.frag_offset > kIpv4FragOffsetMask) bad("frag_offset", "13 bits");
  uint32_t opt_len = (static_cast<uint32_t>(s.ipv4_options.size()) + 3) & ~3u;
  if (opt_len > 40) bad("ipv4_options", "at most 40 bytes");
  bool udp = s.ip_proto == kIpProtoUdp;
  L4Layout l = l4_layout(s, udp, udp && s.dport == kRoceV2UdpPort);
  uint32_t ihl = kIpv4MinHeaderLen + opt_len;
  uint32_t total = ihl + l.l4_len;
  if (total > 0xffff) bad("payload_len", "IPv4 total length above 65535");
  size_t at = grow(out, total);
  uint8_t* ip = out.data() + at;
  ip[kIpv4VerIhlOffset] = static_cast<uint8_t>(0x40 | (ihl / 4));
  ip[kIpv4TosOffset] = static_cast<uint8_t>(s.dscp << 2 | s.ecn);
  store_be16(ip + kIpv4TotalLenOffset, static_cast<uint16_t>(total));
  store_be16(ip + kIpv4IdOffset, s.ip_id);
  store_be16(ip + kIpv4FragOffset,
             static_cast<uint16_t>((s.df ? kIpv4FlagDf : 0) | (s.more_fragments ? kIpv4FlagMf : 0) |
                                   s.frag_offset));
  ip[kIpv4TtlOffset] = s.ttl;
  ip[kIpv4ProtoOffset] = s.ip_proto;
  std::copy_n(s.src_ip.begin(), 4, ip + kIpv4SrcOffset);
  std::copy_n(s.dst_ip.begin(), 4, ip + kIpv4DstOffset);
  std::copy(s.ipv4_options.begin(), s.ipv4_options.end(), ip + kIpv4MinHeaderLen);
  uint8_t* l4 = ip + ihl;
  write_l4(s, l, l4);
  if (l.bth && s.icrc) {
    uint32_t icrc_at = total - kIcrcLen;
    store_le32(ip + icrc_at, roce_icrc(ip, ihl + kUdpHeaderLen, icrc_at, IcrcL3::kIpv4));
  }
  if (udp && s.udp_checksum)
    store_be16(l4 + kUdpChecksumOffset,
               udp_checksum_ipv4(ip + kIpv4SrcOffset, ip + kIpv4DstOffset, l4, l.l4_len));
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, ihl));
}

// Options filling n bytes of a hop-by-hop / destination options header:
// PadN up to 5 data bytes (receivers reject longer padding), then the
// skippable experimental option 0x1e (RFC 4727) for larger fills.
void fill_ipv6_options(uint8_t* p, uint32_t n) {
  while (n > 0) {
    if (n == 1) {
      p[0] = 0;  // Pad1
      return;
    }
    uint32_t len = std::min<uint32_t>(n, 257);
    if (n - len == 1) --len;
    p[0] = len <= 7 ? 1 : 0x1e;
    p[1] = static_cast<uint8_t>(len - 2);
    p += len;
    n -= len;
  }
}

void write_ipv6_ext(const FrameSpec& s, const Ipv6Ext& x, size_t index, uint8_t next, uint8_t* p) {
  std::string name = "ipv6_ext[" + std::to_string(index) + "]";
  p[0] = next;
  switch (x.type) {
    case kIpv6ExtHopByHop:
    case kIpv6ExtDestOptions:
    case kIpv6ExtRouting:
      if (x.length % 8 != 0 || x.length < 8 || x.length > 2048)
        bad(name + ".length", "a multiple of 8 from 8 to 2048");
      p[1] = static_cast<uint8_t>(x.length / 8 - 1);
      if (x.type == kIpv6ExtRouting)
        p[2] = 253;  // experimental routing type; segments left (p[3]) 0
      else
        fill_ipv6_options(p + 2, x.length - 2u);
      break;
    case kIpv6ExtFragment:
      if (x.length != kIpv6FragmentHeaderLen) bad(name + ".length", "8 for a fragment header");
      if (x.frag_offset > 0x1fff) bad(name + ".frag_offset", "13 bits");
      store_be16(p + 2, static_cast<uint16_t>(x.frag_offset << 3 | (x.frag_more ? 1 : 0)));
      store_be32(p + 4, s.ip_id);
      break;
    case kIpv6ExtAh:
      if (x.length % 4 != 0 || x.length < 12 || x.length > 1028)
        bad(name + ".length", "a multiple of 4 from 12 to 1028 for AH");
      p[1] = static_cast<uint8_t>(x.length / 4 - 2);
      store_be32(p + 4, 0x100);  // SPI
      store_be32(p + 8, 1);      // sequence number
      break;
    default:
      bad(name + ".type", "one of 0, 43, 44, 51, 60");
  }
}

void build_ipv6(const FrameSpec& s, std::vector<uint8_t>& out) {
  check_ip_fields(s);
  bool udp = s.ip_proto == kIpProtoUdp;
  L4Layout l = l4_layout(s, udp, udp && s.dport == kRoceV2UdpPort);
  uint32_t ext_total = 0;
  for (const Ipv6Ext& x : s.ipv6_ext) ext_total += x.length;
  uint32_t payload = ext_total + l.l4_len;
  if (payload > 0xffff) bad("payload_len", "IPv6 payload length above 65535");
  size_t at = grow(out, kIpv6HeaderLen + payload);
  uint8_t* ip = out.data() + at;
  store_be32(
      ip, 0x60000000u | uint32_t{static_cast<uint8_t>(s.dscp << 2 | s.ecn)} << 20 | s.flow_label);
  store_be16(ip + kIpv6PayloadLenOffset, static_cast<uint16_t>(payload));
  ip[kIpv6NextHeaderOffset] = s.ipv6_ext.empty() ? s.ip_proto : s.ipv6_ext[0].type;
  ip[kIpv6HopLimitOffset] = s.ttl;
  std::copy_n(s.src_ip.begin(), 16, ip + kIpv6SrcOffset);
  std::copy_n(s.dst_ip.begin(), 16, ip + kIpv6DstOffset);
  uint32_t off = kIpv6HeaderLen;
  for (size_t i = 0; i < s.ipv6_ext.size(); ++i) {
    uint8_t next = i + 1 < s.ipv6_ext.size() ? s.ipv6_ext[i + 1].type : s.ip_proto;
    write_ipv6_ext(s, s.ipv6_ext[i], i, next, ip + off);
    off += s.ipv6_ext[i].length;
  }
  uint8_t* l4 = ip + off;
  write_l4(s, l, l4);
  uint32_t end = kIpv6HeaderLen + payload;
  if (l.bth && s.icrc)
    store_le32(ip + end - kIcrcLen,
               roce_icrc(ip, off + kUdpHeaderLen, end - kIcrcLen, IcrcL3::kIpv6));
  if (udp)
    store_be16(l4 + kUdpChecksumOffset,
               udp_checksum_ipv6(ip + kIpv6SrcOffset, ip + kIpv6DstOffset, l4, l.l4_len));
}

void build_rocev1(const FrameSpec& s, std::vector<uint8_t>& out) {
  check_ip_fields(s);
  L4Layout l = l4_layout(s, false, true);
  if (l.bth_block > 0xffff) bad("payload_len", "GRH payload length above 65535");
  size_t at = grow(out, kGrhLen + l.bth_block);
  uint8_t* g = out.data() + at;
  store_be32(
      g, 0x60000000u | uint32_t{static_cast<uint8_t>(s.dscp << 2 | s.ecn)} << 20 | s.flow_label);
  store_be16(g + kIpv6PayloadLenOffset, static_cast<uint16_t>(l.bth_block));
  g[kIpv6NextHeaderOffset] = kGrhNextHeaderIba;
  g[kIpv6HopLimitOffset] = s.ttl;
  std::copy_n(s.src_ip.begin(), 16, g + kIpv6SrcOffset);
  std::copy_n(s.dst_ip.begin(), 16, g + kIpv6DstOffset);
  write_bth_block(s, l, g + kGrhLen);
  if (s.icrc) {
    uint32_t icrc_at = kGrhLen + l.bth_block - kIcrcLen;
    store_le32(g + icrc_at, roce_icrc(g, kGrhLen, icrc_at, IcrcL3::kGrh));
  }
}

void build_arp(const FrameSpec& s, std::vector<uint8_t>& out) {
  size_t at = grow(out, kArpLen);
  uint8_t* a = out.data() + at;
  store_be16(a + kArpHtypeOffset, s.arp_htype);
  store_be16(a + kArpPtypeOffset, s.arp_ptype);
  a[kArpHlenOffset] = s.arp_hlen;
  a[kArpPlenOffset] = s.arp_plen;
  store_be16(a + kArpOpOffset, s.arp_op);
  std::copy(s.arp_sha.begin(), s.arp_sha.end(), a + kArpShaOffset);
  store_be32(a + kArpSpaOffset, s.arp_spa);
  std::copy(s.arp_tha.begin(), s.arp_tha.end(), a + kArpThaOffset);
  store_be32(a + kArpTpaOffset, s.arp_tpa);
}

void build_mac_control(const FrameSpec& s, std::vector<uint8_t>& out) {
  put16(out, s.mac_control_opcode);
  if (s.mac_control_opcode == kPauseOpcode) {
    put16(out, s.pause_quanta);
  } else if (s.mac_control_opcode == kPfcOpcode) {
    put16(out, s.pfc_class_enable);
    for (uint16_t q : s.pfc_quanta) put16(out, q);
  }
}

}  // namespace

void build_frame(const FrameSpec& s, std::vector<uint8_t>& out) {
  out.clear();
  put_mac(out, s.dst_mac);
  put_mac(out, s.src_mac);
  for (size_t i = 0; i < s.vlans.size(); ++i) {
    const VlanTag& t = s.vlans[i];
    if (t.pcp > 7) bad("vlans[" + std::to_string(i) + "].pcp", "at most 7");
    if (t.vid > 4095) bad("vlans[" + std::to_string(i) + "].vid", "at most 4095");
    put16(out, t.tpid);
    put16(out, vlan_tci(t.pcp, t.dei, t.vid));
  }
  switch (s.payload) {
    case FramePayload::kIpv4:
      put16(out, kEthertypeIpv4);
      build_ipv4(s, out);
      break;
    case FramePayload::kIpv6:
      put16(out, kEthertypeIpv6);
      build_ipv6(s, out);
      break;
    case FramePayload::kArp:
      put16(out, kEthertypeArp);
      build_arp(s, out);
      break;
    case FramePayload::kRoceV1:
      put16(out, kEthertypeRoceV1);
      build_rocev1(s, out);
      break;
    case FramePayload::kMacControl:
      put16(out, kEthertypeMacControl);
      build_mac_control(s, out);
      break;
    case FramePayload::kRaw: {
      put16(out, s.ethertype);
      size_t at = grow(out, s.payload_len);
      fill_pattern(out.data() + at, s.payload_len);
      break;
    }
  }
  if (out.size() < kEthMinFrameLen) out.resize(kEthMinFrameLen, 0);
}

std::vector<uint8_t> build_frame(const FrameSpec& spec) {
  std::vector<uint8_t> out;
  build_frame(spec, out);
  return out;
}

std::vector<uint8_t> build_rocev2(uint32_t src_ipv4, uint32_t dst_ipv4, uint16_t sport,
                                  uint32_t dest_qp, uint32_t psn, uint8_t opcode,
                                  uint32_t payload_len, uint8_t dscp, uint8_t ecn) {
  FrameSpec s;
  store_be32(s.src_ip.data(), src_ipv4);
  store_be32(s.dst_ip.data(), dst_ipv4);
  s.sport = sport;
  s.dest_qp = dest_qp;
  s.psn = psn;
  s.opcode = opcode;
  s.payload_len = payload_len;
  s.dscp = dscp;
  s.ecn = ecn;
  return build_frame(s);
}

FrameSpec pfc_frame_spec(const MacBytes& src_mac, uint8_t class_enable,
                         const std::array<uint16_t, 8>& quanta) {
  FrameSpec s;
  s.payload = FramePayload::kMacControl;
  s.dst_mac = kPfcDstMac;
  s.src_mac = src_mac;
  s.mac_control_opcode = kPfcOpcode;
  s.pfc_class_enable = class_enable;
  s.pfc_quanta = quanta;
  return s;
}

FrameSpec pause_frame_spec(const MacBytes& src_mac, uint16_t quanta) {
  FrameSpec s;
  s.payload = FramePayload::kMacControl;
  s.dst_mac = kPfcDstMac;
  s.src_mac = src_mac;
  s.mac_control_opcode = kPauseOpcode;
  s.pause_quanta = quanta;
  return s;
}

}  // namespace rocelb
