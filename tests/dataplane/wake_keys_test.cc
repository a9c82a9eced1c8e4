// WakeKeys (dataplane/run/wake_keys.h): nodes whose wake-ups go through
// an event queue with its keys are woken at exactly the times a plain
// "latest wanted time, one live key" schedule wakes them, with few keys
// queued however often the wanted time moves later.
#include "dataplane/run/wake_keys.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <queue>
#include <random>
#include <utility>
#include <vector>

namespace rocelb {
namespace {

using Key = std::pair<uint64_t, uint32_t>;  // time, node
using MinQueue = std::priority_queue<Key, std::vector<Key>, std::greater<Key>>;

// Each node, when woken, asks for its next wake-up: mostly soon (work to
// do), else a far timer (a NIC's retransmission timer, re-armed later
// each time); something else often gives a node work soon.
struct Sim {
  std::mt19937_64 rng;
  explicit Sim(uint64_t seed) : rng(seed) {}
  uint64_t next_wanted(uint64_t now) {
    return rng() % 4 != 0 ? soon(now) : now + 100000 + rng() % 1000;
  }
  uint64_t soon(uint64_t now) { return now + 1 + rng() % 50; }
};

// The reference: one live key per node (a superseded key pops and is
// skipped), a node's time only moving earlier between its wake-ups.
std::vector<Key> reference_wakes(uint64_t seed, uint32_t nodes, size_t* most_keys) {
  Sim sim(seed);
  MinQueue q;
  std::vector<uint64_t> sched(nodes, UINT64_MAX);
  auto want = [&](uint32_t n, uint64_t t) {
    if (t < sched[n]) {
      sched[n] = t;
      q.push({t, n});
    }
  };
  for (uint32_t n = 0; n < nodes; ++n) want(n, sim.next_wanted(0));
  std::vector<Key> woken;
  *most_keys = 0;
  while (!q.empty() && woken.size() < 20000) {
    *most_keys = std::max(*most_keys, q.size());
    const auto [t, n] = q.top();
    q.pop();
    if (sched[n] != t) continue;
    sched[n] = UINT64_MAX;
    woken.push_back({t, n});
    want(n, sim.next_wanted(t));
    // Something else gives another node work: its time may move.
    want(static_cast<uint32_t>(sim.rng() % nodes), sim.soon(t));
  }
  return woken;
}

std::vector<Key> keyed_wakes(uint64_t seed, uint32_t nodes, size_t* most_keys) {
  Sim sim(seed);
  MinQueue q;
  std::vector<WakeKeys> wk(nodes);
  auto want = [&](uint32_t n, uint64_t t) {
    if (wk[n].want(t)) q.push({t, n});
  };
  for (uint32_t n = 0; n < nodes; ++n) want(n, sim.next_wanted(0));
  std::vector<Key> woken;
  *most_keys = 0;
  while (!q.empty() && woken.size() < 20000) {
    *most_keys = std::max(*most_keys, q.size());
    const auto [t, n] = q.top();
    q.pop();
    switch (wk[n].pop(t)) {
      case WakeKeys::Popped::kDue:
        woken.push_back({t, n});
        want(n, sim.next_wanted(t));
        want(static_cast<uint32_t>(sim.rng() % nodes), sim.soon(t));
        break;
      case WakeKeys::Popped::kPushAgain:
        q.push({wk[n].time(), n});
        break;
      case WakeKeys::Popped::kStale:
        break;
    }
  }
  return woken;
}

TEST(WakeKeys, WakesAtTheSameTimesAsOneLiveKeyPerNodeWithFewKeysQueued) {
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    size_t ref_keys = 0, keys = 0;
    const std::vector<Key> ref = reference_wakes(seed, 16, &ref_keys);
    const std::vector<Key> got = keyed_wakes(seed, 16, &keys);
    ASSERT_EQ(ref.size(), 20000u);
    EXPECT_EQ(got, ref) << "seed " << seed;
    // The plain schedule keeps a stale far key for every wake-up within
    // the far timer's reach; the keyed one a few a node.
    EXPECT_GT(ref_keys, 1000u) << "seed " << seed;
    EXPECT_LE(keys, 16u * 4) << "seed " << seed;
  }
}

TEST(WakeKeys, AStaleKeyPushesTheWakeUpItStoodFor) {
  WakeKeys w;
  EXPECT_TRUE(w.want(1000));  // a far timer
  EXPECT_TRUE(w.want(10));    // something sooner: a key of its own
  EXPECT_EQ(w.keys(), 2u);
  EXPECT_EQ(w.pop(10), WakeKeys::Popped::kDue);
  EXPECT_FALSE(w.want(1500));  // the timer moved later: the key at 1000 stands for it
  EXPECT_EQ(w.time(), 1500u);
  EXPECT_EQ(w.pop(1000), WakeKeys::Popped::kPushAgain);
  EXPECT_EQ(w.keys(), 1u);
  EXPECT_EQ(w.pop(1500), WakeKeys::Popped::kDue);
  EXPECT_EQ(w.keys(), 0u);
  EXPECT_EQ(w.time(), WakeKeys::kNever);
}

TEST(WakeKeys, AKeyPopsStaleOrPushesAgainByWhatIsWantedAndWhatIsQueued) {
  WakeKeys w;
  EXPECT_TRUE(w.want(100));
  EXPECT_TRUE(w.want(50));
  EXPECT_EQ(w.pop(50), WakeKeys::Popped::kDue);
  EXPECT_EQ(w.pop(100), WakeKeys::Popped::kStale);  // nothing wanted
  EXPECT_TRUE(w.want(300));
  EXPECT_TRUE(w.want(200));
  EXPECT_TRUE(w.want(100));
  EXPECT_EQ(w.pop(100), WakeKeys::Popped::kDue);
  EXPECT_FALSE(w.want(250));  // the key at 200 pops first
  // The next key (300) is after 250: the stale one pushes 250.
  EXPECT_EQ(w.pop(200), WakeKeys::Popped::kPushAgain);
  EXPECT_EQ(w.time(), 250u);
  EXPECT_EQ(w.pop(250), WakeKeys::Popped::kDue);
  EXPECT_FALSE(w.want(400));  // the key at 300 pops first
  EXPECT_EQ(w.pop(300), WakeKeys::Popped::kPushAgain);
  EXPECT_EQ(w.pop(400), WakeKeys::Popped::kDue);
  EXPECT_TRUE(w.want(500));
  EXPECT_TRUE(w.want(450));
  EXPECT_EQ(w.pop(450), WakeKeys::Popped::kDue);
  EXPECT_TRUE(w.want(460));  // before the key at 500
  EXPECT_EQ(w.pop(460), WakeKeys::Popped::kDue);
  EXPECT_EQ(w.pop(500), WakeKeys::Popped::kStale);
  EXPECT_EQ(w.keys(), 0u);
}

}  // namespace
}  // namespace rocelb
