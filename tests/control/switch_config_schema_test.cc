// The switch config's schema table (control/switch_config_keys.cc) and its
// reader (control/config_*.cc) agree: every row is read, with the row's
// range, rule, words and default. A row the reader never reads, or reads
// with another range, fails here.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "control/config_loader.h"
#include "control/switch_config_keys.h"
#include "control/yaml_util.h"
#include "lb/lb_mode.h"

namespace rocelb {
namespace {

// A small valid config with an instance of every list element ("[]") and
// map entry ("*") the schema has.
constexpr const char* kFixture = R"(
switch: {name: s1, hash_seed: 1}
control: {max_clients: 16}
limits: {max_memory: 4GB}
ports:
  - {id: 0, speed: 100G, mac: "02:00:00:00:00:00", ipv4: 10.0.0.1/24, ipv6: "fd00:0:0::1/64",
     scheduler: {strict: [7], weights: {0: 1}}}
  - {id: 1, speed: 100G, mac: "02:00:00:00:00:01", ipv4: 10.0.1.1/24}
neighbors:
  - {ip: 10.0.0.2, mac: "02:00:00:00:01:00", port: 0}
  - {ip: 10.0.1.2, mac: "02:00:00:00:01:01", port: 1}
groups:
  g:
    members: [{via: 10.0.0.2, weight: 1}, 10.0.1.2]
    hash_fields: [src_ip, dst_ip]
    quality:
      load_thresholds: [10, 25, 40, 55, 70, 80, 90]
      queue_thresholds: [16KB, 32KB, 64KB, 128KB, 256KB, 512KB, 1MB]
    drill: {d: 2}
    bpf: {jit: true}
routes:
  - {prefix: 0.0.0.0/0, group: g}
qos:
  dscp_to_tc: {26: 3}
  pcp_to_tc: {3: 3}
  scheduler: {strict: [6], weights: {0: 50}}
  queue_limits: {3: 4MB}
  pfc_enable: [3]
  wred: {3: {green_min_threshold: 150KB, green_max_threshold: 1.5MB}}
  pfc_watchdog: {enabled: true}
)";

// Overrides a row needs besides its own to be valid (xon_offset only goes
// with dynamic thresholds).
const std::map<std::string, std::vector<std::string>> kContext = {
    {"qos.pfc.xon_offset", {"qos.pfc.dynamic_th=0"}},
};

std::string error_of(const std::vector<std::string>& sets) {
  try {
    load_config_text(kFixture, "f.yaml", sets);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

ConfigParams load(const std::vector<std::string>& sets) {
  return load_config_text(kFixture, "f.yaml", sets);
}

std::vector<std::string> with_context(const KeySpec& row, std::vector<std::string> sets) {
  auto it = kContext.find(std::string(row.path));
  if (it != kContext.end()) sets.insert(sets.begin(), it->second.begin(), it->second.end());
  return sets;
}

// One concrete path of a row's pattern in the fixture: "ports[].mtu" →
// "ports[0].mtu", "groups.*.seed" → "groups.g.seed"; nullopt when the
// fixture has no element or entry on the way.
std::optional<std::string> instance(std::string_view pattern) {
  const YAML::Node doc = YAML::Load(kFixture);
  YAML::Node node(doc);
  std::string path;
  while (!pattern.empty()) {
    const size_t dot = pattern.find('.');
    std::string_view token = pattern.substr(0, dot);
    pattern = dot == std::string_view::npos ? "" : pattern.substr(dot + 1);
    const bool element = token.size() > 2 && token.substr(token.size() - 2) == "[]";
    if (element) token.remove_suffix(2);
    std::string key(token);
    if (key == "*") {
      if (!node.IsMap() || node.size() == 0) return std::nullopt;
      key = node.begin()->first.Scalar();
    }
    path = join_path(path, key);
    const YAML::Node next = node.IsMap() ? node[key] : YAML::Node();
    node.reset(next);
    if (element) {
      if (!node.IsSequence() || node.size() == 0) return std::nullopt;
      path = index_path(path, 0);
      const YAML::Node first = node[0];
      node.reset(first);
    }
  }
  return path;
}

// A number of a row's kind as a file writes it, in the kind's unit.
std::string number_text(KeyKind kind, __int128 v) {
  if (kind == KeyKind::kFraction) {
    const int64_t milli = int64_t(v);
    return std::to_string(milli / 1000) + "." + std::to_string(1000 + milli % 1000).substr(1);
  }
  // Integers; bytes, bits/s and metres as plain integers; durations in ns.
  std::string digits;
  unsigned __int128 u = v < 0 ? -v : v;
  do {
    digits += char('0' + int(u % 10));
    u /= 10;
  } while (u != 0);
  if (v < 0) digits += '-';
  std::reverse(digits.begin(), digits.end());
  return kind == KeyKind::kDuration ? digits + "ns" : digits;
}

TEST(SwitchConfigSchema, EveryPatternHasAnInstanceInTheFixture) {
  EXPECT_EQ(error_of({}), "no error");
  for (const KeySpec& row : switch_config_schema().keys)
    EXPECT_TRUE(instance(row.path)) << row.path << ": add an instance to kFixture";
}

// hi + 1 (and lo - 1 where there is a number below lo) at one instance of
// every number row: refused, naming the path and the row's rule.
TEST(SwitchConfigSchema, EveryNumberRowIsReadWithItsRange) {
  int checked = 0;
  for (const KeySpec& row : switch_config_schema().keys) {
    if (!is_number_kind(row.kind)) continue;
    const std::optional<std::string> path = instance(row.path);
    ASSERT_TRUE(path) << row.path;
    std::vector<__int128> outside = {__int128(row.hi) + 1};
    if (row.lo > 0 || row.kind == KeyKind::kInt) outside.push_back(__int128(row.lo) - 1);
    for (__int128 v : outside) {
      const std::string set = *path + "=" + number_text(row.kind, v);
      const std::string e = error_of(with_context(row, {set}));
      EXPECT_NE(e.find(*path + ": "), std::string::npos) << row.path << " " << set << ": " << e;
      EXPECT_NE(e.find("must be " + rule_text(row)), std::string::npos)
          << row.path << " " << set << ": " << e;
      ++checked;
    }
    // The bounds themselves are taken (unless a rule between keys says no).
    if (row.kind == KeyKind::kInt) {
      for (int64_t v : {row.lo, int64_t(row.hi)})
        EXPECT_EQ(error_of(with_context(row, {*path + "=" + std::to_string(v)})), "no error")
            << row.path << "=" << v;
    }
  }
  EXPECT_GT(checked, 60);
}

TEST(SwitchConfigSchema, EveryChoiceAndBooleanRowIsReadWithItsWords) {
  for (const KeySpec& row : switch_config_schema().keys) {
    if (row.kind != KeyKind::kChoice && row.kind != KeyKind::kBool) continue;
    const std::optional<std::string> path = instance(row.path);
    ASSERT_TRUE(path) << row.path;
    const std::string bad = row.kind == KeyKind::kBool ? "1" : "nosuchword";
    const std::string e = error_of(with_context(row, {*path + "=" + bad}));
    EXPECT_NE(e.find(*path + ": "), std::string::npos) << row.path << ": " << e;
    EXPECT_NE(e.find("must be " + rule_text(row)), std::string::npos) << row.path << ": " << e;
  }
}

// Every row, whatever its kind, is read: a value of the wrong shape there
// is refused, naming the row's path.
TEST(SwitchConfigSchema, EveryRowIsRead) {
  for (const KeySpec& row : switch_config_schema().keys) {
    const std::optional<std::string> path = instance(row.path);
    ASSERT_TRUE(path) << row.path;
    const std::string wrong = row.kind == KeyKind::kList ? "{a: 1}" : "[[1]]";
    const std::string e = error_of(with_context(row, {*path + "=" + wrong}));
    EXPECT_NE(e.find(": " + *path + ": "), std::string::npos) << row.path << ": " << e;
  }
}

// A map whose keys are numbers takes lo..hi; a list with a length takes
// lo..hi items.
TEST(SwitchConfigSchema, MapKeysAndListLengthsFollowTheirRows) {
  for (const KeySpec& row : switch_config_schema().keys) {
    if (row.hi == 0 || (row.kind != KeyKind::kMapOf && row.kind != KeyKind::kList)) continue;
    const std::optional<std::string> path = instance(row.path);
    ASSERT_TRUE(path) << row.path;
    if (row.kind == KeyKind::kMapOf) {
      const std::string key = std::to_string(row.hi + 1);
      const std::string e = error_of({*path + "." + key + "=1"});
      EXPECT_NE(e.find(join_path(*path, key) + ": "), std::string::npos) << row.path << ": " << e;
      EXPECT_NE(
          e.find("must be an integer " + std::to_string(row.lo) + ".." + std::to_string(row.hi)),
          std::string::npos)
          << e;
      continue;
    }
    if (row.hi > 4096) continue;  // routes: a million items is the memory tests' job
    for (uint64_t n : {row.hi + 1, uint64_t(row.lo > 0 ? row.lo - 1 : row.hi + 1)}) {
      std::string list = "[";
      for (uint64_t i = 0; i < n; ++i) list += i ? ",0" : "0";
      const std::string e = error_of({*path + "=" + list + "]"});
      EXPECT_NE(e.find(*path + ": must "), std::string::npos) << row.path << " " << n << ": " << e;
    }
  }
}

// What a row says is the default is what an absent key gives.
TEST(SwitchConfigSchema, EveryDefaultIsWhatAnAbsentKeyGives) {
  int checked = 0;
  for (const KeySpec& row : switch_config_schema().keys) {
    if (row.def.empty() || row.def.find('<') != std::string_view::npos) continue;
    std::optional<std::string> path = instance(row.path);
    ASSERT_TRUE(path) << row.path;
    const std::string def(row.def);
    if (row.path.ends_with(".*")) {
      // An entry the fixture lacks, given its default, changes nothing.
      const std::string map = path->substr(0, path->rfind('.'));
      const KeySpec* parent = switch_config_schema().find(row.path.substr(0, row.path.size() - 2));
      ASSERT_TRUE(parent && parent->hi > 0) << row.path;
      const std::string taken = path->substr(path->rfind('.') + 1);
      const std::string fresh =
          std::to_string(std::stoull(taken) == uint64_t(parent->lo) ? parent->lo + 1 : parent->lo);
      EXPECT_TRUE(load(with_context(row, {}))
                      .same_settings(load(with_context(row, {map + "." + fresh + "=" + def}))))
          << row.path << " default " << def;
    } else {
      EXPECT_TRUE(load(with_context(row, {*path + "=null"}))
                      .same_settings(load(with_context(row, {*path + "=" + def}))))
          << row.path << " default " << def;
    }
    ++checked;
  }
  EXPECT_GT(checked, 40);
}

// The words of the choice rows are the code's names.
TEST(SwitchConfigSchema, ChoiceWordsAreTheCodesNames) {
  const KeySchema& s = switch_config_schema();
  std::vector<std::string_view> modes(std::begin(kLbModeNames), std::end(kLbModeNames));
  EXPECT_EQ(choice_words(*s.find("groups.*.mode")), modes);
  std::vector<std::string_view> fields;
  for (const HashFieldName& h : kHashFieldNames) fields.push_back(h.name);
  EXPECT_EQ(choice_words(*s.find("groups.*.hash_fields[]")), fields);
  EXPECT_EQ(s.find("groups.*.hash_fields")->hi, fields.size());
}

// Each path once, each under a row of its parent.
TEST(SwitchConfigSchema, RowsAreATree) {
  std::set<std::string_view> seen;
  for (const KeySpec& row : switch_config_schema().keys) {
    EXPECT_TRUE(seen.insert(row.path).second) << row.path << " twice";
    const std::string_view p = row.path;
    size_t cut = p.find_last_of('.');
    if (p.ends_with("[]")) cut = p.size() - 2;
    if (cut == std::string_view::npos) continue;
    EXPECT_TRUE(switch_config_schema().find(p.substr(0, cut))) << row.path << ": no parent row";
    EXPECT_FALSE(row.help.empty()) << row.path;
  }
}

}  // namespace
}  // namespace rocelb
