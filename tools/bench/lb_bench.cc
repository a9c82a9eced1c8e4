#include "tools/bench/lb_bench.h"

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "dataplane/bpf/bpf_policy_loader.h"
#include "lb/lb_engine.h"
#include "lb/lb_rng.h"

namespace rocelb::bench {
namespace {

constexpr uint32_t kBurst = 32;
constexpr uint32_t kFlows = 10'000;
constexpr uint32_t kElephants = 100;
constexpr uint32_t kPackets = 1u << 16;  // the packet sequence replayed in a loop
constexpr uint64_t k100G = 100'000'000'000ull;

// A reproducible packet sequence: 80 % of packets from 100 elephant flows,
// the rest spread over 10k flows; elephants send 4 KB MTU frames, mice 256 B..1 KB.
struct Traffic {
  Traffic() : hashes(kPackets), bytes(kPackets) {
    LbRng r(2024);
    std::vector<uint32_t> flow_hash(kFlows);
    for (auto& h : flow_hash) h = static_cast<uint32_t>(r.next());
    for (uint32_t i = 0; i < kPackets; ++i) {
      const bool elephant = r.below(100) < 80;
      const uint32_t f = elephant ? r.below(kElephants) : r.below(kFlows);
      hashes[i] = flow_hash[f];
      bytes[i] = elephant ? 4154 : 256 + r.below(768);
    }
    for (auto& q : depths) q = r.below(1'200'000);
  }
  std::vector<uint32_t> hashes;
  std::vector<uint32_t> bytes;
  uint64_t depths[64];
};

const Traffic& traffic() {
  static const Traffic t;
  return t;
}

struct Case {
  LbMode mode;
  uint32_t table;  // max_flows or buckets; 0: the mode has no table
  uint32_t members;
  bool burst;  // select_burst, or 32 calls of select
  bool trace;
  const char* policy = nullptr;  // mode bpf: lb/bpf/examples/<policy>.c
  bool jit = true;               // mode bpf: rte_bpf's JIT, or its interpreter
};

void run_case(benchmark::State& state, Case c) {
  LbGroupSpec spec;
  spec.mode = c.mode;
  spec.weights.assign(c.members, 1);
  if (c.mode == LbMode::kWcmp)
    for (uint32_t m = 0; m < c.members; ++m) spec.weights[m] = 1 + m % 3;
  if (uses_flowlets(c.mode)) spec.knobs.max_flows = c.table;
  if (uses_buckets(c.mode)) spec.knobs.buckets = c.table;
  spec.seed = 1;
  if (c.mode == LbMode::kBpf) {
    spec.knobs.max_flows = c.table;
    try {
      spec.bpf = load_bpf_policy(std::string(ROCELB_BPF_DIR) + "/" + c.policy + ".o", "", c.jit);
    } catch (const BpfPolicyError& e) {
      state.SkipWithError(e.what());
      return;
    }
  }
  LbEngine engine(spec, 0);

  const Traffic& t = traffic();
  std::vector<MemberPath> paths(c.members);
  for (auto& p : paths) p.speed_bps = k100G;
  std::vector<LbDecision> traces(c.trace ? kBurst : 0);
  uint32_t out[kBurst];
  uint32_t pos = 0;
  uint64_t now = 0, burst_no = 0;
  uint64_t sink = 0;
  for (auto _ : state) {
    // Paths change a little every burst, as the egress queues do.
    MemberPath& p = paths[burst_no % c.members];
    p.queue_bytes = t.depths[burst_no % 64];
    p.load_bps = (t.depths[(burst_no + 7) % 64] % 100) * 1'000'000'000ull;
    const uint32_t* h = &t.hashes[pos];
    const uint32_t* b = &t.bytes[pos];
    if (c.burst) {
      engine.select_burst(h, b, kBurst, now, paths.data(), out, c.trace ? traces.data() : nullptr);
    } else {
      for (uint32_t i = 0; i < kBurst; ++i)
        out[i] = engine.select(h[i], b[i], now, paths.data(), c.trace ? &traces[i] : nullptr);
    }
    sink += out[0] + out[kBurst - 1];
    benchmark::DoNotOptimize(out);
    pos = (pos + kBurst) & (kPackets - 1);
    now += 700;  // 32 packets of ~1.1 KB at 400 Gb/s
    ++burst_no;
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * kBurst);
  state.counters["per_decision"] = benchmark::Counter(
      kBurst, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  const LbEngineCounters& k = engine.counters();
  if (uses_flowlets(c.mode) && k.decisions) {
    state.counters["new_flowlet_pct"] = 100.0 * double(k.flowlets_created) / double(k.decisions);
    state.counters["collision_pct"] = 100.0 * double(k.flowlet_collisions) / double(k.decisions);
  }
}

void add(const Case& c) {
  std::string name = "lb/" + std::string(to_string(c.mode));
  if (c.policy) name += std::string(":") + c.policy + (c.jit ? "/jit" : "/interpreter");
  if (c.table) name += "/table:" + std::to_string(c.table);
  name += "/members:" + std::to_string(c.members);
  name += c.burst ? "/burst32" : "/select_x32";
  if (c.trace) name += "/trace";
  benchmark::RegisterBenchmark(name.c_str(), run_case, c);
}

}  // namespace

void register_lb_benchmarks() {
  for (uint32_t members : {4u, 16u}) {
    for (LbMode mode : {LbMode::kFixed, LbMode::kWcmp, LbMode::kResilient, LbMode::kFlowletRandom,
                        LbMode::kFlowletQuality, LbMode::kPerPacketQuality,
                        LbMode::kPerPacketRandom, LbMode::kDrill}) {
      std::vector<uint32_t> tables{0};
      if (uses_flowlets(mode) || mode == LbMode::kWcmp) tables = {4096, 65536};
      if (mode == LbMode::kResilient) tables = {256, 4096};
      for (uint32_t table : tables) {
        add({mode, table, members, true, false});
        if (members == 4) add({mode, table, members, false, false});
      }
    }
  }
  // Policies in eBPF next to the engines they mirror (same decisions):
  // the cost of the context, the program and its JIT or interpreter.
  for (const char* policy : {"ecmp", "letflow", "drill", "least_queue", "qp_message_spray"})
    for (bool jit : {true, false}) add({LbMode::kBpf, 4096, 4, true, false, policy, jit});
  add({LbMode::kFlowletQuality, 4096, 4, true, true});
  add({LbMode::kDrill, 0, 4, true, true});
}

}  // namespace rocelb::bench
