// libFuzzer target for --set overrides: the input is "KEY.PATH=VALUE"
// overrides, one per line (empty lines skipped), applied in order to the
// embedded default config as `rocelb-dp run --set ... --set ...` would.
// The default is parsed once (load_config_node takes a deep copy per input:
// YAML parsing was 9 in 10 of the time when every input parsed it again;
// the effective YAML is built from it too).
// Loading must end in a ConfigParams or a ConfigError. When it loads, the
// effective YAML that `rocelbctl show config` prints must be built without
// error and load again.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "control/yaml_override.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string base =
      rocelb::effective_config_yaml(std::string(rocelb::embedded_default_config()), {});
  static const YAML::Node base_document = YAML::Load(base);
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> overrides;
  for (size_t start = 0; start < text.size();) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    if (end > start) overrides.emplace_back(text.substr(start, end - start));
    start = end + 1;
  }
  try {
    rocelb::load_config_node(base_document, "fuzz.yaml", overrides);
  } catch (const rocelb::ConfigError&) {
    return 0;
  }
  std::string effective;
  try {
    effective = rocelb::effective_config_yaml(base_document, overrides);
    rocelb::load_config_text(effective, "effective.yaml");
  } catch (const rocelb::ConfigError& e) {
    std::fprintf(stderr, "loaded with the overrides but not as effective YAML: %s\n%s", e.what(),
                 effective.c_str());
    std::abort();
  }
  return 0;
}
