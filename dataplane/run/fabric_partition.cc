#include "dataplane/run/fabric_partition.h"

#include <algorithm>

namespace rocelb {

FabricPartition partition_fabric(const Topology& topo, uint32_t threads) {
  FabricPartition p;
  const size_t n = topo.switches.size();
  p.shards = static_cast<uint32_t>(std::clamp<size_t>(threads, 1, std::max<size_t>(n, 1)));
  std::vector<uint64_t> weight(n, 0), hosts(n, 0);
  for (size_t k = 0; k < topo.port_count(); ++k) {
    weight[topo.port(k).sw] += 2;
    ++hosts[topo.port(k).sw];
  }
  for (const FabricLink& l : topo.links) {
    ++weight[l.a_sw];
    ++weight[l.b_sw];
  }
  p.switch_shard.assign(n, 0);
  p.work.assign(p.shards, 0);
  uint64_t with_hosts = 0;
  for (size_t s = 0; s < n; ++s)
    if (hosts[s]) with_hosts += weight[s];
  // Switches with hosts: consecutive runs, shard k up to (k+1)/N of their work.
  uint64_t seen = 0;
  uint32_t k = 0;
  for (size_t s = 0; s < n; ++s) {
    if (!hosts[s]) continue;
    while (k + 1 < p.shards && seen * p.shards >= (k + 1) * with_hosts) ++k;
    p.switch_shard[s] = k;
    p.work[k] += weight[s];
    seen += weight[s];
  }
  // The others: each to the lightest shard (the lowest index on a tie).
  for (size_t s = 0; s < n; ++s) {
    if (hosts[s]) continue;
    const auto lightest = std::min_element(p.work.begin(), p.work.end()) - p.work.begin();
    p.switch_shard[s] = static_cast<uint32_t>(lightest);
    p.work[static_cast<size_t>(lightest)] += weight[s];
  }
  p.host_shard.resize(topo.port_count());
  for (size_t k = 0; k < topo.port_count(); ++k) p.host_shard[k] = p.switch_shard[topo.port(k).sw];
  return p;
}

}  // namespace rocelb
