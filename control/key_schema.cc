#include "control/key_schema.h"

#include <algorithm>

#include "control/units.h"

namespace rocelb {
namespace {

// The key right below `parent` when `path` is one step under it, else "".
std::string_view child_of(std::string_view parent, std::string_view path) {
  if (parent.empty()) {
    if (path.find_first_of(".[") != std::string_view::npos) return {};
    return path;
  }
  if (path.size() <= parent.size() + 1 || path.substr(0, parent.size()) != parent ||
      path[parent.size()] != '.')
    return {};
  std::string_view rest = path.substr(parent.size() + 1);
  if (rest.find_first_of(".[") != std::string_view::npos) return {};
  return rest;
}

std::string speed_text(uint64_t bps) {
  return format_speed_bps(bps);
}

std::string kind_text(const KeySpec& k) {
  switch (k.kind) {
    case KeyKind::kMap:
      return "a map";
    case KeyKind::kMapOf: {
      std::string out = "a map by ";
      out += k.unit.empty() ? "name" : k.unit;
      if (k.hi > 0) {
        out += ' ';
        out += std::to_string(k.lo < 0 ? 0 : k.lo);
        out += "..";
        out += std::to_string(k.hi);
      }
      return out;
    }
    case KeyKind::kList: {
      if (k.hi == 0) return "a list";
      std::string out = "a list of ";
      if (uint64_t(k.lo) == k.hi)
        out += std::to_string(k.hi);
      else if (k.lo <= 0)
        out += "at most " + std::to_string(k.hi);
      else
        out += std::to_string(k.lo) + ".." + std::to_string(k.hi);
      out += ' ';
      out += k.unit.empty() ? "items" : k.unit;
      return out;
    }
    case KeyKind::kBool:
      return "true or false";
    case KeyKind::kName:
      return "a name ([A-Za-z0-9_.-], 1..64 characters)";
    case KeyKind::kString:
      return k.unit.empty() ? "a string" : std::string(k.unit);
    case KeyKind::kOther:
      return std::string(k.unit.empty() ? "a value" : k.unit);
    default:
      return rule_text(k);
  }
}

std::string applies_text(Applies a) {
  switch (a) {
    case Applies::kLive:
      return "live";
    case Applies::kRestart:
      return "restart";
    case Applies::kAtStart:
      return "at start";
  }
  return "";
}

// '|' would end a Markdown table cell.
std::string cell(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

const KeySpec* KeySchema::find(std::string_view pattern) const {
  for (const KeySpec& k : keys)
    if (k.path == pattern) return &k;
  return nullptr;
}

std::vector<std::string_view> KeySchema::children(std::string_view pattern) const {
  std::vector<std::string_view> out;
  for (const KeySpec& k : keys) {
    std::string_view c = child_of(pattern, k.path);
    if (!c.empty() && c != "*") out.push_back(c);
  }
  return out;
}

std::string join_pattern(std::string_view pattern, std::string_view key) {
  if (pattern.empty()) return std::string(key);
  std::string out(pattern);
  out += '.';
  out += key;
  return out;
}

std::vector<std::string_view> choice_words(const KeySpec& spec) {
  std::vector<std::string_view> out;
  std::string_view s = spec.choices;
  while (!s.empty()) {
    const size_t bar = s.find('|');
    out.push_back(s.substr(0, bar));
    if (bar == std::string_view::npos) break;
    s.remove_prefix(bar + 1);
  }
  return out;
}

bool is_choice_word(const KeySpec& spec, std::string_view word) {
  const auto words = choice_words(spec);
  return std::find(words.begin(), words.end(), word) != words.end();
}

bool is_number_kind(KeyKind kind) {
  switch (kind) {
    case KeyKind::kUint:
    case KeyKind::kInt:
    case KeyKind::kBytes:
    case KeyKind::kDuration:
    case KeyKind::kSpeed:
    case KeyKind::kLength:
    case KeyKind::kFraction:
      return true;
    default:
      return false;
  }
}

std::string duration_text(uint64_t ns) {
  if (ns != 0 && ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns != 0 && ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns != 0 && ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}

std::string bytes_text(uint64_t b) {
  constexpr uint64_t kTB = 1'000'000'000'000;
  if (b >= kTB && b % kTB == 0) return std::to_string(b / kTB) + "TB";
  for (uint64_t unit : {uint64_t(1'000'000'000), uint64_t(1'000'000)}) {
    if (b < unit || b % unit == 0 || b % (unit / 1000) != 0) continue;
    std::string frac = std::to_string(1000 + b % unit / (unit / 1000)).substr(1);
    while (frac.back() == '0') frac.pop_back();
    return std::to_string(b / unit) + "." + frac + (unit == 1'000'000 ? "MB" : "GB");
  }
  return format_bytes(b);
}

namespace {

std::string number_rule_text(const KeySpec& k) {
  const uint64_t lo = k.lo < 0 ? 0 : uint64_t(k.lo);
  const std::string unit = k.unit.empty() ? "" : " (" + std::string(k.unit) + ")";
  switch (k.kind) {
    case KeyKind::kUint:
      return "an integer " + std::to_string(lo) + ".." + std::to_string(k.hi) + unit;
    case KeyKind::kInt:
      return "an integer " + std::to_string(k.lo) + ".." + std::to_string(k.hi) + unit;
    case KeyKind::kBytes:
      return "a byte size " + bytes_text(lo) + " .. " + bytes_text(k.hi);
    case KeyKind::kDuration:
      return "a duration " + duration_text(lo) + " .. " + duration_text(k.hi);
    case KeyKind::kSpeed:
      return "a speed " + speed_text(lo) + " .. " + speed_text(k.hi);
    case KeyKind::kLength:
      return "a length " + std::to_string(lo) + "m .. " + std::to_string(k.hi) + "m";
    case KeyKind::kFraction: {
      auto frac = [](uint64_t milli) {
        std::string s = std::to_string(milli / 1000);
        if (milli % 1000) {
          std::string f = std::to_string(1000 + milli % 1000).substr(1);
          while (f.back() == '0') f.pop_back();
          s += "." + f;
        }
        return s;
      };
      return "a number " + frac(lo) + ".." + frac(k.hi) + unit;
    }
    case KeyKind::kChoice: {
      std::string out = "one of ";
      const auto words = choice_words(k);
      for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + std::string(words[i]);
      return out;
    }
    default:
      return kind_text(k);
  }
}

}  // namespace

std::string rule_text(const KeySpec& k) {
  if (!is_number_kind(k.kind) || k.choices.empty()) return number_rule_text(k);
  // A number that takes words too: "auto or a byte size 64B .. 1GB".
  std::string out;
  const auto words = choice_words(k);
  for (size_t i = 0; i < words.size(); ++i) out += (i ? ", " : "") + std::string(words[i]);
  return out + " or " + number_rule_text(k);
}

std::string schema_markdown(const KeySchema& schema) {
  // A top-level key with rows below it is a section of its own; a run of
  // top-level keys without (a topology's leaves, spines, ...) shares one
  // table without a heading.
  auto has_rows_below = [&](std::string_view top) {
    for (const KeySpec& k : schema.keys)
      if (k.path.size() > top.size() && k.path.substr(0, top.size()) == top &&
          (k.path[top.size()] == '.' || k.path[top.size()] == '['))
        return true;
    return false;
  };
  std::string out;
  std::string_view section = "\x01";
  for (const KeySpec& k : schema.keys) {
    const std::string_view top = k.path.substr(0, k.path.find_first_of(".["));
    const bool own = has_rows_below(top);
    if (own ? top != section : !section.empty()) {
      section = own ? top : std::string_view();
      out += own ? "\n### `" + std::string(top) + "`\n\n" : "\n";
      out += "| key | value | default | applies | what it does |\n";
      out += "|---|---|---|---|---|\n";
    }
    std::string def;
    if (k.required) {
      def = "required";
    } else if (!k.def.empty()) {
      def = "`";
      def += k.def;
      def += '`';
    }
    out += "| `" + cell(k.path) + "` | " + cell(kind_text(k)) + " | " + cell(def) + " | " +
           applies_text(k.applies) + " | " + cell(k.help) + " |\n";
  }
  return out;
}

}  // namespace rocelb
