#include "dataplane/run/fabric_memory.h"

#include <rte_mbuf.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <numeric>

#include "common/constants.h"
#include "control/human_units.h"
#include "control/memory_estimate.h"
#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/packet_observer.h"
#include "dataplane/sim/ideal_fct.h"

namespace rocelb {
namespace {

constexpr uint64_t kPage = 4096;             // --no-huge: DPDK's pages are the system's
constexpr uint64_t kPauseInboxSlots = 1024;  // dataplane.cc kPauseInboxSize
constexpr uint64_t kMallocHeader = 16;       // glibc's chunk header, before what it returns

uint64_t ring_bytes(uint64_t elem_bytes, uint64_t slots) {
  return (dpdk_bytes::kRingHeader + elem_bytes * slots + 63) / 64 * 64;
}

}  // namespace

uint64_t pages_spanned(uint64_t bytes, uint64_t page_bytes) {
  return bytes == 0 ? 0 : (bytes - 1 + page_bytes - 1) / page_bytes + 1;
}

uint64_t fabric_ring_resident_bytes(uint64_t elem_bytes, uint64_t slots, bool carries_traffic) {
  const uint64_t bytes =
      kMallocHeader + (carries_traffic ? ring_bytes(elem_bytes, slots) : dpdk_bytes::kRingHeader);
  return pages_spanned(bytes, kPage) * kPage;
}

std::bitset<64> fabric_dscps(const NicParams& nic, const Workload* workload) {
  std::bitset<64> d;
  if (!workload) return d.set();
  // Data, and ACK/NAKs unless nic.ack_dscp gives them their own.
  for (const FabricFlow& f : workload->flows) d.set(f.dscp.value_or(nic.data_dscp) & 63);
  if (nic.ack_dscp) d.set(*nic.ack_dscp & 63);
  d.set(nic.dcqcn.cnp_dscp & 63);
  return d;
}

uint32_t fabric_pool_mbufs(size_t switches, uint32_t asked) {
  if (asked) return asked;
  const uint64_t want = 32'768 * static_cast<uint64_t>(switches) - 1;
  // Up to 8 switches as the fixed pool had it (at most 262,143); beyond, 32k
  // a switch, since a buffer is only made when a packet needs it.
  return static_cast<uint32_t>(std::clamp<uint64_t>(want, 65'535, 4'194'303));
}

uint32_t fabric_mbuf_room(uint32_t mtu) {
  // No 2048-byte floor (DPDK's default room, which the pool took when it
  // was made): nothing in a fabric writes past a frame but the switch's own
  // ARP and NDP replies, which the 64 bytes hold.
  return roce_data_frame_bytes(mtu) + 64;
}

uint64_t fabric_pool_object_bytes(uint32_t mtu) {
  // As rte_mempool_calc_obj_size lays out a packed (RTE_MEMPOOL_F_NO_IOVA_CONTIG)
  // object: its 64-byte header, then the element, in whole cache lines; a
  // count of lines prime to EAL's memory channels times ranks (4 and 1:
  // EAL's defaults, what the fabric starts it with), so objects spread
  // over the channels.
  const uint64_t elt =
      sizeof(rte_mbuf) + kPacketNotePrivSize + RTE_PKTMBUF_HEADROOM + fabric_mbuf_room(mtu);
  uint64_t lines = 1 + (elt + 63) / 64;
  while (std::gcd(lines, uint64_t{4}) != 1) ++lines;
  return lines * 64;
}

FabricMemory estimate_fabric_memory(const Topology& topo, const Workload* workload,
                                    uint32_t pool_mbufs) {
  FabricMemory m;
  m.switches = topo.switches.size();
  MemoryRuntime rt;
  rt.workers = 1;
  rt.ring_capacity = kFabricRingSlots;
  rt.page_bytes = kPage;
  const std::bitset<64> dscps = fabric_dscps(topo.nic, workload);
  const uint64_t used = fabric_ring_resident_bytes(sizeof(rte_mbuf*), kFabricRingSlots, true);
  const uint64_t idle = fabric_ring_resident_bytes(sizeof(rte_mbuf*), kFabricRingSlots, false);
  const uint64_t inbox = fabric_ring_resident_bytes(sizeof(PauseEvent), kPauseInboxSlots, true);
  for (const FabricSwitch& s : topo.switches) {
    const MemoryEstimate e = estimate_memory(s.params, rt);
    const uint64_t before = m.route_tables + m.egress_rings + m.other;
    for (const MemoryItem& i : e.items) {
      if (i.name == "route_tables")
        m.route_tables += i.bytes;
      else if (i.name == "group_tables" || i.name == "neighbor_table")
        m.other += i.bytes;
      // egress_rings: counted below, by what they can make resident;
      // packet_pool and control_replies: a fabric switch has neither.
    }
    uint32_t classes = 0;  // a bit per class some DSCP of the fabric maps to
    for (size_t d = 0; d < dscps.size(); ++d)
      if (dscps[d]) classes |= 1u << s.params.qos.dscp_to_tc[d];
    const uint64_t ports = s.params.ports.size();
    const uint64_t in_use = ports * static_cast<uint64_t>(std::popcount(classes));
    const uint64_t rings_idle = ports * kNumTrafficClasses - in_use;
    m.rings_in_use += in_use;
    m.rings_idle += rings_idle;
    m.egress_rings += in_use * used + rings_idle * idle + ports * inbox;
    m.per_switch.push_back(m.route_tables + m.egress_rings + m.other - before);
  }
  // One pool grown to its most: each buffer packed (growing_mbuf_pool.h),
  // a cache line a chunk, its ring and the mempool with its lcore caches.
  const uint64_t n = fabric_pool_mbufs(m.switches, pool_mbufs);
  uint64_t slots = 1;
  while (slots < n + 1) slots <<= 1;
  const uint64_t chunks = (n + kFabricPoolChunk - 1) / kFabricPoolChunk;
  m.packet_pool = n * fabric_pool_object_bytes(topo.nic.mtu) + chunks * 64 + ring_bytes(8, slots) +
                  dpdk_bytes::kMempoolWithCaches;
  m.total = m.route_tables + m.egress_rings + m.other + m.packet_pool;
  return m;
}

std::string FabricMemory::describe() const {
  return human_bytes(static_cast<double>(total)) + " (" + std::to_string(switches) +
         " switches: route tables " + human_bytes(static_cast<double>(route_tables)) +
         ", egress rings " + human_bytes(static_cast<double>(egress_rings)) + " (" +
         std::to_string(rings_in_use) + " of " + std::to_string(rings_in_use + rings_idle) +
         " rings can carry traffic), packet pool " + human_bytes(static_cast<double>(packet_pool)) +
         ", other tables " + human_bytes(static_cast<double>(other)) + ")";
}

uint64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

unsigned fabric_eal_memory_mb(uint64_t bytes) {
  const uint64_t mb = (bytes + bytes / 4) / (1024 * 1024) + 512;
  return static_cast<unsigned>(std::clamp<uint64_t>(mb, 1024, UINT32_MAX));
}

}  // namespace rocelb
