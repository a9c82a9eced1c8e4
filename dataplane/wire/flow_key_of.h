// The flow key a group hashes, from a parsed frame: addresses, protocol,
// UDP (or TCP, first fragment) ports and the BTH destination QP; for a
// packet carrying ConWeave's header (IPv4 protocol 253, conweave_shim.h),
// the UDP packet behind it, its source port mixed with the header's path,
// so that the switches above a source ToR spread marked flows as they
// spread unmarked ones and a rerouted flow takes other hops there too. One
// definition for the balance stage, the recorder that explains its choices
// and rocelb-gen, which predicts them (DPDK-free, like the parser whose
// output it reads). Knobs: none. Counters: none.
#pragma once

#include <cstring>

#include "common/flow_key.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

// ConWeave's header follows an IPv4 header of this protocol
// (dataplane/wire/conweave_shim.h).
inline constexpr uint8_t kConWeaveIpProto = 253;

inline void flow_key_of(const ParsedPacket& p, const uint8_t* frame, uint32_t avail, FlowKey& k) {
  k.family = p.ip_version;
  // Both 16 bytes wide, an IPv4 address zero-padded in each: fixed-size
  // copies (two vector moves) instead of a length picked per packet.
  static_assert(sizeof k.src_ip == sizeof p.src_ip && sizeof k.dst_ip == sizeof p.dst_ip);
  std::memcpy(k.src_ip, p.src_ip, sizeof k.src_ip);
  std::memcpy(k.dst_ip, p.dst_ip, sizeof k.dst_ip);
  k.proto = p.proto;
  if (p.has_udp) {
    k.sport = p.sport;
    k.dport = p.dport;
  } else if (p.proto == 6 && !p.is_later_fragment && p.l4_offset + 4u <= avail) {
    k.sport = load_be16(frame + p.l4_offset);  // TCP ports
    k.dport = load_be16(frame + p.l4_offset + 2);
  } else if (p.proto == kConWeaveIpProto && p.l4_offset + 20u <= avail) {
    const uint8_t* shim = frame + p.l4_offset;  // kind, path, epoch, ...; 16 bytes
    k.proto = 17;
    k.sport = static_cast<uint16_t>(load_be16(shim + 16) ^ (shim[1] * 0x0101u));
    k.dport = load_be16(shim + 18);
    const uint32_t qp = p.l4_offset + 16 + 8 + 5;  // the BTH's destination QP
    k.dest_qp = qp + 3 <= avail ? load_be32(frame + qp - 1) & 0xffffff : 0;
    return;
  }
  k.dest_qp = p.has_bth ? p.bth_dest_qp : 0;
}

}  // namespace rocelb
