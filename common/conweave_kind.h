// ConWeave's packet kinds (mode conweave): what a packet between two ToRs
// carries in ConWeave's header (dataplane/wire/conweave_shim.h writes them
// on the wire; lb/conweave_source.h and lb/conweave_dest.h decide them).
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

}  // namespace rocelb
