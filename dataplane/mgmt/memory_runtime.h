// The memory estimate's runtime (control/memory_estimate.h) of the live
// switch in this process: its forwarding workers (every EAL worker lcore,
// or the main lcore when there is none, as LiveRun counts them), the
// packet pool and the egress ring size of its LiveOptions, the page size
// of its memory (hugepages, or the system's with --no-huge). Needs EAL up.
// The .cc also checks, at compile time, that the DPDK object sizes the
// estimate assumes are this DPDK's. No knobs of its own, no counters.
#pragma once

#include "control/memory_estimate.h"
#include "dataplane/run/live_run.h"

namespace rocelb {

MemoryRuntime live_memory_runtime(const LiveOptions& opt = {});

// Before EAL is up: the memory, in MB, to give EAL when it runs without
// hugepages (--no-huge -m): what the estimate says `cfg` allocates with
// `opt` and one worker per core (the most it can have) on system pages, a
// quarter more for EAL's own objects and the heap's slack, and at least
// 1024 MB. So --mbufs or a large config raise it; nothing is touched that
// the switch does not use (the memory is reserved, not filled).
unsigned no_huge_memory_mb(const ConfigParams& cfg, const LiveOptions& opt);

}  // namespace rocelb
