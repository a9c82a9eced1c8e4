// What a fabric run will take of DPDK's memory, estimated from the topology
// before EAL starts, and the sizes the fabric run allocates by (so the
// estimate and the run cannot drift apart).
//
// Items: per switch, its config's route tables, group tables, neighbor
// table and egress rings as control/memory_estimate.h counts them (one
// worker, rings of kFabricRingSlots), plus a pause inbox per port; for the
// fabric, one packet pool of fabric_pool_mbufs() buffers, each big enough
// for the NICs' largest frame. Rings and inboxes take no memzone
// (egress_queue.h alloc_ring), so the only limit on a fabric's size is
// memory: `rocelb-dp fabric --max-memory` (default: the machine's physical
// memory) refuses a fabric whose estimate is larger, before anything
// starts, and EAL is given the estimate plus a margin.
//
// Knobs: none (the topology and NIC mtu). Counters: none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/sim/topology.h"

namespace rocelb {

// Slots of every egress ring of a fabric switch.
inline constexpr uint32_t kFabricRingSlots = 16384;

// The fabric's one packet pool grows to at most this many buffers: 32,768
// a switch (at least 65,535, at most 4,194,303), enough for every queue of
// a loaded fabric; a pool that runs dry drops with reason no_buffer, never
// silently.
uint32_t fabric_pool_mbufs(size_t switches);
// It starts with, and grows by, this many (growing_mbuf_pool.h).
inline constexpr uint32_t kFabricPoolChunk = 4096;
// The data room of each of its buffers: the NICs' largest frame (mtu) and
// 64 bytes for the replies the switch writes into a frame it answers (ARP,
// NDP: under 90 bytes).
uint32_t fabric_mbuf_room(uint32_t mtu);
// What one buffer of the pool takes: mempool header, rte_mbuf, note,
// headroom and room, packed (no page alignment).
uint64_t fabric_pool_object_bytes(uint32_t mtu);

struct FabricMemory {
  uint64_t route_tables = 0;
  uint64_t egress_rings = 0;  // with the pause inboxes
  uint64_t other = 0;         // group and neighbor tables
  uint64_t packet_pool = 0;
  uint64_t total = 0;
  size_t switches = 0;
  std::vector<uint64_t> per_switch;  // each switch's tables, rings and inboxes
  // "3.51 GB (20 switches: route tables 2.01 GB, egress rings ...)".
  std::string describe() const;
};

FabricMemory estimate_fabric_memory(const Topology& topo);

// The machine's physical memory in bytes (sysconf), the default limit.
uint64_t physical_memory_bytes();

// The megabytes to give EAL (-m) for a fabric estimated at `bytes`: the
// estimate, a quarter more for DPDK's own (heap headers, alignment,
// memzones) and 512 MB, and never less than 1024. Not more: without
// hugepages EAL describes every 4 KiB page of it up front (48 bytes a page
// of resident memory: 8192 MB cost 100 MB before anything ran). The packet
// pool's chunks are process memory (growing_mbuf_pool.h), so this is room
// to spare.
unsigned fabric_eal_memory_mb(uint64_t bytes);

}  // namespace rocelb
