// EventQueue (dataplane/run/event_queue.h) pops exactly what a
// std::priority_queue keyed on (time, push order) pops, through reused
// slots, lanes (in order and, broken promises, out of order) and a
// renumbering of the sequence.
#include "dataplane/run/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <random>
#include <vector>

namespace rocelb {
namespace {

struct Ref {
  uint64_t t, seq;
  uint32_t id;
  bool operator>(const Ref& o) const { return t != o.t ? t > o.t : seq > o.seq; }
};

// Random pushes (to the heap or to one of 5 lanes, mostly in the lane's
// order) and pops, many at equal times; every pop compared.
void run_against_reference(uint64_t seed, bool renumber_midway, bool lanes) {
  std::mt19937_64 rng(seed);
  EventQueue<uint32_t> q;
  q.set_lanes(5);
  std::vector<uint64_t> lane_last(5, 0);
  std::priority_queue<Ref, std::vector<Ref>, std::greater<Ref>> ref;
  uint64_t seq = 0, now = 0;
  uint32_t id = 0;
  for (int step = 0; step < 200000; ++step) {
    if (renumber_midway && step == 100000) q.renumber();
    if (ref.empty() || rng() % 100 < 55) {
      uint64_t t = now + rng() % 8;  // few distinct times: many ties
      const uint32_t lane = static_cast<uint32_t>(rng() % 5);
      if (lanes && rng() % 3 != 0) {
        if (rng() % 20 != 0) t = std::max(t, lane_last[lane]);  // else maybe out of order
        lane_last[lane] = std::max(lane_last[lane], t);
        q.push_lane(lane, t, id);
      } else {
        q.push(t, id);
      }
      ref.push(Ref{t, seq++, id++});
    } else {
      ASSERT_EQ(q.top_time(), ref.top().t);
      ASSERT_EQ(q.top(), ref.top().id);
      const uint32_t got = q.pop();
      ASSERT_EQ(got, ref.top().id) << "step " << step;
      now = ref.top().t;
      ref.pop();
    }
    ASSERT_EQ(q.size(), ref.size());
  }
  while (!ref.empty()) {
    ASSERT_EQ(q.pop(), ref.top().id);
    ref.pop();
  }
  EXPECT_TRUE(q.empty());
}

TEST(EventQueue, PopsInTimeThenPushOrderLikeAPriorityQueue) {
  for (uint64_t seed = 1; seed <= 3; ++seed) run_against_reference(seed, false, false);
}

TEST(EventQueue, LanesPopInTheSameOrderAsTheHeapAlone) {
  for (uint64_t seed = 1; seed <= 3; ++seed) run_against_reference(seed, false, true);
}

TEST(EventQueue, RenumberingKeepsTheOrderOfWhatIsQueued) {
  run_against_reference(7, true, false);
  run_against_reference(8, true, true);
}

TEST(EventQueue, EqualTimesComeOutFirstInFirstOut) {
  EventQueue<int> q;
  for (int i = 0; i < 100; ++i) q.push(5, i);
  q.push(4, -1);
  EXPECT_EQ(q.pop(), -1);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(q.pop(), i);
}

TEST(EventQueue, ForEachSeesEveryQueuedPayloadAndClearEmpties) {
  EventQueue<int> q;
  q.set_lanes(2);
  for (int i = 0; i < 10; ++i) q.push(static_cast<uint64_t>(10 - i), i);
  q.push_lane(1, 20, 100);
  q.push_lane(1, 21, 200);
  q.pop();
  int sum = -300, n = -2;
  q.for_each([&](int v) {
    sum += v;
    ++n;
  });
  EXPECT_EQ(n, 9);
  EXPECT_EQ(sum, 45 - 9);  // the one at time 1 (payload 9) left first
  q.clear();
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace rocelb
