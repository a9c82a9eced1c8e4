#include "dataplane/forward/pipeline.h"

namespace rocelb {

void process_burst(Dataplane& dp, unsigned worker, uint16_t in_port, rte_mbuf** pkts, uint16_t n,
                   uint64_t now_ns) {
  if (n == 0) return;
  Burst b(dp, worker, in_port, pkts, n, now_ns);
  parse_stage(b);
  local_stage(b);
  route_stage(b);
  balance_stage(b);
  rewrite_stage(b);
  enqueue_stage(b);
}

}  // namespace rocelb
