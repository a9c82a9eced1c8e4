// What a fabric allocates, against what its estimate says and what it
// touches: the ConWeave preset's route tables are compact (not 100 MB a
// switch), the pool's buffers hold the NICs' largest frame without a
// 2048-byte floor and are the size the estimate counts, EAL is not given
// 8 GB whatever the fabric, a ring's untouched slots cost no resident
// memory, and summary.json's cost.memory adds up.
#include <gtest/gtest.h>
#include <rte_malloc.h>

#include <fstream>
#include <string>

#include "dataplane/forward/egress_queue.h"
#include "dataplane/forward/packet_observer.h"
#include "dataplane/run/fabric_memory.h"
#include "dataplane/run/growing_mbuf_pool.h"
#include "dataplane/sim/fabric_summary.h"
#include "dataplane/sim/ideal_fct.h"
#include "dataplane/sim/topology.h"
#include "tests/dataplane/test_support.h"

namespace rocelb {
namespace {

const std::string kConweave =
    std::string(ROCELB_SOURCE_DIR) + "/configs/fabrics/leaf_spine_32_100G_OS2_conweave.yaml";

uint64_t rss_bytes() {
  std::ifstream f("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  f >> size >> resident;
  return resident * 4096;
}

TEST(FabricMemory, TheConweavePresetsSwitchesTakeMegabytes) {
  const Topology topo = load_topology_file(kConweave);
  const FabricMemory m = estimate_fabric_memory(topo);
  ASSERT_EQ(m.switches, 8u);
  EXPECT_LT(m.route_tables, 64u << 10);  // compact tables: tens of routes each
  ASSERT_EQ(m.per_switch.size(), 8u);
  uint64_t sum = 0;
  for (uint64_t b : m.per_switch) sum += b;
  EXPECT_EQ(sum, m.route_tables + m.egress_rings + m.other);
  EXPECT_EQ(m.total, sum + m.packet_pool);
  EXPECT_LT(m.total, 600u << 20) << m.describe();
}

// As many as before up to 8 switches; beyond, 32k a switch (a 1,024-host
// fabric held 245,760 after 1 ms of alistorage_50).
TEST(FabricMemory, ThePoolsMostGrowsWithTheSwitches) {
  EXPECT_EQ(fabric_pool_mbufs(1), 65'535u);
  EXPECT_EQ(fabric_pool_mbufs(8), 262'143u);
  EXPECT_EQ(fabric_pool_mbufs(48), 48u * 32'768 - 1);
  EXPECT_EQ(fabric_pool_mbufs(1000), 4'194'303u);
}

TEST(FabricMemory, BuffersHoldTheLargestFrameAndNoMore) {
  EXPECT_EQ(fabric_mbuf_room(1024), roce_data_frame_bytes(1024) + 64);
  EXPECT_LT(fabric_mbuf_room(1024), 2048u);
  EXPECT_EQ(fabric_mbuf_room(4096), roce_data_frame_bytes(4096) + 64);
}

TEST(FabricMemory, TheEstimateCountsTheBuffersThePoolMakes) {
  ASSERT_NO_THROW(test::start_eal());
  for (uint32_t mtu : {256u, 1024u, 4096u}) {
    GrowingMbufPool pool("fm_pool" + std::to_string(mtu), 8192, kPacketNotePrivSize,
                         static_cast<uint16_t>(fabric_mbuf_room(mtu) + RTE_PKTMBUF_HEADROOM));
    const rte_mempool* mp = pool.get();
    EXPECT_EQ(fabric_pool_object_bytes(mtu),
              uint64_t{mp->header_size} + mp->elt_size + mp->trailer_size)
        << mtu;
  }
}

TEST(FabricMemory, EalGetsTheEstimateNotEightGigabytes) {
  EXPECT_EQ(fabric_eal_memory_mb(uint64_t{475} << 20), 475 + 118 + 512u);
  EXPECT_EQ(fabric_eal_memory_mb(0), 1024u);
  EXPECT_EQ(fabric_eal_memory_mb(uint64_t{8} << 30), 8192 + 2048 + 512u);
}

// A ring is not zeroed: slots never used are never touched, at its
// creation or when it is freed.
TEST(FabricMemory, ARingsUnusedSlotsCostNoResidentMemory) {
  ASSERT_NO_THROW(test::start_eal());
  const uint64_t before = rss_bytes();
  rte_ring* r = alloc_ring("fm_ring", sizeof(void*), 1u << 21, 0);  // 16 MiB of slots
  ASSERT_NE(r, nullptr);
  const uint64_t after = rss_bytes();
  free_ring(r);  // nor when it goes (rte_free would zero it all)
  const uint64_t freed = rss_bytes();
  // Under AddressSanitizer a free poisons the block's shadow: one byte per
  // eight freed (2 MiB here), still far below the 16 MiB zeroing would touch.
#if defined(__SANITIZE_ADDRESS__)
  constexpr uint64_t kShadow = (uint64_t{1} << 24) / 8;
#else
  constexpr uint64_t kShadow = 0;
#endif
  EXPECT_LT(after - before, 2u << 20);
  EXPECT_LT(freed > before ? freed - before : 0, (2u << 20) + kShadow);
}

TEST(FabricMemory, SummaryCostMemoryAddsUp) {
  MemoryFacts m;
  m.switch_bytes = {{"leaf0", 1000}, {"spine0", 3000}};
  m.pool_mbufs = 4096;
  m.pool_max_mbufs = 65535;
  m.pool_mbuf_bytes = 1536;
  m.host_bytes = {100, 200, 600};
  const auto j = memory_cost(m);
  EXPECT_EQ(j["switches"]["count"], 2);
  EXPECT_EQ(j["switches"]["bytes_total"], 4000);
  EXPECT_EQ(j["switches"]["bytes_each_mean"], 2000);
  EXPECT_EQ(j["switches"]["bytes_each_max"], 3000);
  EXPECT_EQ(j["switches"]["bytes"]["spine0"], 3000);
  EXPECT_EQ(j["packet_pool"]["bytes"], 4096 * 1536);
  EXPECT_EQ(j["packet_pool"]["bytes_per_switch"], 4096 * 1536 / 2);
  EXPECT_EQ(j["hosts"]["count"], 3);
  EXPECT_EQ(j["hosts"]["bytes_each_mean"], 300);
  EXPECT_EQ(j["hosts"]["bytes_each_max"], 600);
  for (const char* part : {"switches", "packet_pool", "hosts"})
    EXPECT_FALSE(j[part]["counted"].get<std::string>().empty()) << part;
}

}  // namespace
}  // namespace rocelb
