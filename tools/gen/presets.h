// rocelb-gen presets: ready-made scenarios for a course on RoCE multipath
// load balancing, built for the switch config in use and deterministic for a
// seed (the same preset, parameters, config and seed give the same scenario,
// byte for byte). Each is a function from its parameters to a scenario
// (tools/gen/scenario.h); rocelb-gen writes that scenario as YAML
// (--emit-scenario) and generates from the YAML it wrote, so the file a user
// edits and feeds back with --scenario gives the same pcaps.
//   ai-alltoall     synchronized all-to-all phases (preset_ai_alltoall.h)
//   nvmeof          NVMe-oF/RDMA reads and writes (preset_nvmeof.h)
//   multitenant     elephants and mice told apart by VLAN/DSCP (preset_multitenant.h)
//   ecmp-collision  flows the switch's hash puts on one uplink (preset_ecmp_collision.h)
//   pfc-storm       a host stuck sending PFC XOFF (preset_pfc_storm.h)
//   cdf             Poisson arrivals, sizes from a published CDF (preset_cdf.h)
// Each header lists its parameters and defaults; `rocelb-gen --list-presets`
// prints them.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tools/gen/preset_common.h"

namespace rocelb {

std::span<const PresetDef* const> all_presets();
const PresetDef* find_preset(std::string_view name);

// Every preset with its description and parameters (name=default, help).
std::string list_presets_text();

struct PresetResult {
  std::string yaml;                // the scenario, with a comment header
  ScenarioParams scenario;         // loaded from yaml
  std::vector<std::string> notes;  // what the preset wants the user to know
};

// Throws PresetError for an unknown preset or a bad parameter.
PresetResult run_preset(std::string_view name, const std::vector<std::string>& params,
                        const ConfigParams& config, std::optional<uint64_t> seed);

}  // namespace rocelb
