// The flow key a group hashes, from a parsed frame: addresses, protocol,
// UDP (or TCP, first fragment) ports and the BTH destination QP. One
// definition for the balance stage, the recorder that explains its choices
// and rocelb-gen, which predicts them (DPDK-free, like the parser whose
// output it reads). Knobs: none. Counters: none.
#pragma once

#include <cstring>

#include "common/flow_key.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

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
  }
  k.dest_qp = p.has_bth ? p.bth_dest_qp : 0;
}

}  // namespace rocelb
