// Builds Ethernet frames for tests and the traffic generator from a FrameSpec:
// MACs, up to two VLAN tags (more only for negative tests), then IPv4 or IPv6
// + UDP (+ RoCEv2 BTH, extension headers, payload, ICRC), RoCEv1 (GRH + BTH),
// ARP, MAC control (PAUSE / PFC) or a raw Ethertype with a payload. Frames
// carry no FCS and are padded with zeros to 60 bytes. Checksums are computed:
// the IPv4 header checksum always; the UDP checksum always over IPv6 and on
// request over IPv4 (RoCE NICs send 0 there); the ICRC for RoCE unless turned
// off. Payload bytes are a fixed pattern (byte i of the payload = i & 0xff).
// Not for the hot path: a spec the builder cannot honour throws
// std::invalid_argument naming the field.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/mac_control.h"
#include "dataplane/wire/roce.h"
#include "dataplane/wire/udp.h"

namespace rocelb {

using IpBytes = std::array<uint8_t, 16>;  // IPv4 in the first 4 bytes

inline constexpr IpBytes ipv4_bytes(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  return IpBytes{a, b, c, d};
}
// From eight 16-bit groups, e.g. {0xfd00, 0, 0, 0, 0, 0, 0, 1}.
inline constexpr IpBytes ipv6_bytes(const std::array<uint16_t, 8>& groups) {
  IpBytes r{};
  for (int i = 0; i < 8; ++i) {
    r[2 * i] = static_cast<uint8_t>(groups[i] >> 8);
    r[2 * i + 1] = static_cast<uint8_t>(groups[i]);
  }
  return r;
}

struct VlanTag {
  uint16_t tpid = kEthertypeVlan;
  uint8_t pcp = 0;
  bool dei = false;
  uint16_t vid = 0;
};

// One IPv6 extension header inserted, in list order, between the IPv6 header
// and UDP. length is its total size in bytes: a multiple of 8 from 8 to 2048
// for hop-by-hop / routing / destination options (filled with a PadN option
// or a routing header of type 253 with segments left 0); exactly 8 for a
// fragment header; a multiple of 8 from 16 to 1028 for AH (SPI, sequence and
// a zero ICV).
struct Ipv6Ext {
  uint8_t type = 60;
  uint16_t length = 8;
  uint16_t frag_offset = 0;  // fragment header only, in 8-byte units
  bool frag_more = false;    // fragment header only: M flag
};

enum class FramePayload : uint8_t {
  kIpv4,        // IPv4, then UDP when ip_proto is 17 (RoCEv2 when dport is 4791)
  kIpv6,        // IPv6 (+ ipv6_ext), then UDP likewise
  kArp,         // Ethernet/IPv4 ARP
  kRoceV1,      // Ethertype 0x8915: GRH, BTH
  kMacControl,  // Ethertype 0x8808: PAUSE, PFC or any opcode
  kRaw,         // ethertype, then payload_len pattern bytes
};

struct FrameSpec {
  // Ethernet
  MacBytes dst_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x02};
  MacBytes src_mac = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  std::vector<VlanTag> vlans;  // outermost first
  FramePayload payload = FramePayload::kIpv4;
  uint16_t ethertype = 0;  // kRaw only

  // IPv4 / IPv6 / GRH
  IpBytes src_ip = ipv4_bytes(10, 0, 0, 1);
  IpBytes dst_ip = ipv4_bytes(10, 0, 0, 2);
  uint8_t dscp = 0;
  uint8_t ecn = 0;
  uint8_t ttl = 64;  // TTL, hop limit
  uint16_t ip_id = 0;
  bool df = true;
  bool more_fragments = false;        // IPv4 MF
  uint16_t frag_offset = 0;           // IPv4, in 8-byte units
  std::vector<uint8_t> ipv4_options;  // zero-padded to a multiple of 4, at most 40
  std::vector<Ipv6Ext> ipv6_ext;
  uint32_t flow_label = 0;  // IPv6 and GRH, 20 bits
  uint8_t ip_proto = 17;    // other than UDP: payload_len bytes follow the IP header

  // UDP
  uint16_t sport = 49152;
  uint16_t dport = kRoceV2UdpPort;
  bool udp_checksum = false;  // IPv4 only; IPv6 always has one

  // BTH (RoCEv2 when dport is 4791, and RoCEv1)
  uint8_t opcode = kRoceOpRcSendOnly;
  bool se = false;
  bool migreq = false;
  std::optional<uint8_t> pad;  // unset: (4 - payload_len % 4) % 4; pad bytes are zeros
  uint8_t tver = 0;
  uint16_t pkey = kDefaultPkey;
  uint32_t dest_qp = 0x000011;
  bool ack_req = false;
  bool becn = false;  // InfiniBand's BECN in Resv8a (the ICRC masks it)
  uint32_t psn = 0;
  // Extension headers the opcode calls for (roce_ext_headers()).
  uint64_t reth_va = 0;
  uint32_t reth_rkey = 0;
  std::optional<uint32_t> reth_dma_len;  // unset: payload_len
  uint8_t aeth_syndrome = 0;             // 0: ACK
  uint32_t aeth_msn = 0;
  uint32_t imm_data = 0;
  uint32_t ieth_rkey = 0;
  uint32_t deth_qkey = 0;
  uint32_t deth_src_qp = 0;
  // Bytes after the BTH and its extension headers (before pad and ICRC); for
  // plain UDP, raw IP protocols and kRaw, the bytes after the last header.
  uint32_t payload_len = 0;
  bool icrc = true;

  // ARP (kArp): the sizes and types can be changed for negative tests.
  uint16_t arp_op = 1;
  uint16_t arp_htype = 1;
  uint16_t arp_ptype = 0x0800;
  uint8_t arp_hlen = 6;
  uint8_t arp_plen = 4;
  MacBytes arp_sha = {0x02, 0x00, 0x00, 0x00, 0x00, 0x01};
  uint32_t arp_spa = 0x0a000001;  // host order
  MacBytes arp_tha = {};
  uint32_t arp_tpa = 0x0a000002;  // host order

  // MAC control (kMacControl). dst_mac is used as given: see pfc_frame_spec().
  uint16_t mac_control_opcode = kPfcOpcode;
  uint16_t pause_quanta = 0;     // opcode 0x0001
  uint8_t pfc_class_enable = 0;  // opcode 0x0101
  std::array<uint16_t, 8> pfc_quanta = {};
};

// Builds the frame into out (cleared first; its capacity is reused).
void build_frame(const FrameSpec& spec, std::vector<uint8_t>& out);
std::vector<uint8_t> build_frame(const FrameSpec& spec);

// RoCEv2 over IPv4 from 10.0.0.1-style addresses given in host order, DSCP 26
// and ECT(0) by default, no UDP checksum, with ICRC.
std::vector<uint8_t> build_rocev2(uint32_t src_ipv4, uint32_t dst_ipv4, uint16_t sport,
                                  uint32_t dest_qp, uint32_t psn,
                                  uint8_t opcode = kRoceOpRcSendOnly, uint32_t payload_len = 0,
                                  uint8_t dscp = 26, uint8_t ecn = 2);

// A spec for a PFC frame (dst 01:80:C2:00:00:01) and an 802.3x PAUSE frame.
FrameSpec pfc_frame_spec(const MacBytes& src_mac, uint8_t class_enable,
                         const std::array<uint16_t, 8>& quanta);
FrameSpec pause_frame_spec(const MacBytes& src_mac, uint16_t quanta);

}  // namespace rocelb
