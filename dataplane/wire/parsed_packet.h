// What the parser learns about one frame: offsets of each header, the fields
// the pipeline decides on, and a verdict. Plain data, no DPDK types, filled by
// parse_frame() in parser.h. Offsets are from the first byte of the frame.
#pragma once

#include <cstdint>

namespace rocelb {

// The verdict of parsing. kOk means every header the frame announces is
// present and consistent; any other value names the first problem found.
#define ROCELB_PARSE_RESULTS(X)                                                     \
  X(ok, "frame parsed")                                                             \
  X(eth_truncated, "frame shorter than an Ethernet header")                         \
  X(vlan_truncated, "802.1Q/802.1ad tag cut short")                                 \
  X(too_many_vlans, "more than two VLAN tags")                                      \
  X(ipv4_truncated, "IPv4 header cut short")                                        \
  X(ipv4_bad_version, "IPv4 Ethertype but IP version is not 4")                     \
  X(ipv4_bad_ihl, "IPv4 header length below 20 bytes")                              \
  X(ipv4_bad_total_length, "IPv4 total length smaller than header or beyond frame") \
  X(ipv6_truncated, "IPv6 header cut short")                                        \
  X(ipv6_bad_version, "IPv6 Ethertype but IP version is not 6")                     \
  X(ipv6_bad_payload_length, "IPv6 payload length beyond frame")                    \
  X(ipv6_ext_truncated, "IPv6 extension header cut short")                          \
  X(udp_truncated, "UDP header cut short")                                          \
  X(udp_bad_length, "UDP length smaller than 8 or beyond the IP payload")           \
  X(bth_truncated, "RoCE base transport header cut short")                          \
  X(grh_truncated, "RoCEv1 global route header cut short")                          \
  X(arp_truncated, "ARP packet cut short")                                          \
  X(arp_unsupported, "ARP for other than Ethernet/IPv4")                            \
  X(mac_control_truncated, "MAC control frame cut short")                           \
  X(mac_control_bad_opcode, "MAC control opcode other than PAUSE or PFC")

enum class ParseResult : uint8_t {
#define ROCELB_X(name, help) name,
  ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
};
inline constexpr int kNumParseResults = 0
#define ROCELB_X(name, help) +1
    ROCELB_PARSE_RESULTS(ROCELB_X)
#undef ROCELB_X
    ;

// What the frame carries, outermost first; the first that applies wins.
enum class L3Kind : uint8_t { kOther, kIpv4, kIpv6, kArp, kMacControl, kRoceV1 };

struct ParsedPacket {
  ParseResult result = ParseResult::ok;
  L3Kind kind = L3Kind::kOther;

  // Ethernet
  const uint8_t* dst_mac = nullptr;  // points into the frame
  const uint8_t* src_mac = nullptr;
  uint16_t ethertype = 0;  // innermost (after tags)
  uint8_t num_vlans = 0;
  uint8_t pcp = 0;         // of the outermost tag
  uint16_t vid = 0;        // of the outermost tag
  uint16_t l3_offset = 0;  // first byte after Ethernet + tags

  // IP (IPv4 and IPv6; RoCEv1 GRH fills src/dst/tclass/hop_limit too)
  uint8_t ip_version = 0;  // 4 or 6, 0 if not IP
  uint8_t dscp = 0;
  uint8_t ecn = 0;                 // 0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE
  uint8_t ttl = 0;                 // TTL or hop limit
  uint8_t proto = 0;               // IPv4 protocol or IPv6 final next header
  bool is_fragment = false;        // IPv4 MF or offset, IPv6 fragment header
  bool is_later_fragment = false;  // fragment offset != 0: no L4 header here
  uint8_t src_ip[16] = {};         // IPv4 in the first 4 bytes, network order
  uint8_t dst_ip[16] = {};
  uint16_t l4_offset = 0;  // first byte after IP header (+ IPv6 extensions)
  uint16_t ip_end = 0;     // offset one past the IP datagram (excludes Ethernet padding)

  // UDP
  bool has_udp = false;
  uint16_t sport = 0;
  uint16_t dport = 0;

  // RoCE base transport header (RoCEv2 on UDP 4791, or RoCEv1 after the GRH)
  bool has_bth = false;
  bool is_rocev2 = false;
  bool is_rocev1 = false;
  bool is_cnp = false;  // BTH opcode 0x81
  uint16_t bth_offset = 0;
  uint8_t bth_opcode = 0;
  bool bth_se = false;
  bool bth_migreq = false;
  uint8_t bth_pad = 0;
  uint8_t bth_tver = 0;
  uint16_t bth_pkey = 0;
  uint32_t bth_dest_qp = 0;  // 24 bits
  bool bth_ack_req = false;
  bool bth_becn = false;  // InfiniBand's backward congestion bit (Resv8a 0x40)
  uint32_t bth_psn = 0;   // 24 bits

  // ARP (Ethernet/IPv4 only)
  uint16_t arp_op = 0;  // 1 request, 2 reply
  const uint8_t* arp_sha = nullptr;
  uint32_t arp_spa = 0;  // host order
  const uint8_t* arp_tha = nullptr;
  uint32_t arp_tpa = 0;  // host order

  // MAC control (Ethertype 0x8808)
  uint16_t mac_control_opcode = 0;  // 0x0001 PAUSE, 0x0101 PFC
  uint16_t pause_quanta = 0;        // 802.3x
  uint8_t pfc_class_enable = 0;     // 802.1Qbb class-enable vector
  uint16_t pfc_quanta[8] = {};
};

}  // namespace rocelb
