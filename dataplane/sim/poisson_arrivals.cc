#include "dataplane/sim/poisson_arrivals.h"

#include "dataplane/sim/workload_random.h"

namespace rocelb {

double poisson_rate_per_s(uint64_t host_speed_bps, double load, double mean_bytes) {
  return double(host_speed_bps) * load / (8 * mean_bytes);
}

std::vector<uint32_t> poisson_destinations(const Topology& topo, uint32_t src, bool inter_leaf) {
  std::vector<uint32_t> out;
  for (uint32_t h = 0; h < topo.hosts.size(); ++h) {
    if (h == src) continue;
    if (inter_leaf && topo.hosts[h].sw == topo.hosts[src].sw) continue;
    out.push_back(h);
  }
  return out;
}

std::optional<std::vector<FabricFlow>> poisson_flows(const Topology& topo, const PoissonParams& p,
                                                     uint64_t seed) {
  std::vector<FabricFlow> flows;
  const double end = double(p.duration_ns);
  const uint32_t senders = std::min<uint64_t>(p.senders, topo.hosts.size());
  for (uint32_t src = 0; src < senders; ++src) {
    const std::vector<uint32_t> dsts = poisson_destinations(topo, src, p.inter_leaf);
    const double mean_gap_ns =
        1e9 / poisson_rate_per_s(topo.host_bps(src), p.load, p.cdf->mean_bytes());
    WorkloadRandom rng(seed, src);
    double t = 0;
    while (true) {
      t += rng.exponential(mean_gap_ns);
      if (t >= end) break;
      if (flows.size() == p.max_flows) return std::nullopt;
      FabricFlow f;
      f.src = src;
      f.dst = dsts[rng.below(dsts.size())];
      f.size_bytes = p.cdf->sample(rng.uniform());
      f.start_ns = uint64_t(t);  // floor: t >= 0
      flows.push_back(f);
    }
  }
  return flows;
}

}  // namespace rocelb
