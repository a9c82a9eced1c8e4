// "--set KEY.PATH=VALUE" overrides, applied to a parsed YAML document before
// validation. Path segments are separated by '.', list elements are written
// [N] ("ports[0].speed", "qos.dscp_to_tc.26"); VALUE is read as YAML, so
// "[6,7]" is a list and "{a: 1}" a map. Missing map keys on the way are
// created; a list index must already exist. A VALUE is bounded as a file
// is: at most kMaxYamlNodes nodes, an alias counting as what it names
// (control/yaml_document.h). Malformed overrides throw ConfigError starting
// "--set KEY.PATH=VALUE: " (or the override's `via` instead of "--set").
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace rocelb {

struct AppliedOverride {
  std::string text;           // as the user wrote it, for messages
  std::string path;           // the key path it sets, e.g. "ports[0].speed"
  std::string touched;        // topmost path it created or replaced (path or one of its parents)
  bool created = false;       // `touched` was not in the document before: the override made it
  std::string via = "--set";  // who set it, for errors: "--set", "rocelbctl set"
};

// `via` names who gave the override in its errors ("rocelbctl set
// KEY=VALUE: ...") and in the result.
AppliedOverride apply_override(YAML::Node& root, const std::string& text,
                               const std::string& via = "--set");

}  // namespace rocelb

namespace rocelb {

// The YAML text with the overrides applied, emitted again (comments are
// lost; keys keep their order). Throws ConfigError like apply_override.
std::string effective_config_yaml(const std::string& yaml_text,
                                  const std::vector<std::string>& overrides);
// The same from a parsed document (left as it is: the overrides go to a copy).
std::string effective_config_yaml(const YAML::Node& document,
                                  const std::vector<std::string>& overrides);

}  // namespace rocelb
