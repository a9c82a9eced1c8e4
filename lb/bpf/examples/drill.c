/* DRILL(2, 1) as a policy: per packet, the shortest queue among 2 random up
 * members (partial Fisher-Yates over a permutation of the up members kept in
 * the group scratch) and the one remembered from the last decision (ties:
 * the remembered one, then the first sample); decides exactly as the
 * built-in `drill` mode with drill.d 2 and drill.m 1. */
#include "rocelb_policy.h"

#define MASK (ROCELB_MAX_MEMBERS - 1)

struct scratch {
  uint32_t generation; /* of the up set perm was built from */
  uint32_t nmem;
  uint32_t memory;
  uint32_t pad;
  uint16_t perm[ROCELB_MAX_MEMBERS];
};

/* The j-th sample: swap perm[j] with a random one of perm[j .. n-1]. */
static inline __attribute__((always_inline)) uint32_t sample(struct rocelb_ctx* c,
                                                             struct scratch* g, uint32_t j,
                                                             uint32_t n) {
  uint32_t r = (j + rocelb_below(c, n - j)) & MASK;
  uint16_t t = g->perm[j];
  g->perm[j] = g->perm[r];
  g->perm[r] = t;
  return g->perm[j] & MASK;
}

static inline __attribute__((always_inline)) uint64_t queue(struct rocelb_ctx* c, uint32_t m) {
  return rocelb_member_at(c, m)->queue_bytes;
}

ROCELB_POLICY("drill")
uint64_t drill(struct rocelb_ctx* c) {
  struct scratch* g = (struct scratch*)c->group;
  uint32_t n = c->n_up;
  if (g->generation != c->up_generation) { /* the up set changed: start over from it */
#pragma unroll
    for (uint32_t i = 0; i < ROCELB_MAX_MEMBERS; i++) g->perm[i] = c->up_list[i];
    g->generation = c->up_generation;
    g->nmem = g->nmem && rocelb_member_at(c, g->memory)->up;
  }
  uint32_t s0 = sample(c, g, 0, n);
  uint32_t best = g->nmem ? g->memory & MASK : s0;
  if (queue(c, s0) < queue(c, best)) best = s0;
  if (n > 1) {
    uint32_t s1 = sample(c, g, 1, n);
    if (queue(c, s1) < queue(c, best)) best = s1;
  }
  g->memory = best;
  g->nmem = 1;
  return best;
}
