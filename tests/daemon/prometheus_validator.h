// A strict reader of the Prometheus text exposition format (version 0.0.4),
// for tests: every line is a # HELP, a # TYPE, another comment, a blank
// line, or a sample
//   name{label="value",...} value [timestamp]
// with name [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*,
// label values escaping only \\ \" \n, a float value (NaN, +Inf, -Inf too)
// and an integer timestamp. A metric family's # TYPE comes before its
// samples, at most once, and its lines form one group. Used by the unit
// tests and by tests/integration/daemon_test.cc.
#pragma once

#include <cctype>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace rocelb::test {

struct PrometheusText {
  bool ok = true;
  std::string error;                         // "line N: why: <line>" of the first problem
  std::map<std::string, double> samples;     // "name{labels as written}" → value
  std::map<std::string, std::string> types;  // family → counter|gauge|...
  std::set<std::string> helps;               // families with a # HELP
};

namespace prom_detail {

inline bool name_start(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':';
}
inline bool name_char(char c) {
  return name_start(c) || std::isdigit(static_cast<unsigned char>(c));
}

inline bool is_metric_name(const std::string& s) {
  if (s.empty() || !name_start(s[0])) return false;
  for (char c : s)
    if (!name_char(c)) return false;
  return true;
}

inline bool parse_float(const std::string& s, double* out) {
  if (s == "NaN") return *out = 0, true;
  if (s == "+Inf" || s == "-Inf" || s == "Inf") return *out = 0, true;
  if (s.empty()) return false;
  char* end = nullptr;
  *out = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  // strtod also takes "inf", "nan", hex floats: the format does not.
  for (char c : s)
    if (!(std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == 'e' || c == 'E' ||
          c == '+' || c == '-'))
      return false;
  return true;
}

inline bool parse_int(const std::string& s) {
  size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i >= s.size()) return false;
  for (; i < s.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

// The family a sample belongs to: histogram/summary samples carry a suffix.
inline std::string family_of(const std::string& name,
                             const std::map<std::string, std::string>& types) {
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    const std::string sfx(suffix);
    if (name.size() > sfx.size() && name.compare(name.size() - sfx.size(), sfx.size(), sfx) == 0) {
      const std::string base = name.substr(0, name.size() - sfx.size());
      const auto t = types.find(base);
      if (t != types.end() && (t->second == "histogram" || t->second == "summary")) return base;
    }
  }
  return name;
}

}  // namespace prom_detail

inline PrometheusText parse_prometheus_text(const std::string& text) {
  using namespace prom_detail;
  PrometheusText out;
  std::set<std::string> closed;   // families whose group has ended
  std::string current;            // family of the group being read
  std::set<std::string> sampled;  // families with a sample so far
  auto fail = [&](int n, const std::string& why, const std::string& line) {
    out.ok = false;
    out.error = "line " + std::to_string(n) + ": " + why + ": " + line;
    return out;
  };
  auto enter = [&](const std::string& family) {
    if (family == current) return true;
    if (closed.count(family)) return false;
    if (!current.empty()) closed.insert(current);
    current = family;
    return true;
  };
  if (!text.empty() && text.back() != '\n')
    return fail(0, "the text does not end with a newline", "");

  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.empty()) continue;
    if (line[0] == '#') {
      std::istringstream ls(line.substr(1));
      std::string kw, name;
      ls >> kw >> name;
      if (kw != "HELP" && kw != "TYPE") continue;  // a plain comment
      if (!is_metric_name(name)) return fail(n, "bad metric name in # " + kw, line);
      if (!enter(name)) return fail(n, "family " + name + " appears in two groups", line);
      if (kw == "HELP") {
        if (!out.helps.insert(name).second) return fail(n, "second # HELP for " + name, line);
        // The docstring may escape only \\ and \n.
        const auto at = line.find(name) + name.size();
        const std::string doc = line.substr(at);
        for (size_t i = 0; i < doc.size(); ++i)
          if (doc[i] == '\\' && (i + 1 >= doc.size() || (doc[i + 1] != '\\' && doc[i + 1] != 'n')))
            return fail(n, "bad escape in # HELP", line);
          else if (doc[i] == '\\')
            ++i;
        continue;
      }
      std::string type, extra;
      ls >> type >> extra;
      if (type != "counter" && type != "gauge" && type != "histogram" && type != "summary" &&
          type != "untyped")
        return fail(n, "unknown type \"" + type + "\"", line);
      if (!extra.empty()) return fail(n, "text after the type", line);
      if (out.types.count(name)) return fail(n, "second # TYPE for " + name, line);
      if (sampled.count(name)) return fail(n, "# TYPE after samples of " + name, line);
      out.types[name] = type;
      continue;
    }

    // A sample.
    size_t i = 0;
    while (i < line.size() && name_char(line[i])) ++i;
    const std::string name = line.substr(0, i);
    if (!is_metric_name(name)) return fail(n, "bad metric name", line);
    std::string key = name;
    if (i < line.size() && line[i] == '{') {
      ++i;
      std::set<std::string> label_names;
      for (;;) {
        if (i < line.size() && line[i] == '}') break;
        const size_t ls = i;
        if (i >= line.size() ||
            !(std::isalpha(static_cast<unsigned char>(line[i])) || line[i] == '_'))
          return fail(n, "bad label name", line);
        while (i < line.size() &&
               (std::isalnum(static_cast<unsigned char>(line[i])) || line[i] == '_'))
          ++i;
        const std::string lname = line.substr(ls, i - ls);
        if (!label_names.insert(lname).second) return fail(n, "label " + lname + " twice", line);
        if (i + 1 >= line.size() || line[i] != '=' || line[i + 1] != '"')
          return fail(n, "label " + lname + " without =\"value\"", line);
        i += 2;
        for (;; ++i) {
          if (i >= line.size()) return fail(n, "unterminated label value", line);
          if (line[i] == '"') break;
          if (line[i] == '\\') {
            if (i + 1 >= line.size() ||
                (line[i + 1] != '\\' && line[i + 1] != '"' && line[i + 1] != 'n'))
              return fail(n, "bad escape in a label value", line);
            ++i;
          }
        }
        ++i;  // past the closing quote
        if (i < line.size() && line[i] == ',') {
          ++i;
          continue;
        }
        if (i < line.size() && line[i] == '}') break;
        return fail(n, "expected , or } after a label", line);
      }
      ++i;  // past '}'
      key = line.substr(0, i);
    }
    if (i >= line.size() || line[i] != ' ')
      return fail(n, "expected a space before the value", line);
    std::istringstream rest(line.substr(i));
    std::string value, ts, extra;
    rest >> value >> ts >> extra;
    double v = 0;
    if (!parse_float(value, &v)) return fail(n, "bad value \"" + value + "\"", line);
    if (!ts.empty() && !parse_int(ts)) return fail(n, "bad timestamp \"" + ts + "\"", line);
    if (!extra.empty()) return fail(n, "text after the timestamp", line);
    if (!enter(family_of(name, out.types)))
      return fail(n, "family of " + name + " appears in two groups", line);
    sampled.insert(family_of(name, out.types));
    if (!out.samples.emplace(key, v).second) return fail(n, "the same series twice", line);
  }
  return out;
}

}  // namespace rocelb::test
