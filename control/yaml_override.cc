#include "control/yaml_override.h"

#include <vector>

#include "control/config_loader.h"
#include "control/yaml_document.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

struct Segment {
  bool is_index = false;
  std::string key;
  size_t index = 0;
};

// `who`: the override as its errors name it, "--set KEY=VALUE".
[[noreturn]] void fail(const std::string& who, const std::string& msg) {
  throw ConfigError(who + ": " + msg);
}

std::vector<Segment> parse_path(std::string_view path, const std::string& who) {
  if (path.empty()) fail(who, "empty key path (expected KEY.PATH=VALUE)");
  std::vector<Segment> segs;
  size_t i = 0;
  while (true) {
    size_t start = i;
    while (i < path.size() && path[i] != '.' && path[i] != '[' && path[i] != ']') ++i;
    if (i == start)
      fail(who, "empty key in path (expected KEY.PATH=VALUE, e.g. ports[0].speed=25G)");
    segs.push_back({false, std::string(path.substr(start, i - start)), 0});
    while (i < path.size() && path[i] == '[') {
      size_t close = path.find(']', i);
      std::string_view digits =
          close == std::string_view::npos ? path.substr(i + 1) : path.substr(i + 1, close - i - 1);
      bool ok = close != std::string_view::npos && !digits.empty() && digits.size() <= 9;
      size_t index = 0;
      for (char c : digits) {
        if (c < '0' || c > '9') ok = false;
        index = index * 10 + size_t(c - '0');
      }
      if (!ok) {
        std::string shown(close == std::string_view::npos ? path.substr(i)
                                                          : path.substr(i, close - i + 1));
        fail(who, "bad list index " + quote(shown) + " (expected [N], e.g. ports[0])");
      }
      segs.push_back({true, "", index});
      i = close + 1;
    }
    if (i == path.size()) return segs;
    if (path[i] != '.') fail(who, "unexpected " + quote(path.substr(i, 1)) + " in key path");
    ++i;
  }
}

bool has_key(const YAML::Node& map, const std::string& key) {
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar() && it->first.Scalar() == key) return true;
  return false;
}

[[noreturn]] void fail_type(const std::string& who, const std::string& path, const YAML::Node& n,
                            const char* expected, const std::string& hint = "") {
  std::string where = path.empty() ? "top level" : path;
  if (n.IsScalar()) fail(who, where + ": " + yaml_show(n) + ": expected " + expected + hint);
  fail(who, where + ": expected " + expected + ", found " + yaml_kind(n) + hint);
}

}  // namespace

AppliedOverride apply_override(YAML::Node& root, const std::string& text, const std::string& via) {
  const std::string who = via + " " + text;
  size_t eq = text.find('=');
  if (eq == std::string::npos) fail(who, "missing '=' (expected KEY.PATH=VALUE)");
  std::vector<Segment> segs = parse_path(std::string_view(text).substr(0, eq), who);

  YAML::Node value;
  try {
    value.reset(YAML::Load(text.substr(eq + 1)));
  } catch (const YAML::Exception& e) {
    fail(who, "VALUE is not valid YAML: " + e.msg);
  }
  // Bounded as a file is: nested aliases stand for what they name, and
  // every check after this one walks the value whole.
  try {
    check_yaml_value_nodes(text.substr(eq + 1), "VALUE");
  } catch (const YamlDocumentError& e) {
    fail(who, e.what());
  }

  AppliedOverride out;
  out.text = text;
  out.via = via;
  YAML::Node cur;
  cur.reset(root);  // reset(), not '=': assigning a yaml-cpp node rewrites the tree
  std::string path;
  for (size_t s = 0; s < segs.size(); ++s) {
    const Segment& seg = segs[s];
    bool last = s + 1 == segs.size();
    std::string child_path;
    if (!seg.is_index) {
      bool digits = seg.key.find_first_not_of("0123456789") == std::string::npos;
      if (cur.IsSequence() && digits)
        fail_type(who, path, cur, "a map", " (write " + index_path(path, 0) + " to index a list)");
      if (!cur.IsNull() && !cur.IsMap()) fail_type(who, path, cur, "a map");
      child_path = join_path(path, seg.key);
      bool exists = cur.IsMap() && has_key(cur, seg.key);
      if (last) {
        cur[seg.key] = value;
        if (out.touched.empty()) {
          out.touched = child_path;
          out.created = !exists;
        }
      } else if (!exists) {
        cur[seg.key] = YAML::Node(YAML::NodeType::Map);
        if (out.touched.empty()) {
          out.touched = child_path;
          out.created = true;
        }
      }
      YAML::Node next = cur[seg.key];
      cur.reset(next);
    } else {
      if (!cur.IsSequence()) fail_type(who, path, cur, "a list");
      child_path = index_path(path, seg.index);
      if (seg.index >= cur.size())
        fail(who, child_path + ": index out of range (" + std::to_string(cur.size()) +
                      (cur.size() == 1 ? " item)" : " items)"));
      if (last) {
        cur[seg.index] = value;
        if (out.touched.empty()) out.touched = child_path;
      }
      YAML::Node next = cur[seg.index];
      cur.reset(next);
    }
    path = child_path;
  }
  out.path = path;
  return out;
}

std::string effective_config_yaml(const YAML::Node& document,
                                  const std::vector<std::string>& overrides) {
  YAML::Node root = YAML::Clone(document);
  for (const auto& o : overrides) apply_override(root, o);
  YAML::Emitter out;
  out << root;
  return std::string(out.c_str()) + "\n";
}

std::string effective_config_yaml(const std::string& yaml_text,
                                  const std::vector<std::string>& overrides) {
  return effective_config_yaml(YAML::Load(yaml_text), overrides);
}

}  // namespace rocelb
