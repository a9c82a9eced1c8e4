// ConWeave's header between switches (mode conweave): 16 bytes right after
// the IPv4 header, which then says protocol 253 (RFC 3692's value for
// experiments, the one ConWeave's ns-3 gives its control packets). The
// source ToR inserts it into a RoCEv2 data packet (whose UDP header and
// everything after follow it unchanged); the switch that delivers the
// packet to a connected host takes it out again and restores protocol 17,
// so a host never sees it and the RoCE ICRC, which covers the restored
// packet, still holds. RTT replies, clears and notifies are frames of
// their own: IPv4 (the flow's addresses swapped), protocol 253, the shim,
// the flow's UDP ports swapped, padded to 60 bytes.
//
//   byte 0     kind (high nibble: ConWeaveKind) | phase (bit 0)
//   byte 1     path: the member index the source ToR chose
//   bytes 2-3  epoch (serial, wraps)
//   bytes 4-7  flow: the source ToR's flow hash (replies echo it)
//   bytes 8-11 the source ToR's send time, ns (low 32 bits)
//   bytes 12-15 the epoch's TAIL send time, ns (low 32 bits; 0: none)
//
// All fields big-endian. Knobs: none. Counters: none.
#pragma once

#include <cstdint>

#include "common/conweave_kind.h"
#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/flow_key_of.h"

namespace rocelb {

inline constexpr uint8_t kIpProtoConWeave = kConWeaveIpProto;
inline constexpr uint32_t kConWeaveShimLen = 16;
// A reply, clear or notify: Ethernet 14 + IPv4 20 + shim 16 + UDP ports 4,
// padded to the Ethernet minimum.
inline constexpr uint32_t kConWeaveControlFrameLen = 60;

// The source ToR's mark, the member it took and its flow hash.
struct ConWeaveShim : ConWeaveMark {
  uint8_t path = 0;
  uint32_t flow = 0;
};

inline void write_conweave_shim(uint8_t* p, const ConWeaveShim& s) {
  p[0] = static_cast<uint8_t>(static_cast<uint8_t>(s.kind) << 4 | (s.phase & 1));
  p[1] = s.path;
  store_be16(p + 2, s.epoch);
  store_be32(p + 4, s.flow);
  store_be32(p + 8, s.tx_ns);
  store_be32(p + 12, s.tail_ns);
}

// False for a kind ConWeave does not have.
inline bool read_conweave_shim(const uint8_t* p, ConWeaveShim& s) {
  const uint8_t kind = p[0] >> 4;
  if (kind < static_cast<uint8_t>(ConWeaveKind::kData) ||
      kind > static_cast<uint8_t>(ConWeaveKind::kNotify))
    return false;
  s.kind = static_cast<ConWeaveKind>(kind);
  s.phase = p[0] & 1;
  s.path = p[1];
  s.epoch = load_be16(p + 2);
  s.flow = load_be32(p + 4);
  s.tx_ns = load_be32(p + 8);
  s.tail_ns = load_be32(p + 12);
  return true;
}

inline bool is_conweave_data(ConWeaveKind k) {
  return k == ConWeaveKind::kData || k == ConWeaveKind::kInit || k == ConWeaveKind::kTail;
}

}  // namespace rocelb
