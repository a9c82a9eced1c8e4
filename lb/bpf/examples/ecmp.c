/* ECMP as a policy: the flow hash picks an up member; decides exactly as the
 * built-in `fixed` mode. */
#include "rocelb_policy.h"

ROCELB_POLICY("ecmp")
uint64_t ecmp(struct rocelb_ctx* c) {
  if (c->n_up == c->n_members) return rocelb_pick(c->hash, c->n_members);
  return rocelb_up_at(c, rocelb_pick(c->hash, c->n_up));
}
