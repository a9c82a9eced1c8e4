// GrowingMbufPool: memory only as the mbufs are needed, yet every one of
// `capacity` mbufs can be had, and not one more; and a replay's pool holds
// what the run held, not its whole bound.
#include "dataplane/run/growing_mbuf_pool.h"

#include <gtest/gtest.h>
#include <rte_mbuf.h>

#include <atomic>
#include <string>
#include <vector>

#include "dataplane/forward/mbuf_util.h"
#include "dataplane/run/replay_run.h"
#include "test_support.h"

namespace rocelb {
namespace {

std::string pool_name() {
  static std::atomic<int> seq{0};
  return "grow_pool" + std::to_string(seq++);
}

TEST(GrowingMbufPool, StartsWithOneChunkAndGivesEveryMbufOfItsCapacityNoMore) {
  ASSERT_NO_THROW(test::start_eal());
  GrowingMbufPool pool(pool_name(), 10000, 64, RTE_MBUF_DEFAULT_BUF_SIZE, 1000, 100);
  EXPECT_EQ(pool.capacity(), 10000u);
  EXPECT_EQ(pool.populated(), 0u);  // nothing until asked
  pool.keep_free();
  EXPECT_EQ(pool.populated(), 1000u);
  std::vector<rte_mbuf*> held;
  for (;;) {
    pool.keep_free();  // as a run does before each event
    rte_mbuf* m = rte_pktmbuf_alloc(pool.get());
    if (!m) break;
    // Each mbuf is whole: its data room, its private area, one segment.
    EXPECT_EQ(rte_pktmbuf_tailroom(m), RTE_MBUF_DEFAULT_BUF_SIZE - RTE_PKTMBUF_HEADROOM);
    EXPECT_EQ(rte_pktmbuf_priv_size(pool.get()), 64u);
    EXPECT_EQ(m->nb_segs, 1);
    held.push_back(m);
  }
  EXPECT_EQ(held.size(), 10000u);
  EXPECT_EQ(pool.populated(), 10000u);
  EXPECT_EQ(mbufs_in_use(pool.get()), 10000u);
  for (rte_mbuf* m : held) rte_pktmbuf_free(m);
  EXPECT_EQ(mbufs_in_use(pool.get()), 0u);
}

TEST(GrowingMbufPool, ChunksAreAddedOnlyWhenFewerThanTheHeadroomAreFree) {
  ASSERT_NO_THROW(test::start_eal());
  GrowingMbufPool pool(pool_name(), 10000, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 1000, 100);
  pool.keep_free();
  std::vector<rte_mbuf*> held;
  for (int i = 0; i < 900; ++i) {  // 100 left free: enough
    held.push_back(rte_pktmbuf_alloc(pool.get()));
    pool.keep_free();
  }
  EXPECT_EQ(pool.populated(), 1000u);
  held.push_back(rte_pktmbuf_alloc(pool.get()));  // 99 free
  pool.keep_free();
  EXPECT_EQ(pool.populated(), 2000u);
  for (rte_mbuf* m : held) rte_pktmbuf_free(m);
}

TEST(GrowingMbufPool, AReplayOfAFewFramesTouchesOneChunkOfItsBound) {
  ASSERT_NO_THROW(test::start_eal());
  ReplayRun e(SwitchConfig::build(test::default_params()), 65535);
  EXPECT_EQ(e.pool()->size, 65535u);
  EXPECT_EQ(e.pool()->populated_size, GrowingMbufPool::kDefaultChunk);
  EXPECT_EQ(mbufs_in_use(e.pool()), 0u);
}

}  // namespace
}  // namespace rocelb
