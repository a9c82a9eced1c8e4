// Shared by the rocelb-gen tests: the embedded default switch config, parsed
// once, and scenario loading against it.
#pragma once

#include <optional>
#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "tools/gen/scenario.h"

namespace rocelb::test {

inline const ConfigParams& default_config() {
  static const ConfigParams cfg =
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName));
  return cfg;
}

// A scenario text loaded against the default config, as scenario.yaml.
inline ScenarioParams load_scenario(const std::string& text,
                                    std::optional<uint64_t> seed = std::nullopt) {
  return load_scenario_text(text, "scenario.yaml", default_config(), seed);
}

// The message of the error a scenario produces ("" when it loads).
inline std::string scenario_error(const std::string& text) {
  try {
    load_scenario(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

}  // namespace rocelb::test
