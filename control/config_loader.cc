#include "control/config_loader.h"

#include <algorithm>

#include <yaml-cpp/yaml.h>

#include "control/bounded_file.h"
#include "control/config_sections.h"
#include "control/key_reader.h"
#include "control/memory_estimate.h"
#include "control/switch_config_keys.h"
#include "control/yaml_document.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

using namespace config_detail;

// The whole config's memory (memory_estimate.h) against limits.max_memory,
// blaming the key that asks the most.
void check_memory(const KeyReader& r, const ConfigParams& cfg, const MemoryRuntime& runtime) {
  const MemoryEstimate e = estimate_memory(cfg, runtime);
  if (auto refusal = memory_refusal(e, cfg.limits.max_memory_bytes))
    r.fail(refusal->path, refusal->message, also({"limits.max_memory"}));
}

ConfigParams read_config(const YAML::Node& root, const std::string& source,
                         std::vector<AppliedOverride> applied, const MemoryRuntime& runtime) {
  ConfigParams cfg;
  cfg.source = source;
  for (const AppliedOverride& o : applied) cfg.set_by.emplace_back(o.touched, o.via + " " + o.text);
  const KeyReader r(switch_config_schema(), {source, std::move(applied)},
                    [](const std::string& message) { throw ConfigError(message); });
  // An empty document is an empty map: it then lacks "ports".
  const YAML::Node doc = root.IsNull() ? YAML::Node(YAML::NodeType::Map) : root;
  r.check_utf8(doc, "");
  const KeyReader::Map top = r.top(doc);
  top.require("ports");
  ConfigRead c{r, cfg, {}};
  read_switch(top, cfg);
  read_ports(top, c);
  read_neighbors(top, c);
  read_groups(top, c);
  read_routes(top, c);
  read_qos(top, cfg.qos);
  std::sort(cfg.ports.begin(), cfg.ports.end(),
            [](const PortParams& a, const PortParams& b) { return a.id < b.id; });
  std::sort(cfg.groups.begin(), cfg.groups.end(),
            [](const GroupParams& a, const GroupParams& b) { return a.name < b.name; });
  check_memory(r, cfg, runtime);
  return cfg;
}

// Applies the overrides to `root` (modified) and validates the result.
ConfigParams validate_document(YAML::Node& root, const std::string& source_name,
                               const std::vector<ConfigOverride>& overrides,
                               const MemoryRuntime& runtime) {
  try {
    std::vector<AppliedOverride> applied;
    for (const ConfigOverride& o : overrides)
      applied.push_back(apply_override(root, o.text, o.via));
    return read_config(root, source_name, std::move(applied), runtime);
  } catch (const YAML::Exception& e) {
    // Not expected (every access is checked first); still one clear line.
    throw ConfigError(source_name + ": " + e.msg);
  }
}

std::vector<ConfigOverride> from_command_line(const std::vector<std::string>& overrides) {
  std::vector<ConfigOverride> out;
  for (const std::string& o : overrides) out.push_back({o, "--set"});
  return out;
}

}  // namespace

ConfigParams load_config_text(const std::string& yaml_text, const std::string& source_name,
                              const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  return load_config_with(yaml_text, source_name, from_command_line(overrides), runtime);
}

ConfigParams load_config_with(const std::string& yaml_text, const std::string& source_name,
                              const std::vector<ConfigOverride>& overrides,
                              const MemoryRuntime& runtime) {
  // Counted on the event stream before a tree is built (control/
  // yaml_document.h): at most kMaxSwitchConfigNodes nodes, an alias as the
  // nodes it stands for (the UTF-8 check walks them), no duplicate key, one
  // document (yaml-cpp 0.7's LoadAll can loop forever on some malformed
  // input, found by the config fuzzer).
  YAML::Node root;
  try {
    root = load_yaml_document(yaml_text, source_name, kMaxSwitchConfigNodes);
  } catch (const YamlDocumentError& e) {
    throw ConfigError(e.what());
  }
  return validate_document(root, source_name, overrides, runtime);
}

ConfigParams load_config_node(const YAML::Node& document, const std::string& source_name,
                              const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  YAML::Node root = YAML::Clone(document);
  return validate_document(root, source_name, from_command_line(overrides), runtime);
}

std::string ConfigParams::origin_of(const std::string& path,
                                    const std::vector<std::string>& related) const {
  auto find = [&](const std::string& p) -> const std::string* {
    for (auto it = set_by.rbegin(); it != set_by.rend(); ++it)
      if (path_within(p, it->first)) return &it->second;
    return nullptr;
  };
  const std::string* o = find(path);
  for (const auto& r : related)
    if (!o) o = find(r);
  return o ? *o : source;
}

std::string read_config_file(const std::string& path, const char* what) {
  try {
    return read_bounded_file(path, kMaxYamlFileBytes, what);
  } catch (const BoundedFileError& e) {
    throw ConfigError(e.what());
  }
}

ConfigParams load_config_file(const std::string& path, const std::vector<std::string>& overrides,
                              const MemoryRuntime& runtime) {
  return load_config_text(read_config_file(path), path, overrides, runtime);
}

}  // namespace rocelb
