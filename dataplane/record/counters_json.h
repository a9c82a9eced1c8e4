// Renders a counter Snapshot as JSON (schema "rocelb.counters.v1", documented
// in docs/reference/counters-json.md) and as the short per-port console table that replay and
// the live run print at the end of a run. Names come from counters.h.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "dataplane/forward/dataplane.h"

namespace rocelb {

using Json = nlohmann::ordered_json;

// Counters render as their value.
inline void to_json(Json& j, const Counter& c) {
  j = c.load();
}

// Per-port, per-queue, per-group counters and the conservation totals.
// `queue_state` supplies live depth/watermark/dequeued from the Dataplane.
// now_ns: the dataplane's clock now (pauses still running count up to it).
Json counters_to_json(const Dataplane& dp, const Snapshot& s, uint64_t now_ns);

// A human table: per port rx/tx packets and bytes, drops by reason, and each
// group member's share of the group's bytes. Reads only the JSON, so any
// counters.json can be printed the same way.
std::string counters_table(const Json& counters);

}  // namespace rocelb
