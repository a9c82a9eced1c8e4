#include "tools/bench/pipeline_bench.h"

#include <benchmark/benchmark.h>
#include <rte_mbuf.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "dataplane/forward/dataplane.h"
#include "dataplane/forward/pipeline.h"
#include "dataplane/run/eal.h"
#include "dataplane/wire/packet_builder.h"

namespace rocelb::bench {
namespace {

constexpr uint16_t kBurst = 32;
constexpr uint32_t kFlows = 1024;

// 1024 RoCE flows from host 0 to remote hosts behind the spines.
std::vector<std::vector<uint8_t>> make_frames(uint8_t dscp, uint32_t payload) {
  std::vector<std::vector<uint8_t>> frames;
  for (uint32_t i = 0; i < kFlows; ++i) {
    FrameSpec s;
    s.dst_mac = {0x02, 0, 0, 0, 0, 0};
    s.src_ip = ipv4_bytes(10, 0, 0, 2);
    s.dst_ip = ipv4_bytes(10, 2, static_cast<uint8_t>(i % 256), static_cast<uint8_t>(9 + i / 256));
    s.dscp = dscp;
    s.sport = static_cast<uint16_t>(49152 + i);
    s.dest_qp = 0x100 + i;
    s.payload_len = payload;
    frames.push_back(build_frame(s));
  }
  return frames;
}

void forward(benchmark::State& state, const std::string& mode, uint8_t dscp) {
  eal_start(eal_args_for_replay(512));
  const ConfigParams params =
      load_config_text(std::string(embedded_default_config()), std::string(kEmbeddedDefaultName),
                       {"groups.uplinks.mode=" + mode});
  static int seq = 0;
  rte_mempool* pool = rte_pktmbuf_pool_create(("bench_pool" + std::to_string(seq++)).c_str(), 8191,
                                              256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
  if (!pool) {
    state.SkipWithError("cannot create the mbuf pool");
    return;
  }
  {
    // A 10 us shaper burst, as live mode has: each port may send ahead.
    Dataplane dp(SwitchConfig::build(params), 1, 4096, 10'000'000);
    dp.set_control_pool(pool);
    const auto frames = make_frames(dscp, 64);  // 122-byte frames: small-packet rate
    rte_mbuf* burst[kBurst];
    rte_mbuf* out[kBurst];
    uint64_t start[kBurst];
    uint64_t now_ns = 1'000'000;
    uint32_t next = 0;
    uint64_t packets = 0;
    for (auto _ : state) {
      if (rte_pktmbuf_alloc_bulk(pool, burst, kBurst) != 0) {
        state.SkipWithError("mbuf pool empty");
        break;
      }
      for (uint16_t i = 0; i < kBurst; ++i) {
        const auto& f = frames[next++ % kFlows];
        std::memcpy(rte_pktmbuf_mtod(burst[i], uint8_t*), f.data(), f.size());
        burst[i]->data_len = static_cast<uint16_t>(f.size());
        burst[i]->pkt_len = static_cast<uint32_t>(f.size());
      }
      process_burst(dp, 0, 0, burst, kBurst, now_ns);
      for (uint16_t p = 4; p < 8; ++p) {
        PortTx& t = dp.tx(p);
        t.sample_load(now_ns);
        while (uint16_t n = dp.dequeue(p, now_ns * 1000, out, start, kBurst)) {
          for (uint16_t i = 0; i < n; ++i) t.count_tx(out[i]->pkt_len);
          rte_pktmbuf_free_bulk(out, n);
          packets += n;
        }
      }
      now_ns += 1'000;  // 32 small frames take ~0.3 us on four 100G links
    }
    state.SetItemsProcessed(static_cast<int64_t>(packets));
    const Snapshot snap = dp.snapshot();
    state.counters["dropped"] = static_cast<double>(snap.port[0].total_drops());
    state.counters["queued"] = static_cast<double>(snap.queued_packets);
  }
  rte_mempool_free(pool);
}

}  // namespace

void register_pipeline_benchmarks() {
  for (const char* mode : {"fixed", "flowlet_quality", "per_packet_random", "drill"}) {
    for (const auto& [cls, dscp] :
         {std::pair{"lossy", uint8_t{0}}, std::pair{"lossless", uint8_t{26}}}) {
      benchmark::RegisterBenchmark(("pipeline/" + std::string(mode) + "/" + cls).c_str(),
                                   [mode, dscp](benchmark::State& s) { forward(s, mode, dscp); });
    }
  }
}

}  // namespace rocelb::bench
