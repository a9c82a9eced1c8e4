// What a fabric allocates, against what its estimate says and what it
// touches: the ConWeave preset's route tables are compact (not 100 MB a
// switch), the pool's buffers hold the NICs' largest frame without a
// 2048-byte floor and are the size the estimate counts, EAL is not given
// 8 GB whatever the fabric, a ring's untouched slots cost no resident
// memory, a ring that carries traffic goes round and becomes resident whole
// (what the estimate counts for it) while one that never does keeps only
// its header's pages, the estimate counts whole only the rings of classes
// the fabric's DSCPs map to, and summary.json's cost.memory adds up.
#include <gtest/gtest.h>
#include <malloc.h>
#include <rte_malloc.h>
#include <sys/mman.h>

#include <bitset>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// --pool-mbufs replaces the default, and the estimate counts what it asks.
TEST(FabricMemory, ThePoolsMostCanBeAskedForAndIsEstimated) {
  EXPECT_EQ(fabric_pool_mbufs(1000, 8'388'607), 8'388'607u);
  EXPECT_EQ(fabric_pool_mbufs(12, 1024), 1024u);
  const Topology t = load_topology_file(kConweave);
  const FabricMemory base = estimate_fabric_memory(t);
  const uint32_t twice = 2 * fabric_pool_mbufs(t.switches.size());
  const FabricMemory more = estimate_fabric_memory(t, nullptr, twice);
  EXPECT_EQ(more.total - base.total, more.packet_pool - base.packet_pool);
  EXPECT_GT(more.packet_pool, base.packet_pool * 19 / 10);
  EXPECT_LT(estimate_fabric_memory(t, nullptr, 1024).packet_pool, base.packet_pool / 100);
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

// Pages of [p, p + bytes) resident now (mincore), from p's page on.
uint64_t resident_pages(const void* p, uint64_t bytes) {
  const uintptr_t start = reinterpret_cast<uintptr_t>(p) / 4096 * 4096;
  const uint64_t len = reinterpret_cast<uintptr_t>(p) + bytes - start;
  std::vector<unsigned char> v((len + 4095) / 4096);
  if (mincore(reinterpret_cast<void*>(start), len, v.data()) != 0) return UINT64_MAX;
  uint64_t n = 0;
  for (unsigned char c : v) n += c & 1;
  return n;
}

TEST(FabricMemory, PagesSpannedCountTheOneAnUnalignedBlockCrossesInto) {
  EXPECT_EQ(pages_spanned(0), 0u);
  EXPECT_EQ(pages_spanned(1), 1u);
  EXPECT_EQ(pages_spanned(400), 2u);  // a ring's header at the end of a page
  EXPECT_EQ(pages_spanned(4096), 2u);
  EXPECT_EQ(pages_spanned(4097), 2u);
  EXPECT_EQ(pages_spanned(8193), 3u);
}

// The ring's positions go round: one packet at a time, held no longer than
// the next, still writes every slot once as many have passed as it has
// slots. So a ring that carries traffic is counted whole, whatever its
// queue's byte limit lets it hold at once, and one that never does only by
// its header's pages.
TEST(FabricMemory, ARingThatCarriesTrafficBecomesResidentWholeOneThatDoesNotStaysAHeader) {
  ASSERT_NO_THROW(test::start_eal());
  // No page an earlier test touched and freed: glibc hands those out again,
  // resident already (a run's peak is not raised by them).
  malloc_trim(0);
  const uint64_t bytes = rte_ring_get_memsize(kFabricRingSlots);
  rte_ring* idle = alloc_ring("fm_idle", sizeof(void*), kFabricRingSlots, 0);
  rte_ring* busy = alloc_ring("fm_busy", sizeof(void*), kFabricRingSlots, 0);
  ASSERT_NE(idle, nullptr);
  ASSERT_NE(busy, nullptr);
  const uint64_t header = fabric_ring_resident_bytes(sizeof(void*), kFabricRingSlots, false);
  const uint64_t whole = fabric_ring_resident_bytes(sizeof(void*), kFabricRingSlots, true);
  EXPECT_LE(resident_pages(busy, bytes) * 4096, header);
  int token = 0;
  void* out = nullptr;
  for (uint32_t i = 0; i < kFabricRingSlots; ++i) {  // never more than one held
    ASSERT_EQ(rte_ring_enqueue(busy, &token), 0);
    ASSERT_EQ(rte_ring_dequeue(busy, &out), 0);
  }
  EXPECT_GE(resident_pages(busy, bytes), bytes / 4096);  // every page of its slots
  EXPECT_LE(resident_pages(busy, bytes) * 4096, whole);
  EXPECT_LE(resident_pages(idle, bytes) * 4096, header);
  EXPECT_GT(whole, kFabricRingSlots * sizeof(void*));
  EXPECT_LE(header, 2u * 4096);
  free_ring(idle);
  free_ring(busy);
}

TEST(FabricMemory, TheFabricsDscpsAreItsFlowsItsAcksAndItsCnps) {
  NicParams nic;  // data 26, ACKs with the flow's, CNPs 48
  Workload wl;
  wl.flows.resize(3);
  wl.flows[1].dscp = 10;
  std::bitset<64> want;
  want.set(26).set(10).set(48);
  EXPECT_EQ(fabric_dscps(nic, &wl), want);
  nic.ack_dscp = 46;
  nic.dcqcn.cnp_dscp = 40;
  want.reset(48).set(46).set(40);
  EXPECT_EQ(fabric_dscps(nic, &wl), want);
  EXPECT_TRUE(fabric_dscps(nic, nullptr).all());  // no workload: any DSCP may come
}

// The ConWeave preset maps DSCP 26 to class 3, 48 to 6, the rest to 0: a
// workload of default flows uses 2 classes of 8, one naming DSCP 10 a
// third, and without a workload all three count.
TEST(FabricMemory, TheEstimateCountsWholeOnlyRingsOfClassesTheFabricsDscpsMapTo) {
  const Topology topo = load_topology_file(kConweave);
  uint64_t ports = 0;
  for (const FabricSwitch& s : topo.switches) ports += s.params.ports.size();
  const uint64_t whole = fabric_ring_resident_bytes(sizeof(void*), kFabricRingSlots, true);
  const uint64_t header = fabric_ring_resident_bytes(sizeof(void*), kFabricRingSlots, false);
  const uint64_t inbox = fabric_ring_resident_bytes(32, 1024, true);  // sizeof(PauseEvent)
  Workload wl;
  wl.flows.resize(2);
  for (const auto& [flow_dscp, classes] :
       std::vector<std::pair<std::optional<uint8_t>, uint64_t>>{{std::nullopt, 2}, {10, 3}}) {
    wl.flows[1].dscp = flow_dscp;
    const FabricMemory m = estimate_fabric_memory(topo, &wl);
    EXPECT_EQ(m.rings_in_use, ports * classes);
    EXPECT_EQ(m.rings_idle, ports * (8 - classes));
    EXPECT_EQ(m.egress_rings, ports * (classes * whole + (8 - classes) * header + inbox));
    EXPECT_NE(m.describe().find(std::to_string(ports * classes) + " of " +
                                std::to_string(ports * 8) + " rings can carry traffic"),
              std::string::npos)
        << m.describe();
  }
  EXPECT_EQ(estimate_fabric_memory(topo).rings_in_use, ports * 3);
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
