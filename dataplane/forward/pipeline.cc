#include "dataplane/forward/pipeline.h"

namespace rocelb {
namespace {

inline __attribute__((always_inline)) void run(Burst& b) {
  parse_stage(b);
  local_stage(b);
  route_stage(b);
  balance_stage(b);
  if (b.cfg.conweave) [[unlikely]]
    conweave_stage(b);
  rewrite_stage(b);
  enqueue_stage(b);
}

// Replies and notifies a burst made (conweave) go out now, routed from the
// port the data came in on.
__attribute__((noinline)) void send_made(Dataplane& dp, unsigned worker, uint16_t in_port,
                                         uint64_t now_ns) {
  WorkerState& ws = dp.worker(worker);
  std::array<rte_mbuf*, 64> out = ws.conweave_out;
  const uint16_t total = ws.conweave_out_n;
  ws.conweave_out_n = 0;
  for (uint16_t at = 0; at < total; at = static_cast<uint16_t>(at + kMaxBurst)) {
    const uint16_t k = total - at < kMaxBurst ? static_cast<uint16_t>(total - at) : kMaxBurst;
    Burst b(dp, worker, in_port, out.data() + at, k, now_ns, true);
    run(b);
  }
}

}  // namespace

void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns) {
  if (n == 0) return;
  Burst b(dp, worker, in_port, pkts, n, now_ns);
  run(b);
  if (b.cfg.conweave && b.ws.conweave_out_n) [[unlikely]]
    send_made(dp, worker, in_port, now_ns);
}

void reprocess_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                     uint64_t now_ns) {
  if (n == 0) return;
  Burst b(dp, worker, in_port, pkts, n, now_ns, true);
  run(b);
}

}  // namespace rocelb
