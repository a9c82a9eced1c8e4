// Every switch counter in the Prometheus text exposition format (0.0.4),
// rendered from a counters JSON (counters_json.h) with the names and help
// texts of the counter tables (counters.h, pfc/, lb/), so there is one list.
//
// Naming: rocelb_<scope>_<counter>, `_total` on counters, base units
// (`_us` counters become `_seconds_total`, speeds `_bytes_per_second`).
// Labels: port (id), queue (class), priority, group, member (next-hop
// address), reason (drop reason); rocelb_port_info carries the port's name.
// Never per flow. Gauges: queue depth/watermark/limit, storm state, speed,
// queued packets, conservation.
#pragma once

#include <string>

#include "dataplane/mgmt/counters_json.h"

namespace rocelb {

inline constexpr const char* kPrometheusContentType = "text/plain; version=0.0.4; charset=utf-8";

std::string counters_prometheus(const Json& counters);

}  // namespace rocelb
