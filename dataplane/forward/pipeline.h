// The per-packet path of the switch, one burst at a time, as named stages
// over arrays (stages.h):
//   parse → local traffic (PFC/PAUSE, ARP, NDP, echo) → route (bulk LPM) →
//   balance (one engine call per group) → rewrite → enqueue (grouped by
//   egress port and class, one hand-off per group).
// Every mbuf handed in ends enqueued or freed, and is counted exactly once.
// No allocation, logging, exceptions or locks.
#pragma once

#include <rte_mbuf.h>

#include <cstdint>

#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/stages.h"

namespace rocelb {

// Processes up to kMaxBurst frames received on `in_port` at `now_ns`
// (virtual time in replay, TSC time live) on worker `worker`, under the
// epoch that worker adopted (Dataplane::adopt).
void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns);
// Frames the switch runs through again (conweave's held packets, the
// replies it made), counted in already: not counted as received again.
void reprocess_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                     uint64_t now_ns);

}  // namespace rocelb
