// The results of the control socket's `show` targets (control/control-protocol.md):
// each view is built from a counters JSON (counters_json.h, already minus
// what `clear counters` took away) and the switch's live state (queue
// depths, pause and XOFF state, flowlet tables, the config).
//
// Called by the control thread only, which is also the only one that
// publishes configs, so the epoch read here cannot be freed underneath.
// Counter reads race benignly with the lcores that write them, as DPDK's
// own stats do. No knobs, no counters of its own.
#pragma once

#include "control/memory_estimate.h"
#include "dataplane/forward/dataplane.h"
#include "dataplane/record/counters_json.h"

namespace rocelb {

inline constexpr size_t kMaxFlowletEntriesShown = 64;

Json view_ports(const Dataplane& dp, const Json& counters, uint64_t now_ns);
Json view_queues(const Dataplane& dp, const Json& counters, uint64_t now_ns);
Json view_pfc(const Dataplane& dp, const Json& counters, uint64_t now_ns);
Json view_ecn(const Dataplane& dp, const Json& counters, uint64_t now_ns);
Json view_groups(const Dataplane& dp, const Json& counters, uint64_t now_ns);
Json view_flowlets(const Dataplane& dp, uint64_t now_ns);
// Per worker lcore: busy and idle TSC cycles, loop iterations, packets, and
// derived busy_pct and cycles_per_packet (busy cycles per received packet).
Json view_lcores(const Dataplane& dp, const Json& counters, uint64_t now_ns);

// The memory estimate of `show config`: total_bytes (the sum of the items),
// limit_bytes (limits.max_memory), the runtime it assumed (workers,
// pool_mbufs, ring_capacity, page_bytes) and items [{name, key (null: no config key
// sizes it), bytes}], in the estimate's order.
Json view_memory(const MemoryEstimate& e, uint64_t limit_bytes);

// `counters` minus `base` (taken by `clear counters`): every counter of the
// schema, matched by port/group name and by position otherwise; gauges
// (depths, watermarks, limits, ids, speeds, states) and flags are left as
// they are now. A counter below its base (it cannot be) reads 0.
Json counters_minus(const Json& counters, const Json& base);

}  // namespace rocelb
