// rocelb-bench: Google Benchmark figures for rocelb's hot paths (today: one
// load-balancing decision per engine). Prints figures; never passes or fails
// on a time. Accepts the usual --benchmark_* flags, e.g.
//   rocelb-bench --benchmark_filter='lb/flowlet' --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include "tools/bench/lb_bench.h"

int main(int argc, char** argv) {
  rocelb::bench::register_lb_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
