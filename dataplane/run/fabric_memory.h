// What a fabric run will take of memory, estimated from the topology (and
// the workload, where the caller has it) before EAL starts, and the sizes
// the fabric run allocates by (so the estimate and the run cannot drift
// apart).
//
// Items: per switch, its config's route tables, group tables and neighbor
// table as control/memory_estimate.h counts them (one worker), its egress
// rings and pause inboxes by what they can make resident (below); for the
// fabric, one packet pool of fabric_pool_mbufs() buffers, each big enough
// for the NICs' largest frame. Rings and inboxes are process memory, not
// zeroed and taking no memzone (egress_queue.h alloc_ring): a ring's pages
// become resident only when written. A ring's positions go round, so once
// as many elements as it has slots have passed through it every slot was
// written, however few it held at once: a ring that carries traffic is
// counted whole (every page its slots and header span), one that never
// can only by the pages its header spans. Which rings can carry traffic:
// the fabric's frames come from its hosts' NICs only (RoCE over IPv4,
// untagged: data, ACK/NAK, CNP; no ARP, NDP or echo, so no local replies),
// so a switch's queue of class c carries traffic only if one of the DSCPs
// those frames carry maps to c (qos.dscp_to_tc, unlisted: default_tc):
// fabric_dscps() says which DSCPs, from the NIC and the workload; without
// a workload every DSCP counts. Pause inboxes are counted whole.
// `rocelb-dp fabric --max-memory` (default: the machine's physical memory)
// refuses a fabric whose estimate is larger, before anything starts, and
// EAL is given the estimate plus a margin.
//
// Knobs: none (the topology, its NIC's mtu and DSCPs, the workload's
// DSCPs). Counters: none.
#pragma once

#include <bitset>
#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {

// Slots of every egress ring of a fabric switch.
inline constexpr uint32_t kFabricRingSlots = 16384;

// The fabric's one packet pool grows to at most this many buffers: by
// default 32,768 a switch (at least 65,535, at most 4,194,303), enough for
// every queue of a loaded fabric of up to 128 switches; `asked` (rocelb-dp
// fabric --pool-mbufs, not 0) instead. A pool that runs dry drops with
// reason no_buffer, never silently.
uint32_t fabric_pool_mbufs(size_t switches, uint32_t asked = 0);
// The most --pool-mbufs may ask (a ring of 2^30 slots).
inline constexpr uint32_t kMaxFabricPoolMbufs = (uint32_t{1} << 30) - 1;
// It starts with, and grows by, this many (growing_mbuf_pool.h).
inline constexpr uint32_t kFabricPoolChunk = 4096;
// The data room of each of its buffers: the NICs' largest frame (mtu) and
// 64 bytes for the replies the switch writes into a frame it answers (ARP,
// NDP: under 90 bytes).
uint32_t fabric_mbuf_room(uint32_t mtu);
// What one buffer of the pool takes: mempool header, rte_mbuf, note,
// headroom and room, packed (no page alignment).
uint64_t fabric_pool_object_bytes(uint32_t mtu);

// The pages of `page_bytes` a block of `bytes` (> 0) at any address can
// span: one more than it fills when it does not start on a page.
uint64_t pages_spanned(uint64_t bytes, uint64_t page_bytes = 4096);

// What one ring of `slots` slots of `elem_bytes` (as alloc_ring makes it:
// the malloc chunk's header, DPDK's ring header, the slots) can make
// resident: every page it spans when it carries traffic, the pages its
// header spans when it never does.
uint64_t fabric_ring_resident_bytes(uint64_t elem_bytes, uint64_t slots, bool carries_traffic);

// The DSCPs a fabric's frames can carry: each flow's own (nic.data_dscp for
// a flow that names none) on its data and, unless nic.ack_dscp is set, its
// ACK/NAKs; nic.ack_dscp if set; nic.dcqcn.cnp_dscp. Without a workload
// (null): all 64.
std::bitset<64> fabric_dscps(const NicParams& nic, const Workload* workload);

struct FabricMemory {
  uint64_t route_tables = 0;
  uint64_t egress_rings = 0;  // with the pause inboxes
  uint64_t other = 0;         // group and neighbor tables
  uint64_t packet_pool = 0;
  uint64_t total = 0;
  size_t switches = 0;
  uint64_t rings_in_use = 0;         // egress rings of classes the fabric's DSCPs map to
  uint64_t rings_idle = 0;           // the others, counted by their header's pages
  std::vector<uint64_t> per_switch;  // each switch's tables, rings and inboxes
  // "3.51 GB (20 switches: route tables 2.01 GB, egress rings 1.2 GB (320
  // of 1280 rings can carry traffic), ...)".
  std::string describe() const;
};

// Null workload: every DSCP may come (the summary's per-switch figure); the
// workload that will run: only its DSCPs (the refusal before a run).
// `pool_mbufs` as fabric_pool_mbufs' `asked`.
FabricMemory estimate_fabric_memory(const Topology& topo, const Workload* workload = nullptr,
                                    uint32_t pool_mbufs = 0);

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
