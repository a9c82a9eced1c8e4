/* Reads the member an unchecked index from the flow slot names: the validator
 * cannot bound it inside the context and must refuse the program. */
#include "rocelb_policy.h"

ROCELB_POLICY("oob")
uint64_t oob(struct rocelb_ctx *c) {
  uint32_t i = *(uint32_t *)c->flow;
  return c->members[i].queue_bytes;
}
