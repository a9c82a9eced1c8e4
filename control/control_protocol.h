// The control socket's request/reply protocol, without the transport: parses
// one request line into a ParsedRequest, formats reply lines, and turns a
// `set` request into a "KEY.PATH=VALUE" override for load_config_text/_file
// (control/config_loader.h), so `set` obeys exactly the rules of the file.
//
// Wire format: newline-delimited JSON, one object per line each way. Every
// request has a string "verb" and may carry an "id" (string or integer) that
// the reply echoes (null when absent). Any other key is an error.
//   read:  {"id":1,"verb":"show","what":"groups"}
//          what: ports|queues|pfc|ecn|groups|flowlets|counters|config|metrics
//          (each result's fields: control/control-protocol.md)
//   write: {"id":2,"verb":"set","key":"groups.uplinks.mode","value":"drill"}
//          value: any JSON; it becomes YAML flow text ("drill" stays a string)
//          {"id":3,"verb":"apply","config":"<the whole YAML text>"}
//          {"id":4,"verb":"clear","what":"counters"}
// Replies:
//   {"id":1,"ok":true,"result":{...}}
//   {"id":2,"ok":false,"error":"show: unknown \"what\" \"bogus\" (known: ...)"}
// The server's last line before it closes a connection on its own (a peer
// refused, too many clients, an idle or stalled client) says why and is
// marked, so a client tells it from the answer to a request:
//   {"id":null,"ok":false,"error":"too many clients (...)","closed":true}
//
// Limits: a request line (without its '\n') is at most 65536 bytes, and JSON
// nesting at most kMaxRequestDepth levels; anything else wrong (malformed
// JSON, not an object, unknown verb or key, wrong argument type) yields
// ParsedRequest::error, a message meant to be sent back with reply_error.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace rocelb {

// What `show` answers, in the order rocelbctl's help lists them: the one
// list the protocol's parser, rocelbctl and the docs use (the switch's
// ControlService answers each).
inline constexpr std::string_view kShowTargets[] = {"ports",   "queues",   "pfc",      "ecn",
                                                    "groups",  "flowlets", "counters", "config",
                                                    "metrics", "lcores"};

inline constexpr size_t kMaxRequestBytes = 65536;
inline constexpr int kMaxRequestDepth = 32;

enum class ControlVerb { kShow, kSet, kApply, kClear };

std::string_view control_verb_name(ControlVerb v);

struct ParsedRequest {
  ControlVerb verb = ControlVerb::kShow;
  nlohmann::json id;     // echoed in the reply; null when absent or not valid
  std::string what;      // show: ports|queues|...|config; clear: counters
  std::string key;       // set: config key path, e.g. "groups.uplinks.mode"
  nlohmann::json value;  // set: the new value
  std::string config;    // apply: the whole YAML text
  std::string error;     // non-empty when the request is refused; then nothing else counts

  bool ok() const { return error.empty(); }
  bool is_write() const { return verb != ControlVerb::kShow; }
};

ParsedRequest parse_request(std::string_view line);

// One reply line each, '\n'-terminated, keys in this order:
//   {"id":<id>,"ok":true,"result":<result>}
//   {"id":<id>,"ok":false,"error":"<message>"}
// Invalid UTF-8 in strings is replaced by U+FFFD, never thrown on.
std::string reply_ok(const nlohmann::json& id, const nlohmann::json& result);
std::string reply_error(const nlohmann::json& id, std::string_view message);
//   {"id":null,"ok":false,"error":"<message>","closed":true}
std::string reply_closing(std::string_view message);

// "KEY.PATH=VALUE" for a parsed `set` request, VALUE as compact JSON (valid
// YAML flow syntax; strings stay quoted strings).
std::string set_override(const ParsedRequest& req);

// Why a config text cannot go to the switch as one `apply` request, or
// nullopt: the protocol is UTF-8 ("not UTF-8 text (byte 0xe9 at offset
// 18): a config is UTF-8"), and a request line is at most kMaxRequestBytes
// with the text JSON-escaped, a quote or a newline taking two bytes ("N
// bytes, M as a request: over the control protocol's 64 KiB per request
// (control/control-protocol.md)"), counted with the largest id. rocelbctl
// config apply and rocelbd check it before they send.
std::optional<std::string> apply_request_problem(const std::string& config);

}  // namespace rocelb
