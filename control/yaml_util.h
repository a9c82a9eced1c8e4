// Small helpers every YAML reader (the switch config, topologies, NIC
// knobs, workloads, scenarios) uses to talk about YAML nodes in error
// messages: how a value is shown (strings quoted, numbers bare), what kind of
// node was found, and how key paths are written ("ports[0].speed"); whether
// a scalar is UTF-8 text; and the one rule for a map's keys.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include <yaml-cpp/yaml.h>

namespace rocelb {

// `s` in double quotes, with '"', '\' and control characters escaped.
std::string quote(std::string_view s);

// A value as error messages show it: a plain number or boolean bare (5,
// 0x5eed, true), any other scalar quoted ("100X"), else "a map", "a list" or
// "null".
std::string yaml_show(const YAML::Node& n);

// What kind of node this is, for "expected a list, found a map": "a map",
// "an empty map", "a list", "an empty list", "null" or "a scalar".
std::string yaml_kind(const YAML::Node& n);

// The rule every rocelb YAML file holds a map's keys to: each key a string,
// each one of `known` (when `known` is not empty), none twice (yaml-cpp keeps
// both entries of a repeated key and a lookup sees only the first, so a
// repeat would silently lose the later value). The first key that breaks it,
// in file order, as (key path, rule):
//   (path,     "keys must be strings, found a list as a key")
//   (path.KEY, "unknown key (known: a, b, c)")
//   (path.KEY, "duplicate key")
// or nullopt when every key holds. `n` must be a map.
struct YamlKeyProblem {
  std::string path;
  std::string rule;
};
std::optional<YamlKeyProblem> check_map_keys(const YAML::Node& n, std::string_view path,
                                             std::span<const std::string_view> known = {});

// "ports" + "speed" → "ports.speed"; "" + "ports" → "ports".
std::string join_path(std::string_view path, std::string_view key);
// "ports" + 2 → "ports[2]".
std::string index_path(std::string_view path, size_t index);

// Where a YAML parse error is: "SOURCE:LINE:COLUMN", or SOURCE when
// yaml-cpp gives no position.
std::string yaml_error_where(const std::string& source, const YAML::Exception& e);

// Where `s` stops being UTF-8: the offset of the first byte that does not
// begin a well-formed sequence (a stray continuation byte, a truncated or
// overlong sequence, a surrogate, past U+10FFFF), or npos when all of it is.
// YAML is Unicode text; yaml-cpp passes such bytes through, and its emitter
// then writes U+FFFD for them, so the config `show config` prints would
// differ from the one that loaded.
size_t utf8_error_at(std::string_view s);

// True when `path` is `root` or lies below it ("ports[0].speed" is below
// "ports[0]" and "ports", not below "port").
bool path_within(std::string_view path, std::string_view root);

}  // namespace rocelb
