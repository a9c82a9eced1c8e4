// EventQueue (dataplane/run/event_queue.h) pops exactly what a
// std::priority_queue keyed on (time, order) pops, through reused slots and
// lanes (in order and, broken promises, out of order); equal keys pop the
// same way for the same calls.
#include "dataplane/run/event_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <queue>
#include <random>
#include <utility>
#include <vector>

namespace rocelb {
namespace {

struct Ref {
  uint64_t t, order;
  uint32_t id;
  bool operator>(const Ref& o) const { return t != o.t ? t > o.t : order > o.order; }
};

// Random pushes (to the heap or to one of 5 lanes, mostly in the lane's
// order) and pops, many at equal times; every pop compared. Orders are
// unique (the id in the low bits), so the reference's order is the only one.
void run_against_reference(uint64_t seed, bool lanes) {
  std::mt19937_64 rng(seed);
  EventQueue<uint32_t> q;
  q.set_lanes(5);
  std::vector<std::pair<uint64_t, uint64_t>> lane_last(5, {0, 0});
  std::priority_queue<Ref, std::vector<Ref>, std::greater<Ref>> ref;
  uint64_t now = 0;
  uint32_t id = 0;
  for (int step = 0; step < 200000; ++step) {
    if (ref.empty() || rng() % 100 < 55) {
      uint64_t t = now + rng() % 8;  // few distinct times: many ties
      uint64_t order = (rng() % 64) << 20 | id;
      const uint32_t lane = static_cast<uint32_t>(rng() % 5);
      if (lanes && rng() % 3 != 0) {
        if (rng() % 20 != 0 && std::make_pair(t, order) < lane_last[lane]) {
          t = lane_last[lane].first;  // in the lane's order, mostly
          order = (lane_last[lane].second >> 20) + 1;
          order = order << 20 | id;
        }
        lane_last[lane] = std::max(lane_last[lane], std::make_pair(t, order));
        q.push_lane(lane, t, order, id);
      } else {
        q.push(t, order, id);
      }
      ref.push(Ref{t, order, id++});
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

TEST(EventQueue, PopsInTimeThenOrderLikeAPriorityQueue) {
  for (uint64_t seed = 1; seed <= 3; ++seed) run_against_reference(seed, false);
}

TEST(EventQueue, LanesPopInTheSameOrderAsTheHeapAlone) {
  for (uint64_t seed = 1; seed <= 3; ++seed) run_against_reference(seed, true);
}

TEST(EventQueue, TheOrderRanksEqualTimesWhateverThePushOrder) {
  EventQueue<int> q;
  for (int i = 0; i < 100; ++i) q.push(5, static_cast<uint64_t>(99 - i), i);
  q.push(4, EventQueue<int>::kMaxOrder, -1);
  EXPECT_EQ(q.pop(), -1);
  for (int i = 99; i >= 0; --i) EXPECT_EQ(q.pop(), i);
}

// Equal (time, order) keys: the same calls pop the same way, whichever
// slots were reused.
TEST(EventQueue, EqualKeysPopTheSameWayForTheSameCalls) {
  auto pops = [](uint64_t seed) {
    std::mt19937_64 rng(seed);
    EventQueue<uint32_t> q;
    q.set_lanes(3);
    std::vector<uint32_t> out;
    uint32_t id = 0;
    for (int step = 0; step < 20000; ++step) {
      if (q.empty() || rng() % 2) {
        const uint64_t t = 100 + rng() % 3;
        if (rng() % 2)
          q.push(t, rng() % 2, id++);
        else
          q.push_lane(static_cast<uint32_t>(rng() % 3), t, 0, id++);
      } else {
        out.push_back(q.pop());
      }
    }
    return out;
  };
  const std::vector<uint32_t> a = pops(11);
  EXPECT_EQ(a, pops(11));
  EXPECT_NE(a, pops(12));  // another draw is another sequence: the check can fail
}

TEST(EventQueue, ForEachSeesEveryQueuedPayloadAndClearEmpties) {
  EventQueue<int> q;
  q.set_lanes(2);
  for (int i = 0; i < 10; ++i) q.push(static_cast<uint64_t>(10 - i), 0, i);
  q.push_lane(1, 20, 0, 100);
  q.push_lane(1, 21, 0, 200);
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
