// Reads the values of one YAML file by its schema (control/key_schema.h),
// with the same rules for every rocelb file: a map's keys are its rows'
// children (an unknown key is refused with the nearest known one, "did you
// mean"), none twice, keys are strings; booleans are true or false
// (True/TRUE/False/FALSE too, never 1 or 0); integers are decimal or 0x hex;
// units as control/units.h reads them; every key and scalar is UTF-8 text;
// each value in its row's range. Errors are one line that names where the
// value came from:
//   "FILE: KEY.PATH: VALUE: rule"                 (the file)
//   "--set KEY.PATH=VALUE: KEY.PATH: VALUE: rule" (an override made it)
//   "rocelbctl set KEY.PATH=VALUE: ..."           (an override's `via`)
// and are thrown as KeyError, or through the reader's own thrower so each
// file keeps its exception type (ConfigError, TopologyError, ...).
// A list's length, a map's keys (names, or integers in a range) and a new
// entry an override made in a map of names are checked by their rows too:
//   "--set groups.spnie.idle_time=1us: groups.spnie: no group "spnie" in
//    FILE (did you mean "spine"?); a new group needs "members""
// No knobs, no counters.
#pragma once

#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "control/key_schema.h"
#include "control/yaml_override.h"

namespace rocelb {

class KeyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a file's values came from: the file (or a name for it, "topo.yaml:
// spine1") and the overrides applied to it, in order (a later one wins).
struct KeyOrigin {
  std::string source;
  std::vector<AppliedOverride> overrides;
};

// An integer as every rocelb file writes it: decimal or 0x hex, an optional
// '-' (so that "-1" is reported as out of range, not as not a number).
struct IntText {
  bool ok = false;
  bool negative = false;
  bool overflow = false;
  uint64_t value = 0;
};
IntText parse_int_text(std::string_view s);

// "true"/"True"/"TRUE" → true, "false"/"False"/"FALSE" → false, else nullopt.
std::optional<bool> parse_bool_text(std::string_view s);

class KeyReader {
 public:
  // Must throw; KeyError when not given.
  using Thrower = std::function<void(const std::string& message)>;

  KeyReader(const KeySchema& schema, KeyOrigin origin, Thrower thrower = {});

  const KeySchema& schema() const { return schema_; }
  const KeyOrigin& origin() const { return origin_; }

  // "<origin>: <path>: <msg>", the origin being the last override that made
  // `path` (or one of `related`), else the file.
  [[noreturn]] void fail(std::string_view path, std::string_view msg,
                         std::span<const std::string> related = {}) const;
  // "<origin>: <path>: <value as shown>: <rule>".
  [[noreturn]] void fail_value(std::string_view path, const YAML::Node& n, std::string_view rule,
                               std::span<const std::string> related = {}) const;
  // "expected a map, found a list" / "VALUE: expected an integer".
  [[noreturn]] void fail_type(std::string_view path, const YAML::Node& n,
                              std::string_view expected) const;

  // Refuses the first key or scalar below `n` that is not UTF-8 text.
  void check_utf8(const YAML::Node& n, const std::string& path) const;

  // The row of a pattern; a missing row is a bug of the reader (logic_error).
  const KeySpec& spec(std::string_view pattern) const;

  // One value by its row's rule (kind, range, choices). Integers, sizes,
  // durations, speeds and lengths come back in their kind's unit; a
  // fraction in thousandths; a choice as its word.
  bool boolean(const YAML::Node& n, const std::string& path, const KeySpec& k) const;
  uint64_t uint(const YAML::Node& n, const std::string& path, const KeySpec& k) const;
  int64_t integer(const YAML::Node& n, const std::string& path, const KeySpec& k) const;
  std::string text(const YAML::Node& n, const std::string& path, const KeySpec& k) const;
  // A kFraction value times `scale`, rounded to the nearest integer; up to
  // nine decimals (load_alpha: 0.0625 → 4096 of 65536), checked against the
  // row's range exactly.
  uint64_t scaled(const YAML::Node& n, const std::string& path, const KeySpec& k,
                  uint64_t scale) const;
  const std::string& scalar(const YAML::Node& n, const std::string& path,
                            std::string_view expected) const;

  // A map read under a schema pattern.
  class Map {
   public:
    const std::string& path() const { return path_; }
    const std::string& pattern() const { return pattern_; }
    const YAML::Node& node() const { return node_; }
    const KeyReader& reader() const { return r_; }
    // The concrete path of a key ("ports[2]" + "speed" → "ports[2].speed").
    std::string at(std::string_view key) const;
    // The value of a key; absent or null → nullopt.
    std::optional<YAML::Node> get(std::string_view key) const;
    bool has(std::string_view key) const { return get(key).has_value(); }
    // The value of a required key (null is passed on for the value check):
    // "missing required key \"KEY\"".
    YAML::Node require(std::string_view key) const;

    // Reads a present key into `out` by its row and returns true; leaves
    // `out` alone and returns false when the key is absent or null (a
    // required row refuses both: "missing required key", "expected ...,
    // found null"). `out`
    // is bool for kBool, std::string for text kinds, an integer type for
    // numbers (a row whose range does not fit it is a bug: logic_error).
    template <typename T>
    bool read(std::string_view key, T& out) const;
    // A kFraction key times `scale` (KeyReader::scaled); false when absent.
    bool read_scaled(std::string_view key, uint64_t scale, uint64_t& out) const;
    // The value of a number key when it is one of its row's words
    // ("auto"), else nullopt (absent, or a number for read()).
    std::optional<std::string> word(std::string_view key) const;

    // The map under a key (which must be a map).
    Map map(std::string_view key) const;
    // Each element of the list under a key: fn(node, path "KEY[i]",
    // pattern "KEY[]"). Absent or null: nothing, unless the row is
    // required; a row with hi > 0 bounds the count.
    void each(std::string_view key,
              const std::function<void(const YAML::Node&, const std::string&, const std::string&)>&
                  fn) const;
    // Each entry of a map with user-named keys (kMapOf) under a key:
    // fn(name, node, path "KEY.NAME", pattern "KEY.*"). Keys are checked by
    // the row (names, or integers lo..hi none twice), and an entry an
    // override created without its required keys is refused as new.
    void entries(std::string_view key,
                 const std::function<void(const std::string&, const YAML::Node&, const std::string&,
                                          const std::string&)>& fn) const;
    // The same for a map with integer keys (kMapOf with hi > 0): fn gets
    // the key's value ("0x1a" → 26).
    void numbered(std::string_view key,
                  const std::function<void(uint64_t, const YAML::Node&, const std::string&,
                                           const std::string&)>& fn) const;

   private:
    friend class KeyReader;
    Map(const KeyReader& r, YAML::Node node, std::string path, std::string pattern);
    const KeyReader& r_;
    YAML::Node node_;
    std::string path_;
    std::string pattern_;
  };

  // `n` as the map of `pattern` (its keys checked against the schema).
  Map map(const YAML::Node& n, std::string path, std::string pattern) const;
  // The top of a document: null reads as an empty map.
  Map top(const YAML::Node& root) const;

 private:
  const AppliedOverride* override_for(std::string_view path) const;
  // The checks of Map::entries: the map's keys by its row, and a new entry
  // an override made; calls fn(key text, key value (0 for names), node,
  // path, pattern).
  void each_entry(const Map& parent, std::string_view key,
                  const std::function<void(const std::string&, uint64_t, const YAML::Node&,
                                           const std::string&, const std::string&)>& fn) const;
  // Refuses `entry` (at `path`, of the map `parent`) when an override
  // created it and it lacks a required key of `pattern`.
  void check_new_entry(const YAML::Node& parent, const std::string& name, const YAML::Node& entry,
                       const std::string& path, const std::string& pattern) const;

  const KeySchema& schema_;
  KeyOrigin origin_;
  Thrower thrower_;
};

template <typename T>
bool KeyReader::Map::read(std::string_view key, T& out) const {
  const std::optional<YAML::Node> v = get(key);
  const std::string pat = join_pattern(pattern_, key);
  const KeySpec& k = r_.spec(pat);
  if (!v) {
    if (!k.required) return false;
    r_.fail_type(at(key), require(key), rule_text(k));  // absent: require() refuses it
  }
  const std::string p = at(key);
  if constexpr (std::is_same_v<T, bool>) {
    out = r_.boolean(*v, p, k);
  } else if constexpr (std::is_same_v<T, std::string>) {
    out = r_.text(*v, p, k);
  } else {
    static_assert(std::is_integral_v<T>, "read into bool, std::string or an integer");
    if constexpr (std::is_signed_v<T>) {
      if (k.lo < int64_t(std::numeric_limits<T>::min()) ||
          k.hi > uint64_t(std::numeric_limits<T>::max()))
        throw std::logic_error(pat + ": its range does not fit the field it is read into");
      out = static_cast<T>(r_.integer(*v, p, k));
    } else {
      if (k.hi > uint64_t(std::numeric_limits<T>::max()))
        throw std::logic_error(pat + ": its range does not fit the field it is read into");
      out = static_cast<T>(r_.uint(*v, p, k));
    }
  }
  return true;
}

}  // namespace rocelb
