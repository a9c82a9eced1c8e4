// Shared by the rocelb-gen tests: the embedded default switch config, parsed once.
#pragma once

#include <string>

#include "control/config_loader.h"
#include "control/default_config.h"

namespace rocelb::test {

inline const ConfigParams& default_config() {
  static const ConfigParams cfg =
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName));
  return cfg;
}

}  // namespace rocelb::test
