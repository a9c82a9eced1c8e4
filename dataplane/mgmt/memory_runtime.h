// The memory estimate's runtime (control/memory_estimate.h) of the live
// switch in this process: its forwarding workers (every EAL worker lcore,
// or the main lcore when there is none, as LiveEngine counts them), the
// packet pool and the egress ring size of its LiveOptions, the page size
// of its memory (hugepages, or the system's with --no-huge). Needs EAL up.
// The .cc also checks, at compile time, that the DPDK object sizes the
// estimate assumes are this DPDK's. No knobs of its own, no counters.
#pragma once

#include "control/memory_estimate.h"
#include "dataplane/engines/live_engine.h"

namespace rocelb {

MemoryRuntime live_memory_runtime(const LiveOptions& opt = {});

}  // namespace rocelb
