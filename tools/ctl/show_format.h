// Turns the result of each `show` target of the control socket
// (control/control-protocol.md) into the text rocelbctl prints: aligned tables
// with human units ("100G", "1.50 MB", "25.00%"). One function per target;
// each reads only the documented fields and throws nlohmann::json::exception
// when one is missing or of the wrong type.
//   ports     one row per port: traffic, drops, queued bytes, transmit load, PFC state
//   queues    one row per (port, class): scheduler, depth, watermark, counters
//   pfc       thresholds and watchdog, then per port the lossless priorities
//             and any priority with a nonzero counter
//   ecn       the WRED/ECN profiles, then the queues that have one
//   groups    each next-hop group: mode, knobs, counters, members with share
//   flowlets  each group's flowlet entries (youngest first)
//   counters  the compact per-port table, group shares, the conservation sum
//   config    the effective YAML, under comments: generation, source, overrides,
//             and (when the result has it) the memory estimate, item by item
//   metrics   the Prometheus text as is
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "control/control_protocol.h"  // kShowTargets

namespace rocelb {

std::string format_ports(const nlohmann::json& result);
std::string format_queues(const nlohmann::json& result);
std::string format_pfc(const nlohmann::json& result);
std::string format_ecn(const nlohmann::json& result);
std::string format_groups(const nlohmann::json& result);
std::string format_flowlets(const nlohmann::json& result);
std::string format_counters(const nlohmann::json& result);
std::string format_config(const nlohmann::json& result);
std::string format_metrics(const nlohmann::json& result);
std::string format_lcores(const nlohmann::json& result);

// Dispatches on `what` (one of kShowTargets; anything else throws
// std::invalid_argument).
std::string format_show(std::string_view what, const nlohmann::json& result);

}  // namespace rocelb
