// --max-output's accounting (output_budget.h) and links.csv's meters
// (link_meters.h), without a run: the budget stops recording at the first
// piece that does not fit and never lets the own outputs' room go to a
// recording; links.csv has no rows for windows in which the fabric was idle
// (a flow at 100 s made 100 s of empty windows: 813 MB), keeps its old rows
// otherwise, takes each window's room from the budget, and after a stop
// ends with the last window that had ended.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "dataplane/record/link_meters.h"
#include "dataplane/record/output_budget.h"

namespace rocelb {
namespace {

TEST(OutputBudget, RecordingStopsAtTheFirstPieceThatDoesNotFitAndStaysStopped) {
  OutputBudget b(1000);
  ASSERT_TRUE(b.reserve(600));  // the run's own outputs
  EXPECT_FALSE(b.reserve(500));
  EXPECT_TRUE(b.take(300, 10));
  EXPECT_TRUE(b.room(100, 20));
  EXPECT_FALSE(b.room(101, 30));  // 600 + 300 + 101 > 1000
  EXPECT_TRUE(b.stopped());
  EXPECT_EQ(b.stopped_ns(), 30u);
  EXPECT_FALSE(b.room(1, 40));  // for good
  EXPECT_EQ(b.stopped_ns(), 30u);
  EXPECT_EQ(b.recorded(), 300u);
}

TEST(OutputBudget, OwnOutputsUseTheirReserveFirstAndFailPastTheCap) {
  OutputBudget b(1000);
  ASSERT_TRUE(b.reserve(500));
  EXPECT_TRUE(b.own(400));       // in the reserve
  EXPECT_TRUE(b.take(400, 1));   // 500 + 400
  EXPECT_FALSE(b.room(200, 2));  // the reserve is not the recordings'
  EXPECT_TRUE(b.own(100));       // 500 of 500
  EXPECT_FALSE(b.own(101));      // 601 + 400 > 1000: the run must fail
}

std::string written(LinkMeters& m, uint64_t end_ns) {
  std::FILE* f = std::tmpfile();
  EXPECT_TRUE(m.write(f, end_ns));
  std::string s(static_cast<size_t>(std::ftell(f)), '\0');
  std::rewind(f);
  EXPECT_EQ(std::fread(s.data(), 1, s.size(), f), s.size());
  std::fclose(f);
  return s;
}

TEST(LinkMeters, BusyWindowsKeepEveryLinksRowsAsBefore) {
  LinkMeters m;
  const uint32_t a = m.add_link("leaf0:4", "spine0:0", 100'000'000'000);
  const uint32_t b = m.add_link("h0", "leaf0:0", 100'000'000'000);
  m.start(100'000, nullptr);
  m.add(b, 0, 1102);
  m.add(a, 1'000'000, 1102);    // 1 us
  m.add(a, 150'000'000, 1102);  // 150 us: window 1
  m.add(a, 160'000'000, 1102);
  EXPECT_EQ(written(m, 180'000),
            "leaf0:4,spine0:0,0,1102,0.0009\n"
            "leaf0:4,spine0:0,100000,2204,0.0018\n"
            "h0,leaf0:0,0,1102,0.0009\n"
            "h0,leaf0:0,100000,0,0.0000\n");
}

TEST(LinkMeters, IdleWindowsHaveNoRowsButTheRunsLastWindowDoes) {
  LinkMeters m;
  const uint32_t a = m.add_link("h0", "leaf0:0", 100'000'000'000);
  m.start(100'000, nullptr);
  m.add(a, 100'000'000'000'000, 1102);  // 100 s
  m.add(a, 100'000'000'000'000 + 10'000'000, 1102);
  m.add(a, 2'000'000, 60);  // late and out of order: window 0
  EXPECT_EQ(written(m, 100'000'500'000),
            "h0,leaf0:0,0,60,0.0000\n"
            "h0,leaf0:0,100000000000,2204,0.0018\n"
            "h0,leaf0:0,100000500000,0,0.0000\n");
  EXPECT_EQ(m.windows(), 3u);
}

// A link's bytes wait in its open window until it carries bytes in another
// one: going back to an earlier window and forward again counts each
// window's bytes once, in order; a new run starts from nothing.
TEST(LinkMeters, ALinkGoingBackAndForthBetweenWindowsCountsEachOnce) {
  LinkMeters m;
  const uint32_t a = m.add_link("h0", "leaf0:0", 100'000'000'000);
  const uint32_t b = m.add_link("h1", "leaf0:1", 100'000'000'000);
  m.start(1000, nullptr);    // windows of 1 us
  m.add(a, 500'000, 100);    // window 0
  m.add(a, 1'500'000, 200);  // window 1
  m.add(b, 1'600'000, 7);
  m.add(a, 600'000, 10);     // back to window 0
  m.add(a, 1'700'000, 20);   // window 1 again
  m.add(a, 2'500'000, 300);  // window 2
  m.add(a, 2'600'000, 30);
  EXPECT_EQ(written(m, 2'900),
            "h0,leaf0:0,0,110,0.0088\n"
            "h0,leaf0:0,1000,220,0.0176\n"
            "h0,leaf0:0,2000,330,0.0264\n"
            "h1,leaf0:1,0,0,0.0000\n"
            "h1,leaf0:1,1000,7,0.0006\n"
            "h1,leaf0:1,2000,0,0.0000\n");
  m.start(1000, nullptr);
  m.add(a, 2'500'000, 1000);  // a run that ends without writing
  m.start(1000, nullptr);     // another, in the same windows: nothing carried over
  m.add(b, 1'500'000, 5);
  EXPECT_EQ(written(m, 2'900),
            "h0,leaf0:0,1000,0,0.0000\n"
            "h0,leaf0:0,2000,0,0.0000\n"
            "h1,leaf0:1,1000,5,0.0004\n"
            "h1,leaf0:1,2000,0,0.0000\n");
}

TEST(LinkMeters, EachNewWindowTakesItsRowsRoomAndAStopEndsTheFile) {
  OutputBudget budget(1000);
  LinkMeters m;
  const uint32_t a = m.add_link("h0", "leaf0:0", 100'000'000'000);  // at most 66 bytes a row
  m.start(1000, &budget);
  for (uint64_t us = 0; us < 100; ++us) m.add(a, us * 1'000'000 + 500'000, 100);
  ASSERT_TRUE(budget.stopped());
  // 15 windows of 66 bytes fit in 1000; the 16th (at 15.5 us) did not.
  EXPECT_EQ(budget.stopped_ns(), 15'500u);
  const std::string rows = written(m, 100'000);
  EXPECT_LE(rows.size(), 1000u);
  // Windows that had ended by 15.5 us: 0..14.
  EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 15);
  EXPECT_NE(rows.find("h0,leaf0:0,14000,100,"), std::string::npos) << rows;
}

}  // namespace
}  // namespace rocelb
