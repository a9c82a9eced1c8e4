/* Divides by the flow slot's first byte, zero until something writes it:
 * rte_bpf's interpreter stops the program and logs "division by 0" for
 * every packet (the JIT returns 0 silently). The log must not flood. */
#include "rocelb_policy.h"

ROCELB_POLICY("div_zero")
uint64_t div_zero(struct rocelb_ctx *c) {
  uint32_t d = c->flow[0];
  return rocelb_pick(c->hash / d, c->n_members);
}
