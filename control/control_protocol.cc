#include "control/control_protocol.h"

#include <array>
#include <cstdio>
#include <initializer_list>

#include "control/bounded_file.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

using nlohmann::json;

constexpr std::array<std::string_view, 1> kClearTargets = {"counters"};

struct TooDeep {};

std::string dump(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

// A user-supplied string quoted for an error message, cut short if long.
std::string quote_user(std::string_view s) {
  constexpr size_t kMax = 64;
  std::string cut(s.substr(0, kMax));
  if (s.size() > kMax) cut += "...";
  return dump(json(cut));
}

template <typename List>
std::string joined(const List& names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out;
}

// Checks that the object holds only id, verb and `args`; returns the error.
std::string check_keys(const json& req, std::string_view verb,
                       std::initializer_list<std::string_view> args) {
  for (const auto& [k, v] : req.items()) {
    if (k == "id" || k == "verb") continue;
    bool known = false;
    for (std::string_view a : args) known = known || k == a;
    if (!known) {
      std::string list = "id, verb";
      for (std::string_view a : args) list += ", " + std::string(a);
      return std::string(verb) + ": unknown key " + quote_user(k) + " (known: " + list + ")";
    }
  }
  return {};
}

// Reads a required string argument into *out; returns the error.
std::string get_string(const json& req, std::string_view verb, const char* name, std::string* out) {
  auto it = req.find(name);
  if (it == req.end()) return std::string(verb) + ": missing \"" + name + "\"";
  if (!it->is_string())
    return std::string(verb) + ": \"" + name + "\" must be a string, got " + it->type_name();
  *out = it->get<std::string>();
  return {};
}

template <typename List>
std::string get_target(const json& req, std::string_view verb, const List& allowed,
                       std::string* out) {
  if (std::string e = get_string(req, verb, "what", out); !e.empty()) return e;
  for (std::string_view a : allowed)
    if (*out == a) return {};
  return std::string(verb) + ": unknown \"what\" " + quote_user(*out) +
         " (known: " + joined(allowed) + ")";
}

std::string check_key_path(const std::string& key) {
  if (key.empty()) return "set: \"key\" must not be empty";
  for (char c : key) {
    auto u = static_cast<unsigned char>(c);
    if (c == '=' || u <= 0x20 || u == 0x7f)
      return "set: \"key\" " + quote_user(key) + " must be a key path like groups.uplinks.mode";
  }
  return {};
}

std::string parse_into(std::string_view line, ParsedRequest* r) {
  if (line.size() > kMaxRequestBytes)
    return "request larger than " + std::to_string(kMaxRequestBytes) + " bytes";

  json req;
  try {
    req = json::parse(line, [](int depth, json::parse_event_t, json&) {
      if (depth > kMaxRequestDepth) throw TooDeep{};
      return true;
    });
  } catch (const TooDeep&) {
    return "request nested deeper than " + std::to_string(kMaxRequestDepth) + " levels";
  } catch (const json::exception& e) {
    // parse_error, and out_of_range for a number too large for a double
    // ("[json.exception.out_of_range.406] number overflow parsing '1e999'").
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what.erase(0, p + 2);
    return "malformed JSON: " + what;
  }
  if (!req.is_object()) return std::string("request must be a JSON object, got ") + req.type_name();

  if (auto it = req.find("id"); it != req.end()) {
    if (!it->is_string() && !it->is_number_integer())
      return std::string("\"id\" must be a string or an integer, got ") + it->type_name();
    r->id = *it;
  }

  std::string verb;
  auto it = req.find("verb");
  if (it == req.end()) return "missing \"verb\"";
  if (!it->is_string()) return std::string("\"verb\" must be a string, got ") + it->type_name();
  verb = it->get<std::string>();

  if (verb == "show") {
    r->verb = ControlVerb::kShow;
    if (std::string e = check_keys(req, verb, {"what"}); !e.empty()) return e;
    return get_target(req, verb, kShowTargets, &r->what);
  }
  if (verb == "clear") {
    r->verb = ControlVerb::kClear;
    if (std::string e = check_keys(req, verb, {"what"}); !e.empty()) return e;
    return get_target(req, verb, kClearTargets, &r->what);
  }
  if (verb == "set") {
    r->verb = ControlVerb::kSet;
    if (std::string e = check_keys(req, verb, {"key", "value"}); !e.empty()) return e;
    if (std::string e = get_string(req, verb, "key", &r->key); !e.empty()) return e;
    if (std::string e = check_key_path(r->key); !e.empty()) return e;
    auto v = req.find("value");
    if (v == req.end()) return "set: missing \"value\"";
    r->value = *v;
    return {};
  }
  if (verb == "apply") {
    r->verb = ControlVerb::kApply;
    if (std::string e = check_keys(req, verb, {"config"}); !e.empty()) return e;
    return get_string(req, verb, "config", &r->config);
  }
  return "unknown verb " + quote_user(verb) + " (known: show, set, apply, clear)";
}

}  // namespace

std::string_view control_verb_name(ControlVerb v) {
  switch (v) {
    case ControlVerb::kShow:
      return "show";
    case ControlVerb::kSet:
      return "set";
    case ControlVerb::kApply:
      return "apply";
    case ControlVerb::kClear:
      return "clear";
  }
  return "?";
}

ParsedRequest parse_request(std::string_view line) {
  ParsedRequest r;
  r.error = parse_into(line, &r);
  return r;
}

std::string reply_ok(const nlohmann::json& id, const nlohmann::json& result) {
  return "{\"id\":" + dump(id) + ",\"ok\":true,\"result\":" + dump(result) + "}\n";
}

std::string reply_error(const nlohmann::json& id, std::string_view message) {
  return "{\"id\":" + dump(id) + ",\"ok\":false,\"error\":" + dump(json(std::string(message))) +
         "}\n";
}

std::string reply_closing(std::string_view message) {
  return "{\"id\":null,\"ok\":false,\"error\":" + dump(json(std::string(message))) +
         ",\"closed\":true}\n";
}

std::string set_override(const ParsedRequest& req) {
  return req.key + "=" + dump(req.value);
}

std::optional<std::string> apply_request_problem(const std::string& config) {
  if (const size_t at = utf8_error_at(config); at != std::string::npos) {
    char byte[8];
    std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(config[at]));
    return std::string("not UTF-8 text (byte ") + byte + " at offset " + std::to_string(at) +
           "): a config is UTF-8";
  }
  const size_t bytes =
      json{{"verb", "apply"}, {"config", config}, {"id", UINT64_MAX}}.dump().size();
  if (bytes <= kMaxRequestBytes) return std::nullopt;
  return std::to_string(config.size()) + " bytes, " + std::to_string(bytes) +
         " as a request: over the control protocol's " + byte_limit_text(kMaxRequestBytes) +
         " per request (control/control-protocol.md)";
}

}  // namespace rocelb
