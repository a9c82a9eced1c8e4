#include "control/key_reader.h"

#include <algorithm>
#include <cstdio>

#include "common/suggest.h"
#include "control/units.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

constexpr size_t kMaxNameLength = 64;

bool is_name(std::string_view s) {
  if (s.empty() || s.size() > kMaxNameLength) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '.' || c == '-';
  });
}

// A decimal number "W.F" (".5", "1", "0.0625") as num / den, den a power
// of ten; at most 9 whole digits and 9 decimals.
bool parse_decimal(std::string_view s, uint64_t& num, uint64_t& den) {
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if ((whole.empty() && frac.empty()) || whole.size() > 9 || frac.size() > 9) return false;
  auto digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(whole) || !digits(frac) || (dot != std::string_view::npos && frac.empty()))
    return false;
  num = 0;
  den = 1;
  for (char c : whole) num = num * 10 + uint64_t(c - '0');
  for (char c : frac) {
    num = num * 10 + uint64_t(c - '0');
    den *= 10;
  }
  return true;
}

// "0.25" → 250 thousandths; at most three decimals.
bool parse_milli(std::string_view s, uint64_t& out) {
  const size_t dot = s.find('.');
  std::string_view whole = s.substr(0, dot);
  std::string_view frac = dot == std::string_view::npos ? "" : s.substr(dot + 1);
  if ((whole.empty() && frac.empty()) || whole.size() > 12 || frac.size() > 3) return false;
  auto digits = [](std::string_view d) {
    return std::all_of(d.begin(), d.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (!digits(whole) || !digits(frac) || (dot != std::string_view::npos && frac.empty()))
    return false;
  uint64_t v = 0;
  for (char c : whole) v = v * 10 + uint64_t(c - '0');
  v *= 1000;
  uint64_t scale = 100;
  for (char c : frac) {
    v += uint64_t(c - '0') * scale;
    scale /= 10;
  }
  out = v;
  return true;
}

}  // namespace

IntText parse_int_text(std::string_view s) {
  IntText r;
  if (!s.empty() && s[0] == '-') {
    r.negative = true;
    s.remove_prefix(1);
  }
  unsigned base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s.remove_prefix(2);
  }
  if (s.empty()) return r;
  for (char c : s) {
    unsigned d;
    if (c >= '0' && c <= '9') {
      d = unsigned(c - '0');
    } else if (base == 16 && c >= 'a' && c <= 'f') {
      d = unsigned(c - 'a' + 10);
    } else if (base == 16 && c >= 'A' && c <= 'F') {
      d = unsigned(c - 'A' + 10);
    } else {
      return r;
    }
    if (r.value > (UINT64_MAX - d) / base) r.overflow = true;
    r.value = r.value * base + d;
  }
  r.ok = true;
  return r;
}

std::optional<bool> parse_bool_text(std::string_view s) {
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  return std::nullopt;
}

KeyReader::KeyReader(const KeySchema& schema, KeyOrigin origin, Thrower thrower)
    : schema_(schema), origin_(std::move(origin)), thrower_(std::move(thrower)) {}

const AppliedOverride* KeyReader::override_for(std::string_view path) const {
  for (auto it = origin_.overrides.rbegin(); it != origin_.overrides.rend(); ++it)
    if (path_within(path, it->touched)) return &*it;
  return nullptr;
}

void KeyReader::fail(std::string_view path, std::string_view msg,
                     std::span<const std::string> related) const {
  const AppliedOverride* o = override_for(path);
  for (const std::string& r : related)
    if (!o) o = override_for(r);
  std::string out = o ? o->via + " " + o->text : origin_.source;
  out += ": ";
  if (!path.empty()) out += std::string(path) + ": ";
  out += msg;
  if (thrower_) thrower_(out);
  throw KeyError(out);
}

void KeyReader::fail_value(std::string_view path, const YAML::Node& n, std::string_view rule,
                           std::span<const std::string> related) const {
  fail(path, yaml_show(n) + ": " + std::string(rule), related);
}

void KeyReader::fail_type(std::string_view path, const YAML::Node& n,
                          std::string_view expected) const {
  const std::string exp = std::string(expected) + (path.empty() ? " at the top level" : "");
  if (n.IsScalar()) fail(path, yaml_show(n) + ": expected " + exp);
  fail(path, "expected " + exp + ", found " + yaml_kind(n));
}

void KeyReader::check_utf8(const YAML::Node& n, const std::string& path) const {
  auto check = [&](const std::string& text, const std::string& where, const char* what) {
    const size_t at = utf8_error_at(text);
    if (at == std::string::npos) return;
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[at]));
    fail(where, std::string(what) + " is not UTF-8 text (byte " + byte + " at offset " +
                    std::to_string(at) + "): a " + std::string(schema_.file_kind) + " is UTF-8");
  };
  if (n.IsScalar()) {
    check(n.Scalar(), path, "the value");
  } else if (n.IsSequence()) {
    for (size_t i = 0; i < n.size(); ++i) check_utf8(n[i], index_path(path, i));
  } else if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      if (!it->first.IsScalar()) {
        check_utf8(it->first, path);
        check_utf8(it->second, path);
        continue;
      }
      check(it->first.Scalar(), path, "a key");
      check_utf8(it->second, join_path(path, it->first.Scalar()));
    }
  }
}

const KeySpec& KeyReader::spec(std::string_view pattern) const {
  if (const KeySpec* k = schema_.find(pattern)) return *k;
  throw std::logic_error(std::string(schema_.file_kind) + ": no schema row for " +
                         std::string(pattern));
}

const std::string& KeyReader::scalar(const YAML::Node& n, const std::string& path,
                                     std::string_view expected) const {
  if (!n.IsScalar()) fail_type(path, n, expected);
  return n.Scalar();
}

bool KeyReader::boolean(const YAML::Node& n, const std::string& path, const KeySpec&) const {
  const std::optional<bool> b = parse_bool_text(scalar(n, path, "true or false"));
  if (!b) fail_value(path, n, "must be true or false");
  return *b;
}

uint64_t KeyReader::uint(const YAML::Node& n, const std::string& path, const KeySpec& k) const {
  const uint64_t lo = k.lo < 0 ? 0 : uint64_t(k.lo);
  auto check = [&](uint64_t v) {
    if (v < lo || v > k.hi) fail_value(path, n, "must be " + rule_text(k));
    return v;
  };
  std::string why;
  uint64_t v = 0;
  // A row that takes words too ("auto") names them all when the text is
  // neither: the parser's own reason would not.
  auto unreadable = [&](const std::string& reason) {
    fail_value(path, n, k.choices.empty() ? reason : "must be " + rule_text(k));
  };
  switch (k.kind) {
    case KeyKind::kUint: {
      const IntText t = parse_int_text(scalar(n, path, "an integer"));
      if (!t.ok) fail_value(path, n, "must be " + rule_text(k));
      if ((t.negative && t.value != 0) || t.overflow)
        fail_value(path, n, "must be " + rule_text(k));
      return check(t.value);
    }
    case KeyKind::kInt: {
      const int64_t s = integer(n, path, k);
      if (s < 0) fail_value(path, n, "must be " + rule_text(k));
      return uint64_t(s);
    }
    case KeyKind::kBytes:
      if (!parse_bytes(scalar(n, path, "a byte size"), v, &why)) unreadable(why);
      return check(v);
    case KeyKind::kDuration:
      if (!parse_duration_ns(scalar(n, path, "a duration"), v, &why)) unreadable(why);
      return check(v);
    case KeyKind::kSpeed:
      if (!parse_speed_bps(scalar(n, path, "a speed"), v, &why)) unreadable(why);
      return check(v);
    case KeyKind::kLength:
      if (!parse_length_m(scalar(n, path, "a length"), v, &why)) unreadable(why);
      return check(v);
    case KeyKind::kFraction:
      if (!parse_milli(scalar(n, path, "a number"), v))
        fail_value(path, n, "must be " + rule_text(k));
      return check(v);
    default:
      throw std::logic_error(std::string(k.path) + ": not a number row");
  }
}

int64_t KeyReader::integer(const YAML::Node& n, const std::string& path, const KeySpec& k) const {
  if (k.kind != KeyKind::kInt) return int64_t(uint(n, path, k));
  const IntText t = parse_int_text(scalar(n, path, "an integer"));
  if (!t.ok || t.overflow || t.value > uint64_t(INT64_MAX))
    fail_value(path, n, "must be " + rule_text(k));
  const int64_t v = t.negative ? -int64_t(t.value) : int64_t(t.value);
  if (v < k.lo || (v >= 0 && uint64_t(v) > k.hi)) fail_value(path, n, "must be " + rule_text(k));
  return v;
}

std::string KeyReader::text(const YAML::Node& n, const std::string& path, const KeySpec& k) const {
  switch (k.kind) {
    case KeyKind::kString:
    case KeyKind::kOther:
      return scalar(n, path, "a string");
    case KeyKind::kName: {
      const std::string& s = scalar(n, path, "a name");
      if (!is_name(s)) fail_value(path, n, "must match [A-Za-z0-9_.-]+ (1..64 characters)");
      return s;
    }
    case KeyKind::kChoice: {
      const std::string& s = scalar(n, path, rule_text(k));
      const auto words = choice_words(k);
      if (std::find(words.begin(), words.end(), s) != words.end()) return s;
      std::vector<std::string> cands(words.begin(), words.end());
      const std::string near = nearest_name(s, cands);
      fail_value(
          path, n,
          (near.empty() ? "" : "did you mean " + quote(near) + "? ") + "must be " + rule_text(k));
    }
    default:
      throw std::logic_error(std::string(k.path) + ": not a text row");
  }
}

uint64_t KeyReader::scaled(const YAML::Node& n, const std::string& path, const KeySpec& k,
                           uint64_t scale) const {
  if (k.kind != KeyKind::kFraction)
    throw std::logic_error(std::string(k.path) + ": not a fraction");
  uint64_t num = 0, den = 1;
  if (!parse_decimal(scalar(n, path, "a number"), num, den))
    fail_value(path, n, "must be " + rule_text(k));
  using Wide = unsigned __int128;
  const uint64_t lo = k.lo < 0 ? 0 : uint64_t(k.lo);
  if (Wide(num) * 1000 < Wide(lo) * den || Wide(num) * 1000 > Wide(k.hi) * den)
    fail_value(path, n, "must be " + rule_text(k));
  return uint64_t((Wide(num) * scale + den / 2) / den);
}

KeyReader::Map::Map(const KeyReader& r, YAML::Node node, std::string path, std::string pattern)
    : r_(r), node_(std::move(node)), path_(std::move(path)), pattern_(std::move(pattern)) {}

KeyReader::Map KeyReader::map(const YAML::Node& n, std::string path, std::string pattern) const {
  if (!n.IsMap()) fail_type(path, n, "a map");
  const std::vector<std::string_view> known = schema_.children(pattern);
  if (auto problem = check_map_keys(n, path)) fail(problem->path, problem->rule);
  for (auto it = n.begin(); it != n.end(); ++it) {
    const std::string& key = it->first.Scalar();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    std::vector<std::string> cands(known.begin(), known.end());
    const std::string near = nearest_name(key, cands);
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    fail(join_path(path, key), "unknown key" +
                                   (near.empty() ? "" : ", did you mean " + quote(near) + "?") +
                                   " (known: " + list + ")");
  }
  return Map(*this, n, std::move(path), std::move(pattern));
}

KeyReader::Map KeyReader::top(const YAML::Node& root) const {
  return map(root.IsNull() ? YAML::Node(YAML::NodeType::Map) : root, "", "");
}

std::string KeyReader::Map::at(std::string_view key) const {
  return join_path(path_, key);
}

std::optional<YAML::Node> KeyReader::Map::get(std::string_view key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key)
      return it->second.IsNull() ? std::nullopt : std::optional<YAML::Node>(it->second);
  return std::nullopt;
}

YAML::Node KeyReader::Map::require(std::string_view key) const {
  for (auto it = node_.begin(); it != node_.end(); ++it)
    if (it->first.Scalar() == key) return it->second;
  r_.fail(path_, "missing required key " + quote(key));
}

KeyReader::Map KeyReader::Map::map(std::string_view key) const {
  return r_.map(require(key), at(key), join_pattern(pattern_, key));
}

bool KeyReader::Map::read_scaled(std::string_view key, uint64_t scale, uint64_t& out) const {
  const KeySpec& k = r_.spec(join_pattern(pattern_, key));
  const std::optional<YAML::Node> v = get(key);
  if (!v) return false;
  out = r_.scaled(*v, at(key), k, scale);
  return true;
}

std::optional<std::string> KeyReader::Map::word(std::string_view key) const {
  const KeySpec& k = r_.spec(join_pattern(pattern_, key));
  const std::optional<YAML::Node> v = get(key);
  if (!v || !v->IsScalar() || !is_choice_word(k, v->Scalar())) return std::nullopt;
  return v->Scalar();
}

void KeyReader::Map::each(std::string_view key,
                          const std::function<void(const YAML::Node&, const std::string&,
                                                   const std::string&)>& fn) const {
  const std::string list_pat = join_pattern(pattern_, key);
  const KeySpec& row = r_.spec(list_pat);
  std::optional<YAML::Node> v = get(key);
  const std::string p = at(key);
  if (!v) {
    if (!row.required) return;
    v = require(key);  // absent: "missing required key"; null: the type error below
  }
  if (!v->IsSequence()) r_.fail_type(p, *v, "a list");
  if (row.hi > 0) {
    const uint64_t lo = row.lo < 0 ? 0 : uint64_t(row.lo);
    const size_t n = v->size();
    const std::string items = row.unit.empty() ? "items" : std::string(row.unit);
    const std::string found = " (found " + std::to_string(n) + ")";
    if (lo == row.hi && n != lo)
      r_.fail(p, "must list " + std::to_string(lo) + " " + items + found);
    if (n < lo && lo == 1) r_.fail(p, "must not be empty");
    if (n < lo) r_.fail(p, "must list at least " + std::to_string(lo) + " " + items + found);
    if (n > row.hi) r_.fail(p, "must list at most " + std::to_string(row.hi) + " " + items + found);
  }
  const std::string pat = list_pat + "[]";
  for (size_t i = 0; i < v->size(); ++i) fn((*v)[i], index_path(p, i), pat);
}

void KeyReader::each_entry(
    const Map& parent, std::string_view key,
    const std::function<void(const std::string&, uint64_t, const YAML::Node&, const std::string&,
                             const std::string&)>& fn) const {
  const std::optional<YAML::Node> v = parent.get(key);
  if (!v) return;
  const std::string p = parent.at(key);
  if (!v->IsMap()) fail_type(p, *v, "a map");
  if (auto problem = check_map_keys(*v, p)) fail(problem->path, problem->rule);
  const std::string map_pat = join_pattern(parent.pattern(), key);
  const KeySpec& row = spec(map_pat);
  const std::string pat = map_pat + ".*";
  const std::string noun =
      row.unit.empty() ? (row.hi > 0 ? "the key" : "a name") : std::string(row.unit);
  std::vector<std::pair<uint64_t, std::string>> seen;  // integer keys: value, path
  for (auto it = v->begin(); it != v->end(); ++it) {
    const std::string& name = it->first.Scalar();
    const std::string entry = join_path(p, name);
    uint64_t number = 0;
    if (row.hi > 0) {
      const uint64_t lo = row.lo < 0 ? 0 : uint64_t(row.lo);
      const IntText t = parse_int_text(name);
      if (!t.ok || t.overflow || (t.negative && t.value != 0) || t.value < lo || t.value > row.hi)
        fail(entry,
             noun + " must be an integer " + std::to_string(lo) + ".." + std::to_string(row.hi));
      number = t.value;
      for (const auto& [value, other] : seen)
        if (value == number)
          fail(entry, "duplicate " + noun + " " + std::to_string(number) + " (also " + other + ")",
               std::span<const std::string>(&other, 1));
      seen.emplace_back(number, entry);
    } else if (!is_name(name)) {
      fail(entry, noun + " must match [A-Za-z0-9_.-]+ (1..64 characters)");
    }
    check_new_entry(*v, name, it->second, entry, pat);
    fn(name, number, it->second, entry, pat);
  }
}

void KeyReader::check_new_entry(const YAML::Node& parent, const std::string& name,
                                const YAML::Node& entry, const std::string& path,
                                const std::string& pattern) const {
  auto created = [&](const std::string& p) {
    for (const AppliedOverride& o : origin_.overrides)
      if (o.created && path_within(p, o.touched)) return true;
    return false;
  };
  if (!entry.IsMap() || !created(path)) return;
  std::string missing;
  for (std::string_view key : schema_.children(pattern)) {
    const KeySpec* k = schema_.find(join_pattern(pattern, key));
    if (!k || !k->required) continue;
    bool present = false;
    for (auto it = entry.begin(); it != entry.end(); ++it)
      if (it->first.IsScalar() && it->first.Scalar() == key) present = true;
    if (!present) missing += (missing.empty() ? "" : ", ") + quote(key);
  }
  if (missing.empty()) return;
  // The names the file has, which the override may have meant.
  std::vector<std::string> names;
  const std::string parent_path = path.substr(0, path.size() - name.size() - 1);
  for (auto it = parent.begin(); it != parent.end(); ++it) {
    const std::string& other = it->first.Scalar();
    if (other != name && !created(join_path(parent_path, other))) names.push_back(other);
  }
  const std::string near = nearest_name(name, names);
  const KeySpec* row = schema_.find(pattern);
  const std::string noun = row && !row->unit.empty() ? std::string(row->unit) : "entry";
  fail(path, "no " + noun + " " + quote(name) + " in " + origin_.source +
                 (near.empty() ? "" : " (did you mean " + quote(near) + "?)") + "; a new " + noun +
                 " needs " + missing);
}

void KeyReader::Map::entries(
    std::string_view key,
    const std::function<void(const std::string&, const YAML::Node&, const std::string&,
                             const std::string&)>& fn) const {
  r_.each_entry(*this, key,
                [&](const std::string& name, uint64_t, const YAML::Node& n, const std::string& p,
                    const std::string& pat) { fn(name, n, p, pat); });
}

void KeyReader::Map::numbered(
    std::string_view key,
    const std::function<void(uint64_t, const YAML::Node&, const std::string&, const std::string&)>&
        fn) const {
  if (r_.spec(join_pattern(pattern_, key)).hi == 0)
    throw std::logic_error(join_pattern(pattern_, key) + ": a map of names, not of numbers");
  r_.each_entry(*this, key,
                [&](const std::string&, uint64_t number, const YAML::Node& n, const std::string& p,
                    const std::string& pat) { fn(number, n, p, pat); });
}

}  // namespace rocelb
