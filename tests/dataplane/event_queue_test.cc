// EventQueue (dataplane/run/event_queue.h) pops exactly what a
// std::priority_queue keyed on (time, push order) pops, through reused
// slots and a renumbering of the sequence.
#include "dataplane/run/event_queue.h"

#include <gtest/gtest.h>

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

// Random pushes and pops, many at equal times; every pop compared.
void run_against_reference(uint64_t seed, bool renumber_midway) {
  std::mt19937_64 rng(seed);
  EventQueue<uint32_t> q;
  std::priority_queue<Ref, std::vector<Ref>, std::greater<Ref>> ref;
  uint64_t seq = 0, now = 0;
  uint32_t id = 0;
  for (int step = 0; step < 200000; ++step) {
    if (renumber_midway && step == 100000) q.renumber();
    if (ref.empty() || rng() % 100 < 55) {
      const uint64_t t = now + rng() % 8;  // few distinct times: many ties
      q.push(t, id);
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
  for (uint64_t seed = 1; seed <= 3; ++seed) run_against_reference(seed, false);
}

TEST(EventQueue, RenumberingKeepsTheOrderOfWhatIsQueued) {
  run_against_reference(7, true);
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
  for (int i = 0; i < 10; ++i) q.push(static_cast<uint64_t>(10 - i), i);
  q.pop();
  int sum = 0, n = 0;
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
