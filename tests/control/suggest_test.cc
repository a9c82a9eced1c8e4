// The "did you mean" of every command line (common/suggest.h): the nearest
// name within a typo's reach, nothing for a word that is not a typo.
#include "common/suggest.h"

#include <gtest/gtest.h>

namespace rocelb {
namespace {

TEST(Suggest, EditDistanceCountsSwapsAsOne) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("--timline", "--timeline"), 1u);
  EXPECT_EQ(edit_distance("--tiemline", "--timeline"), 1u);  // e and m swapped
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(Suggest, NearestNameIsATyposReach) {
  const std::vector<std::string> names{"--timeline", "--trace", "--events",
                                       "replay",     "run",     "fabric"};
  EXPECT_EQ(nearest_name("--timline", names), "--timeline");
  EXPECT_EQ(nearest_name("--evnets", names), "--events");
  EXPECT_EQ(nearest_name("fabirc", names), "fabric");
  EXPECT_EQ(nearest_name("rn", names), "run");
  EXPECT_EQ(nearest_name("--seed", names), "");  // 4 edits from anything
  EXPECT_EQ(nearest_name("x", names), "");
}

}  // namespace
}  // namespace rocelb
