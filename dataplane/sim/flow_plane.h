// Which plane a flow of a multi-plane fabric runs on (topology.h `planes`):
// the flow is one QP, bound to one NIC port of its sender and the port of
// the same plane at its receiver, so it stays in that plane end to end. The
// plane is drawn per flow from the run's seed and the flow's id, as a NIC
// driver or collective library spreads QPs over its ports: every plane is
// equally likely for every flow, flows of one host spread over its ports,
// and another seed is another draw (as the flows' UDP source ports are).
// The draw is independent of the source port's. With one plane, 0.
// Knobs: the seed, the number of planes. Counters: none.
#pragma once

#include <cstdint>

#include "lb/lb_rng.h"

namespace rocelb {

inline uint32_t flow_plane(uint64_t seed, uint64_t flow_id, uint32_t planes) {
  if (planes <= 1) return 0;
  constexpr uint64_t kPlaneSalt = 0x706c616e65;  // "plane": not the source port's stream
  const uint64_t draw = mix_seed(mix_seed(seed, kPlaneSalt), flow_id);
  return static_cast<uint32_t>((draw >> 32) % planes);
}

}  // namespace rocelb
