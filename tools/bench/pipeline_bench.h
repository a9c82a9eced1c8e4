// Forwarding-path benchmarks: the whole per-packet path of one worker on the
// default leaf switch, in bursts of 32: parse, classify, route (rte_fib),
// load-balance over the four uplinks, rewrite, WRED/PFC accounting, enqueue,
// then the owners' dequeue (scheduler, shaper) and free. No NIC: frames are
// copied into fresh mbufs each burst (the copy is part of the figure, as
// the NIC's write would be). Per mode of the uplink group and for a lossy
// (class 0) and a lossless (class 3, PFC-accounted) traffic class; reports
// packets per second on one core. Figures only; nothing here fails.
#pragma once

namespace rocelb::bench {

// Registers the benchmarks (brings EAL up on first use: --no-huge, one lcore).
void register_pipeline_benchmarks();

}  // namespace rocelb::bench
