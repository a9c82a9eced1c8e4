// rocelb-bench: Google Benchmark figures for rocelb's hot paths: one
// load-balancing decision per engine, and the whole forwarding path per burst. Prints figures;
// never passes or fails on a time. Accepts the usual --benchmark_* flags, e.g.
//   rocelb-bench --benchmark_filter='lb/flowlet' --benchmark_min_time=0.2
#include <benchmark/benchmark.h>

#include "tools/bench/lb_bench.h"
#include "tools/bench/pipeline_bench.h"

int main(int argc, char** argv) {
  rocelb::bench::register_lb_benchmarks();
  rocelb::bench::register_pipeline_benchmarks();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
