// The switch's answers to the control messages hosts send their gateway, as
// byte-level rewrites of the received frame (no DPDK types, like the parser):
//
//   - ICMPv4 echo request to a switch address → echo reply (RFC 792);
//   - ICMPv6 echo request to a switch address or the port's link-local
//     address → echo reply (RFC 4443);
//   - ICMPv6 Neighbor Solicitation (RFC 4861) for the port's IPv6 address or
//     its link-local address → Neighbor Advertisement, so IPv6 hosts resolve
//     their gateway; other NDP messages (RS, RA, NA, redirect) addressed to
//     the switch are consumed without answer (routes and neighbors are static).
//
// Every function takes the ParsedPacket of the frame, rewrites the frame in
// place and returns the reply's length, or 0 when the frame is not one it
// answers (the frame is then left untouched). Only the first `avail` bytes
// (contiguous, as given to the parser) are read or written; `frame_len` is
// the whole frame's length (echo replies keep it, Ethernet padding too); a
// reply that grows the frame needs `capacity` writable bytes from the
// frame's first byte. VLAN tags are kept. Replies go back to the sender's MAC
// from the port's MAC.
//
// A port's link-local address is fe80::/64 with the interface identifier
// derived from its MAC by modified EUI-64 (RFC 4291 appendix A); it listens on
// the solicited-node groups (ff02::1:ffXX:XXXX, MAC 33:33:ff:XX:XX:XX) of its
// IPv6 address and of its link-local address. LocalPort holds what the
// responder needs; make_local_port() computes it from a PortConfig's mac and
// v6 in a few dozen byte operations, which is fine for these rare frames.
//
// Knobs: none. Counters: the pipeline counts what the responder does on the
// ingress port: consumed_icmp (every echo request or NDP message taken by the
// switch) and generated_icmp_replies (echo replies and advertisements sent).
// Hot-path rules hold: no allocation, logging, exceptions or locks.
#pragma once

#include <cstdint>

#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

inline constexpr uint8_t kIpProtoIcmpv6 = 58;

inline constexpr uint8_t kIcmpv4EchoReply = 0;
inline constexpr uint8_t kIcmpv4EchoRequest = 8;

inline constexpr uint8_t kIcmpv6EchoRequest = 128;
inline constexpr uint8_t kIcmpv6EchoReply = 129;
inline constexpr uint8_t kNdpRouterSolicitation = 133;
inline constexpr uint8_t kNdpRouterAdvertisement = 134;
inline constexpr uint8_t kNdpNeighborSolicitation = 135;
inline constexpr uint8_t kNdpNeighborAdvertisement = 136;
inline constexpr uint8_t kNdpRedirect = 137;

// Neighbor Advertisement flags (first byte after the checksum).
inline constexpr uint8_t kNaFlagRouter = 0x80;
inline constexpr uint8_t kNaFlagSolicited = 0x40;
inline constexpr uint8_t kNaFlagOverride = 0x20;

// NDP option types (RFC 4861 4.6).
inline constexpr uint8_t kNdpOptSourceLinkAddr = 1;
inline constexpr uint8_t kNdpOptTargetLinkAddr = 2;

inline constexpr uint32_t kNsMinLen = 24;      // ICMP header, reserved, target
inline constexpr uint32_t kNaReplyLen = 32;    // + target link-layer address option
inline constexpr uint8_t kNdpHopLimit = 255;   // RFC 4861: NDP never crosses a router
inline constexpr uint8_t kReplyHopLimit = 64;  // TTL / hop limit of echo replies

// What the responder knows about the ingress port.
struct LocalPort {
  uint8_t mac[6] = {};
  bool has_v6 = false;
  uint8_t v6[16] = {};
  uint8_t link_local[16] = {};
};

// From a port's MAC and its IPv6 address (nullptr when it has none).
LocalPort make_local_port(const uint8_t* mac, const uint8_t* v6);

// fe80::/64 + modified EUI-64 of mac (universal/local bit flipped, ff:fe
// in the middle).
void ipv6_link_local_from_mac(const uint8_t* mac, uint8_t* out16);

// True when dst_mac is the solicited-node multicast MAC of the port's IPv6
// address (v6, may be nullptr) or of its link-local address.
bool is_port_solicited_node_mac(const uint8_t* dst_mac, const uint8_t* port_mac,
                                const uint8_t* port_v6);

// True when an IPv6 destination reaches the switch on this link without
// routing: the port's link-local or IPv6 address, all-nodes (ff02::1),
// all-routers (ff02::2), or the solicited-node group of either address.
bool is_port_ipv6_destination(const uint8_t* dst, const LocalPort& port);

// ICMPv4 echo request (IPv4 without options, not a fragment) → echo reply:
// MACs swapped (port MAC as source), addresses swapped, TTL 64, type 0, both
// checksums updated. The caller has decided the destination is the switch's.
uint32_t make_icmp4_echo_reply(uint8_t* frame, uint32_t avail, uint32_t frame_len,
                               const ParsedPacket& p, const uint8_t* port_mac);

// ICMPv6 echo request (no extension headers, unicast destination) → echo
// reply: MACs and addresses swapped, hop limit 64, type 129, checksum updated.
uint32_t make_icmp6_echo_reply(uint8_t* frame, uint32_t avail, uint32_t frame_len,
                               const ParsedPacket& p, const uint8_t* port_mac);

// True when the frame holds a Neighbor Solicitation that passes RFC 4861
// 7.1.1: hop limit 255, checksum right, code 0, ICMP length >= 24, target not
// multicast, options of non-zero length inside the message, and from the
// unspecified source only to a solicited-node group without a source
// link-layer address option. The whole message must be within avail.
bool is_valid_neighbor_solicitation(const uint8_t* frame, uint32_t avail, const ParsedPacket& p);

// A valid Neighbor Solicitation whose target is the port's IPv6 or link-local
// address → Neighbor Advertisement: IPv6 source = the target, destination =
// the solicitation's source (flags router, solicited, override) or, from the
// unspecified address, ff02::1 (solicited clear) to 33:33:00:00:00:01; hop
// limit 255; a target link-layer address option with the port MAC; extension
// headers of the solicitation are not kept. The reply is 72 bytes after the
// Ethernet header and tags; 0 when capacity is short.
uint32_t make_neighbor_advertisement(uint8_t* frame, uint32_t avail, uint32_t capacity,
                                     const ParsedPacket& p, const LocalPort& port);

// True when the frame holds an NDP message (ICMPv6 types 133 to 137, not a
// fragment, type byte within avail).
bool is_ndp_message(const uint8_t* frame, uint32_t avail, const ParsedPacket& p);

enum class LocalVerdict : uint8_t {
  kNotMine,   // not an echo request or NDP message: the caller goes on (and drops it)
  kConsumed,  // NDP taken without answer (RS, RA, NA, redirect, NS not answered)
  kReplied,   // rewritten into a reply of reply_len bytes
};

// An ICMPv6 message addressed to the switch (the caller checked the
// destination): echo request → reply, NS → NA when answerable (else
// consumed), other NDP → consumed.
LocalVerdict answer_icmp6(uint8_t* frame, uint32_t avail, uint32_t frame_len, uint32_t capacity,
                          const ParsedPacket& p, const LocalPort& port, uint32_t& reply_len);

}  // namespace rocelb
