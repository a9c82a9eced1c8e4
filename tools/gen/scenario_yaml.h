// Writes a ScenarioParams back out as scenario YAML (tools/gen/scenario.h)
// that load_scenario_text() reads into the same flows and PFC sources: what
// `rocelb-gen --preset ... --emit-scenario FILE` saves for a user to edit.
// One flow-style map per flow, keys in schema order; keys at their default
// (messages 1, gap 0, copies 1, psn 0, ecn ect0, no pcp/vlan, src_qp) are
// left out. Sizes are written exactly (1MiB, 4KB, 1234), durations in the
// largest unit that keeps them whole (10us, 1500ns), speeds as 100G or bit/s.
// A resolved random sport is written as the number it became.
#pragma once

#include <string>

#include "tools/gen/scenario.h"

namespace rocelb {

// `comment`: lines written first, each prefixed with "# " (empty lines "#").
std::string scenario_to_yaml(const ScenarioParams& sc, const std::string& comment);

// The exact text forms used above.
std::string yaml_bytes(uint64_t bytes);
std::string yaml_duration(uint64_t ns);

}  // namespace rocelb
