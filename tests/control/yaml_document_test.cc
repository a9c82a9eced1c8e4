// The rules every file a user writes is read by (control/yaml_document.h,
// control/yaml_util.h): one document, a bound on its nodes counted before
// any tree is built, no key twice at any depth, and the words errors use
// for what was found.
#include "control/yaml_document.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <string>

#include "control/yaml_util.h"

namespace rocelb {
namespace {

std::string error_of(const std::string& text, size_t max_nodes = kMaxYamlNodes) {
  try {
    load_yaml_document(text, "x.yaml", max_nodes);
  } catch (const YamlDocumentError& e) {
    return e.what();
  }
  return "(loaded)";
}

TEST(YamlDocument, ARepeatedKeyIsRefusedAtAnyDepthWithItsPathAndLine) {
  EXPECT_EQ(error_of("leaves: 2\nleaves: 3\n"), "x.yaml:2:1: leaves: duplicate key");
  EXPECT_EQ(error_of("a: 1\nb:\n  c: 1\n  c: 2\n"), "x.yaml:4:3: b.c: duplicate key");
  EXPECT_EQ(error_of("l:\n  - {k: 1}\n  - {k: 1, j: 2, k: 2}\n"),
            "x.yaml:3:18: l[1].k: duplicate key");
  // The same key in two maps, and equal values, are fine.
  EXPECT_EQ(error_of("a: {k: 1}\nb: {k: 1}\nc: [1, 1]\n"), "(loaded)");
}

TEST(YamlDocument, NodesAreCountedBeforeATreeIsBuilt) {
  // map, key a, list, 3 items, key b, alias (4), key c, alias (4): 16
  // nodes, as a walk of the tree meets them.
  const std::string text = "a: &x [1, 2, 3]\nb: *x\nc: *x\n";
  EXPECT_EQ(error_of(text, 16), "(loaded)");
  EXPECT_EQ(error_of(text, 15),
            "x.yaml:3:4: c: more than 15 YAML nodes (keys, values, lists and maps): the limit "
            "of one file, about 1 MB in memory");
  // The map, its key, the list, item 0; item 1 is one too many.
  EXPECT_EQ(error_of("flows: [0, 0, 0, 0]\n", 4).rfind("x.yaml:1:12: flows[1]: more than 4 ", 0),
            0u)
      << error_of("flows: [0, 0, 0, 0]\n", 4);

  // 16 MiB of "- 0" lines is 4 M nodes, 2 GB as a tree: refused at once,
  // in little memory.
  std::string big;
  big.reserve(size_t{16} << 20);
  while (big.size() < (size_t{16} << 20)) big += "- 0\n";
  const auto t0 = std::chrono::steady_clock::now();
  const std::string e = error_of(big);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(e,
            "x.yaml:2000000:3: [1999999]: more than 2000000 YAML nodes (keys, values, lists "
            "and maps): the limit of one file, about 1000 MB in memory");
  EXPECT_LT(s, 60.0);  // refused, not read for minutes
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  // A tree would take 2 GB; the event stream a few hundred MB at most
  // (ASan's shadow memory and quarantine take that past 500 MB).
#if defined(__SANITIZE_ADDRESS__)
  constexpr long kMaxRssKb = 1'500'000;
#else
  constexpr long kMaxRssKb = 500'000;
#endif
  EXPECT_LT(ru.ru_maxrss, kMaxRssKb) << "KB: a tree was built";
}

TEST(YamlDocument, AliasesCannotMultiplyATreeOrLoopIt) {
  // Ten aliases of ten aliases of ...: 10^12 nodes to any walk (a clone, a
  // check of every value, a dump), from a few hundred bytes.
  std::string laughs = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  for (char c = 'b'; c <= 'm'; ++c) {
    laughs += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) laughs += std::string(i ? ", *" : "*") + char(c - 1);
    laughs += "]\n";
  }
  EXPECT_EQ(error_of(laughs),
            "x.yaml:7:8: g[0]: more than 2000000 YAML nodes (keys, values, lists and maps): the "
            "limit of one file, about 1000 MB in memory");
  // An alias inside the node it names: no walk would end.
  EXPECT_EQ(error_of("a: &a [1, *a]\n"),
            "x.yaml:1:11: a[1]: an alias inside the node it names (a structure without end)");
}

TEST(YamlDocument, OneDocumentAnEmptyTextIsNullAndSyntaxErrorsGiveTheLine) {
  EXPECT_EQ(error_of("a: 1\n---\nb: 2\n"),
            "x.yaml: expected one YAML document, found more (separated by ---)");
  EXPECT_TRUE(load_yaml_document("", "x.yaml").IsNull());
  EXPECT_TRUE(load_yaml_document("# only a comment\n", "x.yaml").IsNull());
  EXPECT_EQ(error_of("a: [\n").rfind("x.yaml:2:1: invalid YAML: ", 0), 0u) << error_of("a: [\n");
  EXPECT_EQ(load_yaml_document("a: {b: 1}\n", "x.yaml")["a"]["b"].Scalar(), "1");
}

TEST(YamlUtil, MapKeysFollowOneRule) {
  const std::vector<std::string_view> known = {"a", "b"};
  auto problem = [&](const std::string& text) -> std::string {
    auto p = check_map_keys(YAML::Load(text), "top", known);
    return p ? p->path + ": " + p->rule : "(none)";
  };
  EXPECT_EQ(problem("{a: 1, b: 2}"), "(none)");
  EXPECT_EQ(problem("{a: 1, c: 2}"), "top.c: unknown key (known: a, b)");
  EXPECT_EQ(problem("{a: 1, a: 2}"), "top.a: duplicate key");
  EXPECT_EQ(problem("{[1]: 2}"), "top: keys must be strings, found a list as a key");
  // Any key when none are listed; a large map (hashed) finds its repeat too.
  std::string many = "{";
  for (int i = 0; i < 100; ++i) many += "k" + std::to_string(i) + ": 1, ";
  EXPECT_FALSE(check_map_keys(YAML::Load(many + "z: 1}"), "m"));
  const auto p = check_map_keys(YAML::Load(many + "k7: 2}"), "m");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->path, "m.k7");
  EXPECT_EQ(p->rule, "duplicate key");
}

TEST(YamlUtil, AnEmptyMapOrListIsCalledSo) {
  EXPECT_EQ(yaml_kind(YAML::Load("{}")), "an empty map");
  EXPECT_EQ(yaml_kind(YAML::Load("[]")), "an empty list");
  EXPECT_EQ(yaml_kind(YAML::Load("{a: 1}")), "a map");
  EXPECT_EQ(yaml_kind(YAML::Load("[1]")), "a list");
  EXPECT_EQ(yaml_show(YAML::Load("{}")), "an empty map");
}

}  // namespace
}  // namespace rocelb
