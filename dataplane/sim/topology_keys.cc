#include "dataplane/sim/topology_keys.h"

#include <algorithm>

#include "control/bounded_file.h"
#include "control/config_loader.h"
#include "control/units.h"
#include "control/yaml_document.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"

namespace rocelb::topology_detail {

void KeyReader::fail(const std::string& key, const std::string& why) const {
  throw TopologyError(source_ + ": " + (key.empty() ? "" : key + ": ") + why);
}

std::string KeyReader::scalar(const YAML::Node& n, const std::string& key, const char* what) const {
  if (!n.IsScalar()) fail(key, std::string("must be ") + what + " (found " + yaml_kind(n) + ")");
  return n.Scalar();
}

uint32_t KeyReader::count(const YAML::Node& n, const std::string& key, uint32_t max) const {
  const std::string t = scalar(n, key, "an integer");
  const bool digits = !t.empty() && t.size() <= 9 &&
                      std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  const uint32_t v = digits ? uint32_t(std::stoul(t)) : 0;
  if (!digits || v < 1 || v > max)
    fail(key, quote(t) + ": must be an integer 1.." + std::to_string(max));
  return v;
}

uint64_t KeyReader::speed(const YAML::Node& n, const std::string& key) const {
  const std::string t = scalar(n, key, "a speed");
  uint64_t bps = 0;
  std::string why;
  if (!parse_speed_bps(t, bps, &why)) fail(key, quote(t) + ": " + why);
  if (bps < 1'000'000 || bps > 1'600'000'000'000)
    fail(key, quote(t) + ": speed must be 1M .. 1.6T");
  return bps;
}

uint64_t KeyReader::duration(const YAML::Node& n, const std::string& key) const {
  const std::string t = scalar(n, key, "a duration");
  uint64_t ns = 0;
  std::string why;
  if (!parse_duration_ns(t, ns, &why)) fail(key, quote(t) + ": " + why);
  if (ns > kMaxLinkDelayNs) fail(key, quote(t) + ": delay must be 0 .. 1s");
  return ns;
}

void KeyReader::only(const YAML::Node& n, const std::string& path,
                     const std::vector<std::string_view>& known) const {
  if (auto problem = check_map_keys(n, path, known)) fail(problem->path, problem->rule);
}

std::string read_file(const std::string& path, const char* what) {
  try {
    return read_bounded_file(path, kMaxYamlFileBytes, what);
  } catch (const BoundedFileError& e) {
    throw TopologyError(e.what());
  }
}

YAML::Node parse_document(const std::string& text, const std::string& source, size_t max_nodes) {
  try {
    return load_yaml_document(text, source, max_nodes);
  } catch (const YamlDocumentError& e) {
    throw TopologyError(e.what());
  }
}

bool is_nic_override(const std::string& o) {
  return o.compare(0, 3, "nic") == 0 && (o.size() == 3 || o[3] == '.' || o[3] == '=');
}

bool is_group_override(const std::string& o) {
  return o.compare(0, 6, "groups") == 0 &&
         (o.size() == 6 || o[6] == '.' || o[6] == '=' || o[6] == '[');
}

std::vector<std::vector<std::string>> split_overrides(const std::vector<std::string>& overrides,
                                                      const std::vector<FabricSwitch>& switches,
                                                      const std::vector<bool>& has_groups,
                                                      const std::string& source) {
  std::vector<std::vector<std::string>> out(switches.size());
  for (const std::string& o : overrides) {
    // "NAME:KEY=VALUE"; a colon after the '=' belongs to the value (a MAC).
    const size_t eq = o.find('=');
    const size_t colon = o.find(':');
    if (colon != std::string::npos && (eq == std::string::npos || colon < eq)) {
      const std::string name = o.substr(0, colon);
      auto it = std::find_if(switches.begin(), switches.end(),
                             [&](const FabricSwitch& s) { return s.name == name; });
      if (it == switches.end())
        throw TopologyError(source + ": --set " + o + ": no such switch " + quote(name) +
                            " (switches: " + switches.front().name + ".." + switches.back().name +
                            ")");
      out[size_t(it - switches.begin())].push_back(o.substr(colon + 1));
      continue;
    }
    if (is_nic_override(o)) continue;  // the NICs': nic_params()
    const bool group_key = is_group_override(o);
    for (size_t i = 0; i < switches.size(); ++i)
      if (!(group_key && !has_groups[i])) out[i].push_back(o);
  }
  return out;
}

NicParams nic_params(const YAML::Node& root, const std::vector<std::string>& overrides,
                     const std::string& source, std::string* yaml_out) {
  YAML::Node doc(YAML::NodeType::Map);
  doc["nic"] = root["nic"] ? YAML::Clone(root["nic"]) : YAML::Node(YAML::NodeType::Map);
  for (const std::string& o : overrides) {
    if (!is_nic_override(o)) continue;
    try {
      apply_override(doc, o);
    } catch (const ConfigError& e) {
      throw TopologyError(source + ": " + e.what());
    }
  }
  if (yaml_out) *yaml_out = YAML::Dump(doc["nic"]);
  try {
    return load_nic_params(doc["nic"], source);
  } catch (const NicParamsError& e) {
    throw TopologyError(e.what());
  }
}

void load_switch(FabricSwitch& sw, const YAML::Node& doc, const std::string& source) {
  sw.config_yaml = YAML::Dump(doc) + "\n";
  try {
    sw.params = load_config_node(doc, source + ": " + sw.name, sw.overrides);
  } catch (const ConfigError& e) {
    // The loader names its source in file errors, not in --set ones.
    const std::string where = source + ": " + sw.name;
    const std::string why = e.what();
    throw TopologyError(why.rfind(where, 0) == 0 ? why : where + ": " + why);
  }
}

}  // namespace rocelb::topology_detail
