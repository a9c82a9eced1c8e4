#include "dataplane/forward/local_responder.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/checksum.h"
#include "dataplane/wire/ethernet.h"
#include "dataplane/wire/ipv4.h"
#include "dataplane/wire/ipv6.h"

namespace rocelb {
namespace {

constexpr uint8_t kAllNodes[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
constexpr uint8_t kAllRouters[16] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
// ff02::1:ff00:0/104: the solicited-node groups.
constexpr uint8_t kSolicitedNodePrefix[13] = {0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0xff};
constexpr uint8_t kAllNodesMac[6] = {0x33, 0x33, 0, 0, 0, 1};

bool same16(const uint8_t* a, const uint8_t* b) {
  return std::memcmp(a, b, 16) == 0;
}

bool is_unspecified(const uint8_t* a) {
  static constexpr uint8_t kZero[16] = {};
  return same16(a, kZero);
}

// True when group is the solicited-node group of addr.
bool is_solicited_node_of(const uint8_t* group, const uint8_t* addr) {
  return std::memcmp(group, kSolicitedNodePrefix, 13) == 0 &&
         std::memcmp(group + 13, addr + 13, 3) == 0;
}

bool is_solicited_node_group(const uint8_t* group) {
  return std::memcmp(group, kSolicitedNodePrefix, 13) == 0;
}

// The end of the IP datagram, cut to what can be read.
uint32_t readable_end(uint32_t avail, const ParsedPacket& p) {
  return std::min<uint32_t>(avail, p.ip_end);
}

// Ethernet: back to the sender, from the port.
void turn_around_ethernet(uint8_t* frame, const uint8_t* port_mac) {
  std::memmove(frame + kEthDstOffset, frame + kEthSrcOffset, kMacLen);
  std::memcpy(frame + kEthSrcOffset, port_mac, kMacLen);
}

void swap_bytes(uint8_t* a, uint8_t* b, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) std::swap(a[i], b[i]);
}

// RFC 1624 eqn. 3 on the checksum stored at field: the 16-bit word the
// checksum covers changed from old_word to new_word.
void update_checksum16(uint8_t* field, uint16_t old_word, uint16_t new_word) {
  uint32_t sum = static_cast<uint16_t>(~load_be16(field));
  sum += static_cast<uint16_t>(~old_word);
  sum += new_word;
  store_be16(field, csum_fold(sum));
}

// The ICMPv6 checksum accumulator (RFC 8200 8.1) of the len bytes at msg,
// sent from src to dst; the stored checksum field is summed as it is.
uint32_t icmp6_sum(const uint8_t* src, const uint8_t* dst, const uint8_t* msg, uint32_t len) {
  uint32_t sum = csum_add(0, src, 16);
  sum = csum_add(sum, dst, 16);
  sum = csum_add16(sum, static_cast<uint16_t>(len >> 16));
  sum = csum_add16(sum, static_cast<uint16_t>(len));
  sum = csum_add16(sum, kIpProtoIcmpv6);
  return csum_add(sum, msg, len);
}

}  // namespace

void ipv6_link_local_from_mac(const uint8_t* mac, uint8_t* out16) {
  std::memset(out16, 0, 16);
  out16[0] = 0xfe;
  out16[1] = 0x80;
  out16[8] = static_cast<uint8_t>(mac[0] ^ 0x02);
  out16[9] = mac[1];
  out16[10] = mac[2];
  out16[11] = 0xff;
  out16[12] = 0xfe;
  out16[13] = mac[3];
  out16[14] = mac[4];
  out16[15] = mac[5];
}

LocalPort make_local_port(const uint8_t* mac, const uint8_t* v6) {
  LocalPort lp;
  std::memcpy(lp.mac, mac, 6);
  if (v6) {
    lp.has_v6 = true;
    std::memcpy(lp.v6, v6, 16);
  }
  ipv6_link_local_from_mac(mac, lp.link_local);
  return lp;
}

bool is_port_solicited_node_mac(const uint8_t* dst_mac, const uint8_t* port_mac,
                                const uint8_t* port_v6) {
  if (dst_mac[0] != 0x33 || dst_mac[1] != 0x33 || dst_mac[2] != 0xff) return false;
  // The link-local address ends in the MAC's last three bytes.
  if (std::memcmp(dst_mac + 3, port_mac + 3, 3) == 0) return true;
  return port_v6 && std::memcmp(dst_mac + 3, port_v6 + 13, 3) == 0;
}

bool is_port_ipv6_destination(const uint8_t* dst, const LocalPort& port) {
  if (dst[0] != 0xff) return same16(dst, port.link_local) || (port.has_v6 && same16(dst, port.v6));
  return same16(dst, kAllNodes) || same16(dst, kAllRouters) ||
         is_solicited_node_of(dst, port.link_local) ||
         (port.has_v6 && is_solicited_node_of(dst, port.v6));
}

uint32_t make_icmp4_echo_reply(uint8_t* frame, uint32_t avail, uint32_t frame_len,
                               const ParsedPacket& p, const uint8_t* port_mac) {
  if (p.ip_version != 4 || p.proto != kIpProtoIcmp || p.is_fragment) return 0;
  const uint32_t l3 = p.l3_offset;
  const uint32_t l4 = p.l4_offset;
  if (l4 != l3 + kIpv4MinHeaderLen) return 0;  // options would not be echoed right
  if (l4 + 8 > readable_end(avail, p)) return 0;
  if (p.src_ip[0] == 0 || p.src_ip[0] >= 224) return 0;  // no one to answer
  uint8_t* icmp = frame + l4;
  if (icmp[0] != kIcmpv4EchoRequest) return 0;

  turn_around_ethernet(frame, port_mac);
  uint8_t* ip = frame + l3;
  swap_bytes(ip + kIpv4SrcOffset, ip + kIpv4DstOffset, 4);
  ip[kIpv4TtlOffset] = kReplyHopLimit;
  store_be16(ip + kIpv4ChecksumOffset, ipv4_header_checksum(ip, kIpv4MinHeaderLen));
  const uint16_t old_word = load_be16(icmp);
  icmp[0] = kIcmpv4EchoReply;
  update_checksum16(icmp + 2, old_word, load_be16(icmp));
  return frame_len;
}

uint32_t make_icmp6_echo_reply(uint8_t* frame, uint32_t avail, uint32_t frame_len,
                               const ParsedPacket& p, const uint8_t* port_mac) {
  if (p.ip_version != 6 || p.proto != kIpProtoIcmpv6 || p.is_fragment) return 0;
  const uint32_t l3 = p.l3_offset;
  const uint32_t l4 = p.l4_offset;
  if (l4 != l3 + kIpv6HeaderLen) return 0;  // extension headers would be echoed back
  if (l4 + 8 > readable_end(avail, p)) return 0;
  if (p.dst_ip[0] == 0xff || p.src_ip[0] == 0xff || is_unspecified(p.src_ip)) return 0;
  uint8_t* icmp = frame + l4;
  if (icmp[0] != kIcmpv6EchoRequest) return 0;

  turn_around_ethernet(frame, port_mac);
  uint8_t* ip = frame + l3;
  // Swapping source and destination leaves the pseudo-header sum unchanged.
  swap_bytes(ip + kIpv6SrcOffset, ip + kIpv6DstOffset, 16);
  ip[kIpv6HopLimitOffset] = kReplyHopLimit;
  const uint16_t old_word = load_be16(icmp);
  icmp[0] = kIcmpv6EchoReply;
  update_checksum16(icmp + 2, old_word, load_be16(icmp));
  return frame_len;
}

bool is_valid_neighbor_solicitation(const uint8_t* frame, uint32_t avail, const ParsedPacket& p) {
  if (p.ip_version != 6 || p.proto != kIpProtoIcmpv6 || p.is_fragment) return false;
  if (p.ttl != kNdpHopLimit) return false;
  const uint32_t l4 = p.l4_offset;
  const uint32_t end = p.ip_end;
  if (end > avail || l4 + kNsMinLen > end) return false;
  const uint8_t* ns = frame + l4;
  if (ns[0] != kNdpNeighborSolicitation || ns[1] != 0) return false;
  if (csum_fold(icmp6_sum(p.src_ip, p.dst_ip, ns, end - l4)) != 0) return false;
  if (ns[8] == 0xff) return false;  // multicast target
  const bool from_unspecified = is_unspecified(p.src_ip);
  if (from_unspecified && !is_solicited_node_group(p.dst_ip)) return false;
  for (uint32_t off = l4 + kNsMinLen; off < end;) {
    if (off + 2 > end) return false;
    const uint32_t len = uint32_t{frame[off + 1]} * 8;
    if (len == 0 || off + len > end) return false;
    if (from_unspecified && frame[off] == kNdpOptSourceLinkAddr) return false;
    off += len;
  }
  return true;
}

uint32_t make_neighbor_advertisement(uint8_t* frame, uint32_t avail, uint32_t capacity,
                                     const ParsedPacket& p, const LocalPort& port) {
  if (!is_valid_neighbor_solicitation(frame, avail, p)) return 0;
  uint8_t target[16];
  std::memcpy(target, frame + p.l4_offset + 8, 16);
  if (!same16(target, port.link_local) && !(port.has_v6 && same16(target, port.v6))) return 0;
  const uint32_t l3 = p.l3_offset;
  const uint32_t len = l3 + kIpv6HeaderLen + kNaReplyLen;
  if (len > capacity) return 0;

  // RFC 4861 7.2.4: solicited and unicast back, or to all nodes when the
  // solicitation came from an address being verified (DAD).
  const bool from_unspecified = is_unspecified(p.src_ip);
  uint8_t to[16];
  std::memcpy(to, from_unspecified ? kAllNodes : p.src_ip, 16);
  if (from_unspecified)
    std::memcpy(frame + kEthDstOffset, kAllNodesMac, kMacLen);
  else
    std::memmove(frame + kEthDstOffset, frame + kEthSrcOffset, kMacLen);
  std::memcpy(frame + kEthSrcOffset, port.mac, kMacLen);

  uint8_t* ip = frame + l3;
  store_be32(ip + kIpv6VtcFlowOffset, 0x60000000u);
  store_be16(ip + kIpv6PayloadLenOffset, static_cast<uint16_t>(kNaReplyLen));
  ip[kIpv6NextHeaderOffset] = kIpProtoIcmpv6;
  ip[kIpv6HopLimitOffset] = kNdpHopLimit;
  std::memcpy(ip + kIpv6SrcOffset, target, 16);
  std::memcpy(ip + kIpv6DstOffset, to, 16);

  uint8_t* na = ip + kIpv6HeaderLen;
  std::memset(na, 0, kNaReplyLen);
  na[0] = kNdpNeighborAdvertisement;
  na[4] = static_cast<uint8_t>(kNaFlagRouter | kNaFlagOverride |
                               (from_unspecified ? 0 : kNaFlagSolicited));
  std::memcpy(na + 8, target, 16);
  na[24] = kNdpOptTargetLinkAddr;
  na[25] = 1;  // in units of 8 bytes
  std::memcpy(na + 26, port.mac, kMacLen);
  store_be16(na + 2, csum_fold(icmp6_sum(target, to, na, kNaReplyLen)));
  return len;
}

bool is_ndp_message(const uint8_t* frame, uint32_t avail, const ParsedPacket& p) {
  if (p.ip_version != 6 || p.proto != kIpProtoIcmpv6 || p.is_fragment) return false;
  if (p.l4_offset + 4u > readable_end(avail, p)) return false;
  const uint8_t type = frame[p.l4_offset];
  return type >= kNdpRouterSolicitation && type <= kNdpRedirect;
}

LocalVerdict answer_icmp6(uint8_t* frame, uint32_t avail, uint32_t frame_len, uint32_t capacity,
                          const ParsedPacket& p, const LocalPort& port, uint32_t& reply_len) {
  reply_len = 0;
  if (p.ip_version != 6 || p.proto != kIpProtoIcmpv6 || p.is_fragment)
    return LocalVerdict::kNotMine;
  if (p.l4_offset + 4u > readable_end(avail, p)) return LocalVerdict::kNotMine;
  switch (frame[p.l4_offset]) {
    case kIcmpv6EchoRequest:
      reply_len = make_icmp6_echo_reply(frame, avail, frame_len, p, port.mac);
      return reply_len ? LocalVerdict::kReplied : LocalVerdict::kNotMine;
    case kNdpNeighborSolicitation:
      reply_len = make_neighbor_advertisement(frame, avail, capacity, p, port);
      return reply_len ? LocalVerdict::kReplied : LocalVerdict::kConsumed;
    case kNdpRouterSolicitation:
    case kNdpRouterAdvertisement:
    case kNdpNeighborAdvertisement:
    case kNdpRedirect:
      return LocalVerdict::kConsumed;
    default:
      return LocalVerdict::kNotMine;
  }
}

}  // namespace rocelb
