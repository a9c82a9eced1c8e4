#include "control/yaml_util.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_set>
#include <vector>

namespace rocelb {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

// Integer (decimal, 0x hex, optional sign), decimal fraction, or boolean.
bool looks_bare(std::string_view s) {
  if (s == "true" || s == "false" || s == "True" || s == "False" || s == "TRUE" || s == "FALSE")
    return true;
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    for (char c : s.substr(2))
      if (!is_hex(c)) return false;
    return true;
  }
  size_t i = 0, digits = 0;
  while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && is_digit(s[i])) ++i, ++digits;
  }
  return digits > 0 && i == s.size();
}

}  // namespace

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned char>(c));
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
  return out;
}

std::string yaml_kind(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map:
      return n.size() == 0 ? "an empty map" : "a map";
    case YAML::NodeType::Sequence:
      return n.size() == 0 ? "an empty list" : "a list";
    case YAML::NodeType::Scalar:
      return "a scalar";
    default:
      return "null";
  }
}

std::string yaml_show(const YAML::Node& n) {
  if (!n.IsScalar()) return yaml_kind(n);
  const std::string& s = n.Scalar();
  // Tag "?" marks a plain (unquoted, untagged) scalar.
  if (n.Tag() == "?" && looks_bare(s)) return s;
  return quote(s);
}

std::optional<YamlKeyProblem> check_map_keys(const YAML::Node& n, std::string_view path,
                                             std::span<const std::string_view> known) {
  // Small maps (every map of a config) compare with the keys so far; a large
  // one (a fabric's switches) hashes them, so a check stays linear.
  constexpr size_t kLinearUpTo = 16;
  std::vector<std::string_view> seen;
  std::unordered_set<std::string_view> seen_set;
  const bool hashed = n.size() > kLinearUpTo;
  for (auto it = n.begin(); it != n.end(); ++it) {
    if (!it->first.IsScalar())
      return YamlKeyProblem{std::string(path),
                            "keys must be strings, found " + yaml_kind(it->first) + " as a key"};
    const std::string& key = it->first.Scalar();
    if (!known.empty() && std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (std::string_view k : known) {
        if (!list.empty()) list += ", ";
        list += k;
      }
      return YamlKeyProblem{join_path(path, key), "unknown key (known: " + list + ")"};
    }
    const bool repeated = hashed ? !seen_set.insert(key).second
                                 : std::find(seen.begin(), seen.end(), key) != seen.end();
    if (repeated) return YamlKeyProblem{join_path(path, key), "duplicate key"};
    if (!hashed) seen.push_back(key);
  }
  return std::nullopt;
}

std::string join_path(std::string_view path, std::string_view key) {
  if (path.empty()) return std::string(key);
  std::string out(path);
  out += '.';
  out += key;
  return out;
}

std::string index_path(std::string_view path, size_t index) {
  return std::string(path) + "[" + std::to_string(index) + "]";
}

size_t utf8_error_at(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len = 0;
    uint32_t cp = 0, least = 0;
    if ((c & 0xE0) == 0xC0) {
      len = 2, cp = c & 0x1F, least = 0x80;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3, cp = c & 0x0F, least = 0x800;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4, cp = c & 0x07, least = 0x10000;
    } else {
      return i;  // a continuation byte, or 0xF8..0xFF
    }
    if (s.size() - i < len) return i;
    for (size_t k = 1; k < len; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (d & 0x3F);
    }
    if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
    i += len;
  }
  return std::string_view::npos;
}

bool path_within(std::string_view path, std::string_view root) {
  if (root.empty()) return true;
  if (path.substr(0, root.size()) != root) return false;
  return path.size() == root.size() || path[root.size()] == '.' || path[root.size()] == '[';
}

std::string yaml_error_where(const std::string& source, const YAML::Exception& e) {
  if (e.mark.is_null()) return source;
  return source + ":" + std::to_string(e.mark.line + 1) + ":" + std::to_string(e.mark.column + 1);
}

}  // namespace rocelb
