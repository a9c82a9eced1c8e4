// Open-loop Poisson flow arrivals over a fabric's hosts, the model of the
// HPCC/ConWeave traffic generator (traffic_gen/traffic_gen.py): every host is
// an independent Poisson source with rate
//   lambda = host_speed_bps * load / (8 * mean_bytes)   flows/s
// so that on average it offers `load` of its link (of its links: with
// planes > 1 host_speed_bps is the host's ports' together, Topology::host_bps);
// each flow's size is drawn
// from the CDF, its destination uniformly from the allowed hosts (other
// leaves only, or any other host). Unlike that generator, a host's arrivals
// are all those in [0, duration) (it drops each host's last one) and start
// times keep fractions of a nanosecond until they are floored.
// Draws, from WorkloadRandom(seed, host index), per flow: the gap to this
// arrival (exponential), the destination index, the size (one uniform each).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/topology.h"
#include "dataplane/sim/workload.h"

namespace rocelb {

struct PoissonParams {
  const FlowSizeCdf* cdf = nullptr;
  double load = 0;  // 0 < load <= 1
  uint64_t duration_ns = 0;
  bool inter_leaf = true;  // destinations on other leaves only
  uint64_t max_flows = kDefaultMaxFlows;
  // Only hosts below this index start flows (the others still receive):
  // each host draws from its own stream, so the senders' flows are the
  // same as with every host sending.
  uint32_t senders = UINT32_MAX;
};

// Flows per second one host of this speed starts.
double poisson_rate_per_s(uint64_t host_speed_bps, double load, double mean_bytes);

// The destinations host `src` may draw from, in host order.
std::vector<uint32_t> poisson_destinations(const Topology& topo, uint32_t src, bool inter_leaf);

// The flows host by host, each host's in time order (ids not set), or
// nullopt when there would be more than max_flows. Every host must have at
// least one destination.
std::optional<std::vector<FabricFlow>> poisson_flows(const Topology& topo, const PoissonParams& p,
                                                     uint64_t seed);

}  // namespace rocelb
