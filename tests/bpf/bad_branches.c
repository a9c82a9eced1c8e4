/* Branches in a row: DPDK's validator follows every path, so N of them cost
 * it 2^N walks. branches40 would keep it busy for days (refused by the step
 * budget before it starts); branches12 is validated in a moment. */
#include "rocelb_policy.h"

#define STEP(i)                      \
  if (c->hash & (1u << (i)))         \
    h = h * 31 + (i) + c->psn;       \
  else                               \
    h = (h ^ (i)) + c->dest_qp;

ROCELB_POLICY("branches40")
uint64_t branches40(struct rocelb_ctx *c) {
  uint32_t h = 0;
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)
  STEP(10) STEP(11) STEP(12) STEP(13) STEP(14) STEP(15) STEP(16) STEP(17) STEP(18) STEP(19)
  STEP(20) STEP(21) STEP(22) STEP(23) STEP(24) STEP(25) STEP(26) STEP(27) STEP(28) STEP(29)
  STEP(30) STEP(31) STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7)
  return rocelb_pick(h, c->n_members);
}

ROCELB_POLICY("branches12")
uint64_t branches12(struct rocelb_ctx *c) {
  uint32_t h = 0;
  STEP(0) STEP(1) STEP(2) STEP(3) STEP(4) STEP(5) STEP(6) STEP(7) STEP(8) STEP(9)
  STEP(10) STEP(11)
  return rocelb_pick(h, c->n_members);
}
