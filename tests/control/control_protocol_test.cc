// Control socket protocol: request parsing (every verb and every refusal),
// the exact reply lines, and `set` round-tripping through the config loader.
#include <string>

#include <gtest/gtest.h>

#include "control/config_loader.h"
#include "control/control_protocol.h"
#include "control/default_config.h"

namespace rocelb {
namespace {

using nlohmann::json;

ParsedRequest ok_request(std::string_view line) {
  ParsedRequest r = parse_request(line);
  EXPECT_TRUE(r.ok()) << line << ": " << r.error;
  return r;
}

std::string error_of(std::string_view line) {
  ParsedRequest r = parse_request(line);
  EXPECT_FALSE(r.ok()) << line;
  return r.error;
}

TEST(ControlProtocol, ShowEveryTarget) {
  for (const char* what :
       {"ports", "queues", "pfc", "ecn", "groups", "flowlets", "counters", "config"}) {
    ParsedRequest r = ok_request(std::string(R"({"verb":"show","what":")") + what + "\"}");
    EXPECT_EQ(r.verb, ControlVerb::kShow);
    EXPECT_FALSE(r.is_write());
    EXPECT_EQ(r.what, what);
    EXPECT_TRUE(r.id.is_null());
  }
}

TEST(ControlProtocol, SetKeepsKeyAndAnyValue) {
  ParsedRequest r =
      ok_request(R"({"id":7,"verb":"set","key":"groups.uplinks.mode","value":"drill"})");
  EXPECT_EQ(r.verb, ControlVerb::kSet);
  EXPECT_TRUE(r.is_write());
  EXPECT_EQ(r.key, "groups.uplinks.mode");
  EXPECT_EQ(r.value, json("drill"));
  EXPECT_EQ(r.id, json(7));

  r = ok_request(R"({"verb":"set","key":"qos.scheduler.strict","value":[6,7]})");
  EXPECT_EQ(r.value, json::array({6, 7}));
  r = ok_request(R"({"verb":"set","key":"a.b","value":null})");
  EXPECT_TRUE(r.value.is_null());
}

TEST(ControlProtocol, ApplyAndClear) {
  ParsedRequest r = ok_request(R"({"id":"a1","verb":"apply","config":"switch:\n  name: x\n"})");
  EXPECT_EQ(r.verb, ControlVerb::kApply);
  EXPECT_TRUE(r.is_write());
  EXPECT_EQ(r.config, "switch:\n  name: x\n");
  EXPECT_EQ(r.id, json("a1"));

  r = ok_request(R"({"verb":"clear","what":"counters"})");
  EXPECT_EQ(r.verb, ControlVerb::kClear);
  EXPECT_TRUE(r.is_write());
  EXPECT_EQ(r.what, "counters");
}

TEST(ControlProtocol, Oversize) {
  std::string pad(kMaxRequestBytes, ' ');
  std::string line = R"({"verb":"show","what":"ports"})";
  EXPECT_TRUE(parse_request(line + pad.substr(line.size())).ok());  // exactly the limit
  EXPECT_EQ(error_of(line + pad), "request larger than 65536 bytes");
}

TEST(ControlProtocol, MalformedJson) {
  EXPECT_EQ(error_of(R"({"verb":"show",)").rfind("malformed JSON: parse error at line 1", 0), 0u);
  EXPECT_EQ(error_of("").rfind("malformed JSON: ", 0), 0u);
  EXPECT_EQ(error_of("{\"verb\":\"show\"} x").rfind("malformed JSON: ", 0), 0u);
}

TEST(ControlProtocol, TooDeep) {
  std::string deep =
      R"({"verb":"set","key":"a","value":)" + std::string(40, '[') + std::string(40, ']') + "}";
  EXPECT_EQ(error_of(deep), "request nested deeper than 32 levels");
}

TEST(ControlProtocol, NotAnObject) {
  EXPECT_EQ(error_of(R"(["show"])"), "request must be a JSON object, got array");
  EXPECT_EQ(error_of("42"), "request must be a JSON object, got number");
}

TEST(ControlProtocol, Verb) {
  EXPECT_EQ(error_of(R"({"what":"ports"})"), "missing \"verb\"");
  EXPECT_EQ(error_of(R"({"verb":3})"), "\"verb\" must be a string, got number");
  EXPECT_EQ(error_of(R"({"verb":"reboot"})"),
            "unknown verb \"reboot\" (known: show, set, apply, clear)");
}

TEST(ControlProtocol, WrongArgumentTypes) {
  EXPECT_EQ(error_of(R"({"verb":"show","what":1})"), "show: \"what\" must be a string, got number");
  EXPECT_EQ(error_of(R"({"verb":"set","key":["a"],"value":1})"),
            "set: \"key\" must be a string, got array");
  EXPECT_EQ(error_of(R"({"verb":"apply","config":{}})"),
            "apply: \"config\" must be a string, got object");
  EXPECT_EQ(error_of(R"({"verb":"clear","what":true})"),
            "clear: \"what\" must be a string, got boolean");
  EXPECT_EQ(error_of(R"({"id":1.5,"verb":"show","what":"ports"})"),
            "\"id\" must be a string or an integer, got number");
}

TEST(ControlProtocol, MissingArguments) {
  EXPECT_EQ(error_of(R"({"verb":"show"})"), "show: missing \"what\"");
  EXPECT_EQ(error_of(R"({"verb":"set","value":1})"), "set: missing \"key\"");
  EXPECT_EQ(error_of(R"({"verb":"set","key":"a.b"})"), "set: missing \"value\"");
  EXPECT_EQ(error_of(R"({"verb":"apply"})"), "apply: missing \"config\"");
  EXPECT_EQ(error_of(R"({"verb":"clear"})"), "clear: missing \"what\"");
}

TEST(ControlProtocol, BadKeyPath) {
  EXPECT_EQ(error_of(R"({"verb":"set","key":"","value":1})"), "set: \"key\" must not be empty");
  EXPECT_EQ(error_of(R"({"verb":"set","key":"a=b","value":1})"),
            "set: \"key\" \"a=b\" must be a key path like groups.uplinks.mode");
  EXPECT_FALSE(parse_request(R"({"verb":"set","key":"a b","value":1})").ok());
}

TEST(ControlProtocol, UnknownKey) {
  EXPECT_EQ(error_of(R"({"verb":"show","what":"ports","json":true})"),
            "show: unknown key \"json\" (known: id, verb, what)");
  EXPECT_EQ(error_of(R"({"verb":"set","key":"a","value":1,"force":1})"),
            "set: unknown key \"force\" (known: id, verb, key, value)");
  EXPECT_EQ(error_of(R"({"verb":"apply","config":"","what":"x"})"),
            "apply: unknown key \"what\" (known: id, verb, config)");
}

TEST(ControlProtocol, BadWhat) {
  EXPECT_EQ(error_of(R"({"verb":"show","what":"routes"})"),
            "show: unknown \"what\" \"routes\" (known: ports, queues, pfc, ecn, groups, flowlets, "
            "counters, config, metrics, lcores)");
  EXPECT_EQ(error_of(R"({"verb":"clear","what":"ports"})"),
            "clear: unknown \"what\" \"ports\" (known: counters)");
}

TEST(ControlProtocol, ErrorKeepsValidId) {
  ParsedRequest r = parse_request(R"({"id":"q9","verb":"show","what":"nope"})");
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.id, json("q9"));
  EXPECT_TRUE(parse_request(R"({"id":[1],"verb":"show"})").id.is_null());
}

TEST(ControlProtocol, ReplyFormat) {
  EXPECT_EQ(reply_ok(json(3), json{{"b", 1}, {"a", "x"}}),
            "{\"id\":3,\"ok\":true,\"result\":{\"a\":\"x\",\"b\":1}}\n");
  EXPECT_EQ(reply_ok(json(), json::array()), "{\"id\":null,\"ok\":true,\"result\":[]}\n");
  EXPECT_EQ(reply_error(json("r1"), "show: \"what\" bad\nline"),
            "{\"id\":\"r1\",\"ok\":false,\"error\":\"show: \\\"what\\\" bad\\nline\"}\n");
  // Invalid UTF-8 is replaced, not thrown on.
  EXPECT_EQ(reply_error(json(), "x\xff"),
            "{\"id\":null,\"ok\":false,\"error\":\"x\xEF\xBF\xBD\"}\n");
}

TEST(ControlProtocol, SetOverrideText) {
  EXPECT_EQ(
      set_override(ok_request(R"({"verb":"set","key":"groups.uplinks.mode","value":"fixed"})")),
      "groups.uplinks.mode=\"fixed\"");
  EXPECT_EQ(set_override(ok_request(R"({"verb":"set","key":"q.s","value":[6, 7]})")), "q.s=[6,7]");
  EXPECT_EQ(set_override(ok_request(R"({"verb":"set","key":"m","value":{"d":2,"m":1}})")),
            "m={\"d\":2,\"m\":1}");
}

TEST(ControlProtocol, SetOverrideRoundTrip) {
  const std::string text(embedded_default_config());
  ConfigParams before = load_config_text(text, "x");
  ASSERT_FALSE(before.groups.empty());
  EXPECT_EQ(before.groups[0].name, "uplinks");
  EXPECT_EQ(before.groups[0].mode, LbMode::kFixed);

  ParsedRequest r = ok_request(R"({"verb":"set","key":"groups.uplinks.mode","value":"drill"})");
  ConfigParams after = load_config_text(text, "x", {set_override(r)});
  EXPECT_EQ(after.groups[0].mode, LbMode::kDrill);

  // A flow map and a list from JSON are read as YAML too.
  r = ok_request(R"({"verb":"set","key":"groups.uplinks.drill","value":{"d":3,"m":1}})");
  EXPECT_NO_THROW(load_config_text(text, "x", {set_override(r)}));
  r = ok_request(R"({"verb":"set","key":"qos.scheduler.strict","value":[6,7]})");
  ConfigParams strict = load_config_text(text, "x", {set_override(r)});
  EXPECT_TRUE(strict.qos.scheduler.strict[6]);
  EXPECT_TRUE(strict.qos.scheduler.strict[7]);

  // A value the rules refuse is refused the same way as in the file.
  r = ok_request(R"({"verb":"set","key":"groups.uplinks.mode","value":"bogus"})");
  EXPECT_THROW(load_config_text(text, "x", {set_override(r)}), ConfigError);
}

TEST(ControlProtocol, NumberTooLargeIsMalformedNotACrash) {
  // Found by the control fuzzer: nlohmann reports this as out_of_range.
  EXPECT_EQ(error_of(R"({"verb":555e5555})"), "malformed JSON: number overflow parsing '555e5555'");
  EXPECT_EQ(error_of(R"({"verb":"set","key":"a","value":1e999})"),
            "malformed JSON: number overflow parsing '1e999'");
}

}  // namespace
}  // namespace rocelb
