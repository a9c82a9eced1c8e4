// Load-balancing decision benchmarks: nanoseconds per decision of every
// LbEngine mode on a realistic flow mix (10k flows, a hundred elephants
// carrying 80 % of the packets), 32 decisions per iteration, flowlet table /
// bucket table sizes 4096 and 65536. Figures only; nothing here fails.
#pragma once

namespace rocelb::bench {

// Registers the benchmarks with Google Benchmark (before RunSpecifiedBenchmarks).
void register_lb_benchmarks();

}  // namespace rocelb::bench
