/* Loads and runs, but names member 1000 and, for odd hashes, a member that
 * is down when there is one: both are dropped (no_member_up), never used. */
#include "rocelb_policy.h"

ROCELB_POLICY("out_of_range")
uint64_t out_of_range(struct rocelb_ctx *c) {
  return 1000;
}

ROCELB_POLICY("down_member")
uint64_t down_member(struct rocelb_ctx *c) {
  uint32_t i;
#pragma unroll
  for (i = 0; i < 4; i++)
    if (i < c->n_members && !c->members[i].up) return i;
  return 0;
}
