// The screen of `rocelbctl watch` (top-like), built from two successive
// samples of `show ports`, `show queues`, `show pfc` and `show groups`
// (control/control-protocol.md). Rates are counter differences divided by the
// time between the two results of the same target (their time_ns, the
// switch's clock); a counter that went down (`clear counters` in between)
// counts from zero. Without a previous sample, rates show "-".
//   ports   rx/tx packets/s and bits/s, drops/s, queued bytes, transmit load, PFC state
//   queues  only those holding packets or paused: depth, watermark, drops/s
//   pfc     lossless priorities and any paused, asserted, storming or
//           sending/receiving pause frames: state, frames/s, held bytes
//   groups  decisions/s, and per member packets/s, bits/s and its share of
//           the group's bytes over the interval and since start
// Pure: (previous, current) → text, so tests feed it fixtures.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace rocelb {

struct WatchSample {
  nlohmann::json ports;   // result of show ports
  nlohmann::json queues;  // show queues
  nlohmann::json pfc;     // show pfc
  nlohmann::json groups;  // show groups
};

// previous: the sample before `current`, or nullptr for the first screen.
// Throws nlohmann::json::exception when a documented field is missing.
std::string render_watch(const WatchSample* previous, const WatchSample& current);

}  // namespace rocelb
