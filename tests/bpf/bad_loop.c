/* A loop the compiler cannot unroll (its bound is data): refused. */
#include "rocelb_policy.h"

ROCELB_POLICY("loop")
uint64_t loop(struct rocelb_ctx *c) {
  uint32_t h = c->hash, n = 0;
  while (h) {
    h &= h - 1;
    n++;
  }
  return n % c->n_members;
}
