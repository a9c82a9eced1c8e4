/* Every packet to the first member that is up: a policy whose effect on the
 * uplinks' shares nobody can mistake for ECMP's (the live swap tests). */
#include "rocelb_policy.h"

ROCELB_POLICY("first_up")
uint64_t first_up(struct rocelb_ctx *c) { return rocelb_up_at(c, 0); }
