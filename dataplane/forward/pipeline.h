// The per-packet path of the switch, one burst at a time:
//   parse → accept (destination MAC) → consume PFC/PAUSE, answer ARP, IPv6
//   Neighbor Solicitation and echo requests for the switch's addresses →
//   route (LPM, bulk) → next hop (neighbor or group member by the LB mode) →
//   rewrite (MACs, TTL/hop limit, IPv4 checksum) → classify (DSCP/PCP → class)
//   → enqueue on (egress port, class) or drop with a named reason.
// Every mbuf handed in ends enqueued or freed, and is counted exactly once.
// No allocation, logging, exceptions or locks.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/forward/dataplane.h"

namespace rocelb {

inline constexpr uint16_t kMaxBurst = 32;

// Processes up to kMaxBurst frames received on `in_port` at `now_ns`
// (virtual time in replay, TSC time live). `worker` selects the counter block.
void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns);

}  // namespace rocelb
