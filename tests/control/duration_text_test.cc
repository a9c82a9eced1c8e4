// The bounds an error names read back as values: duration_text writes only
// the units parse_duration_ns reads (ns, us, ms, s).
#include <gtest/gtest.h>

#include "control/key_schema.h"
#include "control/units.h"

namespace rocelb {
namespace {

TEST(DurationText, EveryBoundReadsBackAsTheSameDuration) {
  for (uint64_t ns : {uint64_t(0), uint64_t(1), uint64_t(1'500), uint64_t(1'000'000'000),
                      uint64_t(3'600'000'000'000), uint64_t(7'200'000'000'000),
                      uint64_t(2'592'000'000'000'000)}) {
    uint64_t back = 1;
    EXPECT_TRUE(parse_duration_ns(duration_text(ns), back)) << duration_text(ns);
    EXPECT_EQ(back, ns) << duration_text(ns);
  }
  EXPECT_EQ(duration_text(3'600'000'000'000), "3600s");
}

}  // namespace
}  // namespace rocelb
