#include "dataplane/forward/pipeline.h"

namespace rocelb {
namespace {

void run(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
         uint64_t now_ns, bool again) {
  Burst b(dp, worker, in_port, pkts, n, now_ns, again);
  parse_stage(b);
  local_stage(b);
  route_stage(b);
  balance_stage(b);
  if (b.cfg.conweave) [[unlikely]]
    conweave_stage(b);
  rewrite_stage(b);
  enqueue_stage(b);
}

}  // namespace

void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns) {
  if (n == 0) return;
  run(dp, worker, in_port, pkts, n, now_ns, false);
  // Replies and notifies the burst made (conweave) go out now, routed from
  // the port the data came in on.
  WorkerState& ws = dp.worker(worker);
  if (ws.conweave_out_n) [[unlikely]] {
    std::array<rte_mbuf*, 64> out = ws.conweave_out;
    const uint16_t total = ws.conweave_out_n;
    ws.conweave_out_n = 0;
    for (uint16_t at = 0; at < total; at = static_cast<uint16_t>(at + kMaxBurst)) {
      const uint16_t k = total - at < kMaxBurst ? static_cast<uint16_t>(total - at) : kMaxBurst;
      run(dp, worker, in_port, out.data() + at, k, now_ns, true);
    }
  }
}

void reprocess_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                     uint64_t now_ns) {
  if (n) run(dp, worker, in_port, pkts, n, now_ns, true);
}

}  // namespace rocelb
