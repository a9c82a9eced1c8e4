// Which thread owns which switch and host of a fabric run (--threads N,
// fabric_shard.h). A host's NIC port goes with the switch it hangs off (its
// wire to its leaf never crosses threads; a dual-plane host's ports may go
// to two threads: they share nothing); the switches with hosts are cut into
// N runs of consecutive switches of about equal work (2 per host, 1 per
// switch-to-switch link end), and the switches without hosts (spines,
// aggregation and core) go one by one to the lightest shard. The outputs
// do not depend on it (every N gives the same bytes); the speed does.
// Knobs: the number of shards (capped at the number of switches).
// Counters: none.
#pragma once

#include <cstdint>
#include <vector>

#include "dataplane/sim/topology.h"

namespace rocelb {

struct FabricPartition {
  uint32_t shards = 1;
  std::vector<uint32_t> switch_shard;  // per switch
  std::vector<uint32_t> host_shard;    // per host NIC port (Topology::port())
  std::vector<uint64_t> work;          // per shard: its share of the weights above
};

FabricPartition partition_fabric(const Topology& topo, uint32_t threads);

}  // namespace rocelb
