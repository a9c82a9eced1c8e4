// ConWeave's packet kinds and what a packet between two ToRs carries about
// its epoch (mode conweave): lb/conweave_source.h decides it,
// dataplane/wire/conweave_shim.h writes it on the wire (with the path and
// the flow), lb/conweave_dest.h reads it at the destination ToR.
// Knobs: none. Counters: none.
#pragma once

#include <cstdint>

namespace rocelb {

enum class ConWeaveKind : uint8_t {
  kData = 1,       // an ordinary packet of the epoch
  kInit = 2,       // the epoch's first packet: asks for an RTT reply
  kTail = 3,       // the old path's last packet: asks for a clear
  kReplyInit = 4,  // RTT reply (destination ToR to source ToR)
  kReplyTail = 5,  // clear: the tail arrived
  kNotify = 6,     // a CE-marked packet crossed `path`
};

// What a packet carries of its flow's epoch.
struct ConWeaveMark {
  ConWeaveKind kind = ConWeaveKind::kData;
  uint8_t phase = 0;
  uint16_t epoch = 0;
  uint32_t tx_ns = 0;    // the source ToR's clock, low 32 bits
  uint32_t tail_ns = 0;  // the epoch's TAIL send time (0: none)
};

}  // namespace rocelb
