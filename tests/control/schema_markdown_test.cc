// The reference rendering of a key table (schema_markdown): a top-level key
// with rows below it has a section of its own; a run of top-level keys
// with nothing below them (a topology's leaves, spines, ...) shares one
// table without a heading.
#include <gtest/gtest.h>

#include "control/key_schema.h"

namespace rocelb {
namespace {

constexpr KeySpec kRows[] = {
    {"leaves", KeyKind::kUint, "leaf switches", 1, 99},
    {"spines", KeyKind::kUint, "spine switches", 1, 99},
    {"flows", KeyKind::kList, "the flows"},
    {"flows[]", KeyKind::kMap, "one flow"},
    {"flows[].size", KeyKind::kBytes, "its size", 1, 1000},
    {"nic", KeyKind::kMap, "the NIC, its own table"},
};
constexpr KeySchema kSchema{"test file", kRows};

TEST(SchemaMarkdown, KeysWithNothingBelowShareOneTableWithoutAHeading) {
  const std::string md = schema_markdown(kSchema);
  const std::string header =
      "| key | value | default | applies | what it does |\n|---|---|---|---|---|\n";
  EXPECT_EQ(md.rfind("\n" + header + "| `leaves` |", 0), 0u) << md;
  EXPECT_NE(md.find(" |\n| `spines` |"), std::string::npos) << md;
  EXPECT_EQ(md.find("### `leaves`"), std::string::npos) << md;
  EXPECT_NE(md.find("\n### `flows`\n\n" + header + "| `flows` |"), std::string::npos) << md;
  EXPECT_NE(md.find(" |\n\n" + header + "| `nic` |"), std::string::npos) << md;
  EXPECT_EQ(md.find("### `nic`"), std::string::npos) << md;
}

}  // namespace
}  // namespace rocelb
