// What the dataplane tells an LbEngine about each member of a group, per call:
// an array of MemberPath indexed like the group's members. queue_bytes is the
// depth of the member's egress queue (the packet's class or the whole port, as
// `quality.depth` says); load_bps is the port's transmit-load EWMA
// (LoadMeter); up is false when the link or `ports[].admin_status` is down.
// No knobs, no counters.
#pragma once

#include <cstdint>

namespace rocelb {

struct MemberPath {
  uint64_t queue_bytes = 0;
  uint64_t load_bps = 0;
  uint64_t speed_bps = 0;
  bool up = true;
};

// Returned by LbEngine when every member is down: the caller drops the packet.
inline constexpr uint32_t kNoMember = 0xffffffffu;

}  // namespace rocelb
