// run.json: what a replay or fabric output directory holds and what the
// switches were, so a reader (rocelb-analyze) needs nothing else: the kind of
// run, its time zero and end on the outputs' clock, the timeline interval,
// the files written, and per switch its ports (id, name, speed), groups
// (name, mode, member ports) and thresholds (ECN/WRED per class, PFC XOFF
// and XON). Knobs: none. Counters: none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/forward/switch_config.h"
#include "dataplane/record/counters_json.h"

namespace rocelb {

// One switch's entry in run.json "switches".
Json run_manifest_switch(const std::string& name, const SwitchConfig& cfg);

struct RunManifest {
  std::string kind;  // "replay" or "fabric"
  uint64_t t0_ns = 0;
  uint64_t end_ns = 0;
  uint64_t interval_ns = 0;  // 0: no timeline
  std::vector<std::string> outputs;
  Json switches = Json::array();
  Json extra = Json::object();  // kind-specific facts (inputs, topology, ...)
};

Json run_manifest_json(const RunManifest& m);

}  // namespace rocelb
