/* Keeps a count in a global variable (a .bss map): refused, a policy's state
 * lives in the context. */
#include "rocelb_policy.h"

static uint64_t packets;

ROCELB_POLICY("global")
uint64_t global(struct rocelb_ctx *c) {
  packets++;
  return packets % c->n_members;
}
