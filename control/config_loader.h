// Loads a YAML config into validated ConfigParams. Unknown keys, wrong types
// and broken rules throw ConfigError whose message names the source, the key
// path, the value and the rule, e.g.
//   configs/x.yaml: routes[2].prefix: "10.0.0.0/33": prefix length must be 0..32
// Each key's range and rule are its row of switch_config_schema()
// (control/switch_config_keys.h), read through KeyReader; the sections'
// readers are config_*.cc (control/config_sections.h).
// Overrides ("KEY.PATH=VALUE", VALUE read as YAML) are applied to the document
// before validation, so they obey exactly the same rules as the file.
// Last, the whole config's memory estimate (memory_estimate.h) for `runtime`
// must stay under limits.max_memory; the error names the key that asks the
// most.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "control/config_params.h"
#include "control/memory_estimate.h"

namespace YAML {
class Node;
}

namespace rocelb {

class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The file's text (control/bounded_file.h: a regular file of at most
// kMaxYamlFileBytes); throws ConfigError "cannot read WHAT "PATH": why" (WHAT: "config
// file", or what the caller reads, e.g. "topology file").
std::string read_config_file(const std::string& path, const char* what = "config file");
ConfigParams load_config_file(const std::string& path,
                              const std::vector<std::string>& overrides = {},
                              const MemoryRuntime& runtime = {});
ConfigParams load_config_text(const std::string& yaml_text, const std::string& source_name,
                              const std::vector<std::string>& overrides = {},
                              const MemoryRuntime& runtime = {});
// An override with who gave it, as its errors name it: "--set" (the command
// line), "rocelbctl set" (a control client).
struct ConfigOverride {
  std::string text;  // KEY.PATH=VALUE
  std::string via = "--set";
};
// load_config_text with overrides that say who gave them.
ConfigParams load_config_with(const std::string& yaml_text, const std::string& source_name,
                              const std::vector<ConfigOverride>& overrides,
                              const MemoryRuntime& runtime = {});
// The same for a document already parsed (a deep copy takes the overrides,
// `document` is left as it was): what loads one base many times, such as the
// --set fuzzer, parses it once.
ConfigParams load_config_node(const YAML::Node& document, const std::string& source_name,
                              const std::vector<std::string>& overrides = {},
                              const MemoryRuntime& runtime = {});

}  // namespace rocelb
