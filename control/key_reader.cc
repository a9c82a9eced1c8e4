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
      if (!parse_bytes(scalar(n, path, "a byte size"), v, &why)) fail_value(path, n, why);
      return check(v);
    case KeyKind::kDuration:
      if (!parse_duration_ns(scalar(n, path, "a duration"), v, &why)) fail_value(path, n, why);
      return check(v);
    case KeyKind::kSpeed:
      if (!parse_speed_bps(scalar(n, path, "a speed"), v, &why)) fail_value(path, n, why);
      return check(v);
    case KeyKind::kLength:
      if (!parse_length_m(scalar(n, path, "a length"), v, &why)) fail_value(path, n, why);
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

void KeyReader::Map::each(std::string_view key,
                          const std::function<void(const YAML::Node&, const std::string&,
                                                   const std::string&)>& fn) const {
  const std::optional<YAML::Node> v = get(key);
  if (!v) return;
  const std::string p = at(key);
  if (!v->IsSequence()) r_.fail_type(p, *v, "a list");
  const std::string pat = join_pattern(pattern_, key) + "[]";
  for (size_t i = 0; i < v->size(); ++i) fn((*v)[i], index_path(p, i), pat);
}

void KeyReader::Map::entries(
    std::string_view key,
    const std::function<void(const std::string&, const YAML::Node&, const std::string&,
                             const std::string&)>& fn) const {
  const std::optional<YAML::Node> v = get(key);
  if (!v) return;
  const std::string p = at(key);
  if (!v->IsMap()) r_.fail_type(p, *v, "a map");
  if (auto problem = check_map_keys(*v, p)) r_.fail(problem->path, problem->rule);
  const std::string pat = join_pattern(pattern_, key) + ".*";
  for (auto it = v->begin(); it != v->end(); ++it)
    fn(it->first.Scalar(), it->second, join_path(p, it->first.Scalar()), pat);
}

}  // namespace rocelb
