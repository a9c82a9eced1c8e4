// The one set of rules every rocelb YAML reader follows (control/key_reader.h).
#include "control/key_reader.h"

#include <gtest/gtest.h>

#include "control/yaml_override.h"

namespace rocelb {
namespace {

constexpr KeySpec kRows[] = {
    {"ports", KeyKind::kList, "the ports", 0, 0, {}, {}, {}, Applies::kRestart},
    {"ports[]", KeyKind::kMap, "one port"},
    {"ports[].id", KeyKind::kUint, "port id", 0, 63, {}, {}, {}, Applies::kRestart, true},
    {"ports[].speed", KeyKind::kSpeed, "line rate", 1'000'000, 1'600'000'000'000, {}, "100G"},
    {"timer", KeyKind::kDuration, "a timer", 1'000, 1'000'000'000, {}, "1ms"},
    {"buffer", KeyKind::kBytes, "a buffer", 64, 1'000'000'000, {}, "1MB"},
    {"enabled", KeyKind::kBool, "on or off", 0, 0, {}, "false"},
    {"mode", KeyKind::kChoice, "how", 0, 0, {}, "ecmp", "ecmp|flowlet|drill"},
    {"offset", KeyKind::kInt, "signed", -7, 3, {}, "-2"},
    {"share", KeyKind::kFraction, "a share", 0, 1000, {}, "0.5"},
    {"name", KeyKind::kName, "a name"},
    {"groups", KeyKind::kMapOf, "named groups"},
    {"groups.*", KeyKind::kMap, "one group"},
    {"groups.*.weight", KeyKind::kUint, "weight", 1, 100, {}, "1"},
};
constexpr KeySchema kSchema{"test file", kRows};

std::string error_of(const std::string& yaml, const std::vector<std::string>& sets = {}) {
  YAML::Node doc = YAML::Load(yaml);
  KeyOrigin origin{"t.yaml", {}};
  try {
    for (const auto& s : sets) origin.overrides.push_back(apply_override(doc, s));
    KeyReader r(kSchema, origin);
    r.check_utf8(doc, "");
    auto top = r.top(doc);
    bool b = false;
    uint64_t t = 0, buf = 0;
    int8_t off = 0;
    uint16_t share = 0;
    std::string mode, name;
    top.read("enabled", b);
    top.read("timer", t);
    top.read("buffer", buf);
    top.read("offset", off);
    top.read("share", share);
    top.read("mode", mode);
    top.read("name", name);
    top.each("ports", [&](const YAML::Node& n, const std::string& p, const std::string& pat) {
      auto port = r.map(n, p, pat);
      uint8_t id = 0;
      uint64_t speed = 0;
      port.require("id");
      port.read("id", id);
      port.read("speed", speed);
    });
    top.entries("groups", [&](const std::string&, const YAML::Node& n, const std::string& p,
                              const std::string& pat) {
      uint32_t w = 0;
      r.map(n, p, pat).read("weight", w);
    });
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(KeyReader, AValidFileReadsWithoutError) {
  EXPECT_EQ(error_of("enabled: true\ntimer: 256us\nbuffer: 4MB\noffset: -7\nshare: 0.25\n"
                     "mode: drill\nname: leaf-1\nports: [{id: 0x3f, speed: 25G}]\n"
                     "groups: {a: {weight: 100}}\n"),
            "");
}

TEST(KeyReader, ValuesComeBackInTheirUnit) {
  YAML::Node doc = YAML::Load("timer: 1.5ms\nbuffer: 64KiB\nshare: 0.125\noffset: -3\n");
  KeyReader r(kSchema, {"t.yaml", {}});
  auto top = r.top(doc);
  uint64_t t = 0, b = 0;
  uint32_t s = 0;
  int32_t o = 0;
  EXPECT_TRUE(top.read("timer", t));
  EXPECT_TRUE(top.read("buffer", b));
  EXPECT_TRUE(top.read("share", s));
  EXPECT_TRUE(top.read("offset", o));
  std::string name = "kept";
  EXPECT_FALSE(top.read("name", name));
  EXPECT_EQ(name, "kept");
  EXPECT_EQ(t, 1'500'000u);
  EXPECT_EQ(b, 65'536u);
  EXPECT_EQ(s, 125u);
  EXPECT_EQ(o, -3);
}

TEST(KeyReader, BooleansAreTrueOrFalseNeverOneOrZero) {
  EXPECT_EQ(error_of("enabled: TRUE\n"), "");
  EXPECT_EQ(error_of("enabled: 1\n"), "t.yaml: enabled: 1: must be true or false");
  EXPECT_EQ(error_of("enabled: yes\n"), "t.yaml: enabled: \"yes\": must be true or false");
}

TEST(KeyReader, IntegersAreDecimalOrHexInRange) {
  EXPECT_EQ(error_of("ports: [{id: 64}]\n"), "t.yaml: ports[0].id: 64: must be an integer 0..63");
  EXPECT_EQ(error_of("ports: [{id: -1}]\n"), "t.yaml: ports[0].id: -1: must be an integer 0..63");
  EXPECT_EQ(error_of("ports: [{id: 0x40}]\n"),
            "t.yaml: ports[0].id: 0x40: must be an integer 0..63");
  EXPECT_EQ(error_of("offset: 4\n"), "t.yaml: offset: 4: must be an integer -7..3");
  EXPECT_EQ(error_of("offset: -8\n"), "t.yaml: offset: -8: must be an integer -7..3");
}

TEST(KeyReader, UnitsAndRangesNameTheRule) {
  EXPECT_EQ(error_of("timer: 2s\n"), "t.yaml: timer: \"2s\": must be a duration 1us .. 1s");
  EXPECT_NE(error_of("timer: 5\n").find("t.yaml: timer: 5: "), std::string::npos);
  EXPECT_EQ(error_of("buffer: 2GB\n"), "t.yaml: buffer: \"2GB\": must be a byte size 64B .. 1GB");
  EXPECT_EQ(error_of("share: 1.5\n"), "t.yaml: share: 1.5: must be a number 0..1");
  EXPECT_EQ(error_of("ports: [{id: 1, speed: 2T}]\n"),
            "t.yaml: ports[0].speed: \"2T\": must be a speed 1M .. 1.6T");
}

TEST(KeyReader, AnUnknownKeyGetsTheNearestKnownOne) {
  EXPECT_EQ(error_of("timr: 1ms\n"),
            "t.yaml: timr: unknown key, did you mean \"timer\"? (known: ports, timer, buffer, "
            "enabled, mode, offset, share, name, groups)");
  EXPECT_EQ(error_of("groups: {a: {wieght: 1}}\n"),
            "t.yaml: groups.a.wieght: unknown key, did you mean \"weight\"? (known: weight)");
  EXPECT_EQ(
      error_of("mode: flowlt\n"),
      "t.yaml: mode: \"flowlt\": did you mean \"flowlet\"? must be one of ecmp, flowlet, drill");
}

TEST(KeyReader, KeysAreUniqueStringsAndTextIsUtf8) {
  EXPECT_EQ(error_of("groups: {a: {weight: 1}, a: {weight: 2}}\n"),
            "t.yaml: groups.a: duplicate key");
  EXPECT_EQ(
      error_of("name: a\xff\n"),
      "t.yaml: name: the value is not UTF-8 text (byte 0xff at offset 1): a test file is UTF-8");
  EXPECT_EQ(error_of("name: a b\n"),
            "t.yaml: name: \"a b\": must match [A-Za-z0-9_.-]+ (1..64 characters)");
  EXPECT_EQ(error_of("ports: [{speed: 25G}]\n"), "t.yaml: ports[0]: missing required key \"id\"");
  EXPECT_EQ(error_of("ports: {id: 1}\n"), "t.yaml: ports: expected a list, found a map");
}

TEST(KeyReader, AnOverrideIsBlamedForWhatItSet) {
  EXPECT_EQ(error_of("timer: 1ms\n", {"timer=5s"}),
            "--set timer=5s: timer: \"5s\": must be a duration 1us .. 1s");
  EXPECT_EQ(error_of("timer: 5s\n", {"buffer=1MB"}),
            "t.yaml: timer: \"5s\": must be a duration 1us .. 1s");
  EXPECT_EQ(error_of("groups: {a: {weight: 1}}\n", {"groups.b.wieght=3"}),
            "--set groups.b.wieght=3: groups.b.wieght: unknown key, did you mean \"weight\"? "
            "(known: weight)");
}

TEST(KeyReader, TheViaOfAnOverrideNamesWhoSetIt) {
  YAML::Node doc = YAML::Load("timer: 1ms\n");
  AppliedOverride o = apply_override(doc, "timer=5s");
  o.via = "rocelbctl set";
  KeyReader r(kSchema, {"t.yaml", {o}});
  uint64_t t = 0;
  try {
    r.top(doc).read("timer", t);
    FAIL() << "5s read";
  } catch (const KeyError& e) {
    EXPECT_STREQ(e.what(), "rocelbctl set timer=5s: timer: \"5s\": must be a duration 1us .. 1s");
  }
}

TEST(KeyReader, ARowWhoseRangeDoesNotFitItsFieldIsABug) {
  YAML::Node doc = YAML::Load("buffer: 64\n");
  KeyReader r(kSchema, {"t.yaml", {}});
  uint8_t small = 0;
  EXPECT_THROW(r.top(doc).read("buffer", small), std::logic_error);
  EXPECT_THROW(r.top(doc).read("nosuchrow", small), std::logic_error);
}

// The rows' other rules: a list's length, a map's keys (names, or integers
// in a range, none twice by value), a number that takes a word, a fraction
// finer than thousandths, and a new entry an override made in a map of names.
constexpr KeySpec kMoreRows[] = {
    {"hops", KeyKind::kList, "next hops", 1, 3, "hops"},
    {"hops[]", KeyKind::kUint, "a hop", 0, 9},
    {"classes", KeyKind::kMapOf, "by class", 0, 7, "traffic class"},
    {"classes.*", KeyKind::kUint, "a weight", 1, 100},
    {"headroom", KeyKind::kBytes, "room", 64, 1000, {}, "auto", "auto"},
    {"alpha", KeyKind::kFraction, "a weight", 1, 1000, {}, "0.25"},
    {"groups", KeyKind::kMapOf, "named groups", 0, 0, "group name"},
    {"groups.*", KeyKind::kMap, "one group", 0, 0, "group"},
    {"groups.*.members", KeyKind::kList, "members", 0, 0, {}, {}, {}, Applies::kLive, true},
    {"groups.*.mode", KeyKind::kChoice, "how", 0, 0, {}, "a", "a|b"},
};
constexpr KeySchema kMoreSchema{"test file", kMoreRows};

std::string more_error(const std::string& yaml, const std::vector<std::string>& sets = {},
                       uint64_t* alpha = nullptr) {
  YAML::Node doc = YAML::Load(yaml);
  KeyOrigin origin{"t.yaml", {}};
  try {
    for (const auto& s : sets) origin.overrides.push_back(apply_override(doc, s));
    KeyReader r(kMoreSchema, origin);
    auto top = r.top(doc);
    top.each("hops", [&](const YAML::Node& n, const std::string& p, const std::string& pat) {
      r.uint(n, p, r.spec(pat));
    });
    top.numbered("classes", [&](uint64_t, const YAML::Node& n, const std::string& p,
                                const std::string& pat) { r.uint(n, p, r.spec(pat)); });
    uint64_t room = 0;
    if (!top.word("headroom")) top.read("headroom", room);
    uint64_t a = 0;
    if (top.read_scaled("alpha", 65536, a) && alpha) *alpha = a;
    top.entries("groups", [&](const std::string&, const YAML::Node& n, const std::string& p,
                              const std::string& pat) {
      auto g = r.map(n, p, pat);
      g.each("members", [](const YAML::Node&, const std::string&, const std::string&) {});
      std::string mode;
      g.read("mode", mode);
    });
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

TEST(KeyReader, AListHoldsItsRowsNumberOfItems) {
  EXPECT_EQ(more_error("hops: [1, 2, 3]\n"), "");
  EXPECT_EQ(more_error("hops: []\n"), "t.yaml: hops: must not be empty");
  EXPECT_EQ(more_error("hops: [1, 2, 3, 4]\n"), "t.yaml: hops: must list at most 3 hops (found 4)");
  EXPECT_EQ(rule_text(*kMoreSchema.find("hops")), "a list of 1..3 hops");
}

TEST(KeyReader, AMapsKeysFollowItsRow) {
  EXPECT_EQ(more_error("classes: {0: 1, 0x7: 100}\n"), "");
  EXPECT_EQ(more_error("classes: {8: 1}\n"),
            "t.yaml: classes.8: traffic class must be an integer 0..7");
  EXPECT_EQ(more_error("classes: {three: 1}\n"),
            "t.yaml: classes.three: traffic class must be an integer 0..7");
  EXPECT_EQ(more_error("classes: {3: 1, 0x3: 2}\n"),
            "t.yaml: classes.0x3: duplicate traffic class 3 (also classes.3)");
  EXPECT_EQ(more_error("groups: {\"a b\": {members: []}}\n"),
            "t.yaml: groups.a b: group name must match [A-Za-z0-9_.-]+ (1..64 characters)");
  EXPECT_EQ(rule_text(*kMoreSchema.find("classes")), "a map by traffic class 0..7");
}

TEST(KeyReader, ANumberMayTakeItsRowsWords) {
  EXPECT_EQ(more_error("headroom: auto\n"), "");
  EXPECT_EQ(more_error("headroom: 64\n"), "");
  EXPECT_EQ(more_error("headroom: automatic\n"),
            "t.yaml: headroom: \"automatic\": must be auto or a byte size 64B .. 1KB");
  EXPECT_EQ(more_error("headroom: 2KB\n"),
            "t.yaml: headroom: \"2KB\": must be auto or a byte size 64B .. 1KB");
}

TEST(KeyReader, AFractionMayBeFinerThanItsRange) {
  uint64_t a = 0;
  EXPECT_EQ(more_error("alpha: 0.0625\n", {}, &a), "");
  EXPECT_EQ(a, 4096u);
  EXPECT_EQ(more_error("alpha: .5\n", {}, &a), "");
  EXPECT_EQ(a, 32768u);
  EXPECT_EQ(more_error("alpha: 0.0009\n"), "t.yaml: alpha: 0.0009: must be a number 0.001..1");
  EXPECT_EQ(more_error("alpha: 1.0001\n"), "t.yaml: alpha: 1.0001: must be a number 0.001..1");
  EXPECT_EQ(more_error("alpha: 1/2\n"), "t.yaml: alpha: \"1/2\": must be a number 0.001..1");
}

// A typo in a group's name under --set makes a new group: the error says
// so, with the name the file has, instead of "missing required key".
TEST(KeyReader, ANewEntryAnOverrideMadeIsNamedAsNew) {
  const std::string file = "groups: {spine: {members: [1]}, leaf: {members: [2]}}\n";
  EXPECT_EQ(more_error(file, {"groups.spnie.mode=b"}),
            "--set groups.spnie.mode=b: groups.spnie: no group \"spnie\" in t.yaml (did you "
            "mean \"spine\"?); a new group needs \"members\"");
  // Before its keys are read: an unknown key is the typo's consequence.
  EXPECT_EQ(more_error(file, {"groups.spnie.flowlet_gap=100us"}),
            "--set groups.spnie.flowlet_gap=100us: groups.spnie: no group \"spnie\" in t.yaml "
            "(did you mean \"spine\"?); a new group needs \"members\"");
  EXPECT_EQ(more_error(file, {"groups.core={mode: b}"}),
            "--set groups.core={mode: b}: groups.core: no group \"core\" in t.yaml; a new group "
            "needs \"members\"");
  // A new group with its required keys is a new group; one the file has
  // is changed as usual.
  EXPECT_EQ(more_error(file, {"groups.core.members=[3]"}), "");
  EXPECT_EQ(more_error(file, {"groups.core.members=[3]", "groups.core.mode=b"}), "");
  EXPECT_EQ(more_error(file, {"groups.spine.mode=c"}),
            "--set groups.spine.mode=c: groups.spine.mode: \"c\": must be one of a, b");
  // The file itself is not an override: its missing key is just missing.
  EXPECT_EQ(more_error("groups: {spine: {mode: a}}\n"),
            "t.yaml: groups.spine: missing required key \"members\"");
}

TEST(KeySchema, ChildrenAndRulesComeFromTheRows) {
  std::vector<std::string_view> top = kSchema.children("");
  EXPECT_EQ(top.size(), 9u);
  EXPECT_EQ(kSchema.children("ports[]"), (std::vector<std::string_view>{"id", "speed"}));
  EXPECT_EQ(kSchema.children("groups.*"), (std::vector<std::string_view>{"weight"}));
  EXPECT_EQ(rule_text(*kSchema.find("timer")), "a duration 1us .. 1s");
  EXPECT_EQ(rule_text(*kSchema.find("mode")), "one of ecmp, flowlet, drill");
  const std::string md = schema_markdown(kSchema);
  EXPECT_NE(md.find("| `ports[].id` | an integer 0..63 | required | restart | port id |"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("### `groups`"), std::string::npos);
}

}  // namespace
}  // namespace rocelb
