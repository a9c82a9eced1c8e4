// Preset `cdf`: open-loop traffic with flow sizes from a published
// distribution, as the HPCC/ConWeave experiments generate it. Reuses the
// fabric code: the CDF (dataplane/sim/flow_size_cdf.h: AliStorage2019,
// WebSearch, FbHdp2015, GoogleRPC2008) and the Poisson arrivals
// (poisson_arrivals.h), over a topology of `hosts` senders on this leaf's
// host ports and `remotes` receivers on another leaf: every sender starts
// flows at rate host_speed x load / (8 x mean size), each of a size drawn
// from the CDF, to a remote receiver (10.2.J.2) drawn uniformly, in
// [0, duration). Each flow is one RDMA WRITE at the host port's speed, so on
// average a sender offers `load` of its link, all of it over the uplinks.
// Knobs [defaults]: cdf [WebSearch], load [0.5], duration [5ms], hosts [all
// host ports], remotes [16], mtu [1024].
// Limit: the senders' flows at most kMaxScenarioFlows (the draws stop at
// the first one over); only the senders draw.
// Random (--seed): arrivals, sizes, destinations (the fabric generator's
// streams, one per host), and each flow's UDP source port.
#pragma once

#include "tools/gen/preset_common.h"

namespace rocelb {

const PresetDef& cdf_preset();

}  // namespace rocelb
