// The one schema of every YAML file a user writes to rocelb: the switch
// config, a topology (both forms) and its `nic` section, a workload, a
// scenario. Each file kind has one table of KeySpec rows (its reader's
// *_keys.cc); a row says, for one key path, what the value is (kind, unit,
// range, choices), its default, one line of help and whether a change
// applies to a running switch or needs a restart. The readers take each
// key's range and rule from its row (control/key_reader.h), a map's known
// keys are its rows' children, and docs/reference/config-keys.md is
// generated from the same tables, so the reference and the readers cannot
// disagree.
//
// Key paths are patterns: "control.max_clients"; "ports[]" is a list and
// "ports[].speed" a key of each element; "groups.*" is any key of a map
// whose keys are names the user chooses and "groups.*.members" a key under
// each of them. No knobs, no counters.
//
// What a row's fields mean beyond numbers:
//   kList   hi > 0: it holds lo..hi items, `unit` naming them ("ports").
//   kMapOf  its keys are names ([A-Za-z0-9_.-]{1,64}) or, when hi > 0,
//           integers lo..hi; `unit` names a key ("group name", "DSCP").
//   kMap    a "PATH.*" row (one entry of a kMapOf): `unit` names an entry
//           ("group"), for "no group \"x\" in FILE; a new group needs ...".
//   numbers `choices`, when set, are words taken besides a number
//           (qos.pfc.headroom: "auto"); the reader asks for them first.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace rocelb {

enum class KeyKind : uint8_t {
  kMap,       // a map of the keys below it
  kMapOf,     // a map whose keys the user names ("groups", "qos.dscp_to_tc")
  kList,      // a list; its elements are the row "PATH[]"
  kBool,      // true or false
  kUint,      // a whole number, decimal or 0x hex, in lo..hi
  kInt,       // a signed whole number in lo..hi
  kBytes,     // a byte size ("4MB", "512KiB", 1500), in lo..hi bytes
  kDuration,  // a duration ("256us", "1.5ms"), in lo..hi nanoseconds
  kSpeed,     // a link speed ("100G", "25Gb/s"), in lo..hi bits/s
  kLength,    // a cable length ("100m", "2km"), in lo..hi metres
  kName,      // a name: [A-Za-z0-9_.-]{1,64}
  kString,    // free text (a path, a device string)
  kChoice,    // one word of `choices` ("ecmp|flowlet|...")
  kFraction,  // a decimal number in lo/1000 .. hi/1000 ("0.5", "1", ".0625")
  kOther,     // a value with a rule of its own, checked by its reader (an IP
              // prefix, a MAC, a list of traffic classes); `unit` names it
};

// When a changed value takes effect on a running switch.
enum class Applies : uint8_t {
  kLive,     // at once: `rocelbctl set`, `apply`, SIGHUP
  kRestart,  // refused on a running switch: restart it
  kAtStart,  // files read once when a run or a generation starts
};

struct KeySpec {
  std::string_view path;
  KeyKind kind;
  std::string_view help;
  int64_t lo = 0;  // numbers: the range, in the unit of the kind (ns, bytes, b/s, m)
  uint64_t hi = 0;
  std::string_view unit = {};     // for people: "Mb/s", "of 1024", "IP prefix"
  std::string_view def = {};      // the default as a file would write it; "" none
  std::string_view choices = {};  // kChoice: "a|b|c"; a number's other words
  Applies applies = Applies::kLive;
  bool required = false;
};

struct KeySchema {
  std::string_view file_kind;  // "switch config", "topology", "workload", ...
  std::span<const KeySpec> keys;

  // The row of a pattern ("ports[].speed"), or nullptr.
  const KeySpec* find(std::string_view pattern) const;
  // The keys directly below a map pattern ("" is the top level), in table
  // order: "control" → {"socket", "group", ...}.
  std::vector<std::string_view> children(std::string_view pattern) const;
};

// "ports[]" + "speed" → "ports[].speed"; "" + "ports" → "ports".
std::string join_pattern(std::string_view pattern, std::string_view key);

// The words of a kChoice row ("a|b|c" → {a, b, c}).
std::vector<std::string_view> choice_words(const KeySpec& spec);
// Whether `word` is one of them.
bool is_choice_word(const KeySpec& spec, std::string_view word);
// True for the kinds that hold a number (kUint .. kLength, kFraction).
bool is_number_kind(KeyKind kind);

// The rule a value of this row must follow, as error messages and the
// reference say it: "an integer 1..1024", "a duration 1ms .. 3600s",
// "true or false", "one of ecmp, flowlet", "a byte size 64B .. 1GB".
std::string rule_text(const KeySpec& spec);

// A duration for people: the largest unit that divides it ("100ns", "1s",
// "3600s"; no "h": parse_duration_ns reads ns, us, ms and s only, so the
// bound an error names reads back as a value).
std::string duration_text(uint64_t ns);
// A byte count for people: "1.6MB", "150KB", "64KiB", "1536B", "1000TB".
std::string bytes_text(uint64_t bytes);

// The reference page of one schema in Markdown: one table per top-level
// section (a run of top-level keys with nothing below them shares one
// table, without a heading), a row per key (path, value, default,
// applies, help).
std::string schema_markdown(const KeySchema& schema);

}  // namespace rocelb
