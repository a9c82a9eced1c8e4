// configs/default.yaml compiled into the binaries, so every tool has the
// reference leaf switch without a path: `--config` omitted means this one.
#pragma once

#include <string_view>

namespace rocelb {

// The YAML text of configs/default.yaml at build time.
std::string_view embedded_default_config();

inline constexpr std::string_view kEmbeddedDefaultName = "configs/default.yaml (embedded)";

}  // namespace rocelb
