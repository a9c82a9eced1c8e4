// libFuzzer target for the config loader: the input is YAML text, optionally
// followed by a NUL byte and one "KEY.PATH=VALUE" override. Any outcome but
// a ConfigParams or a ConfigError (a crash, another exception, a sanitizer
// report) is a bug: a bad config must give one clear error and change nothing.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "control/config_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  if (const auto nul = text.find('\0'); nul != std::string::npos) {
    overrides.push_back(text.substr(nul + 1));
    text.resize(nul);
  }
  try {
    rocelb::load_config_text(text, "fuzz.yaml", overrides);
  } catch (const rocelb::ConfigError&) {
  }
  return 0;
}
