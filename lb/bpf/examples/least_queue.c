/* Least queue with hysteresis: each flow stays on its member until one of
 * two random up members has a queue shorter by more than 16 KB, then moves
 * there. Fewer moves than per-packet least-queue, faster reaction than
 * flowlets. */
#include "rocelb_policy.h"

#define HYSTERESIS_BYTES 16384
#define MASK (ROCELB_MAX_MEMBERS - 1)

struct slot {
  uint32_t member;
  uint32_t valid;
};

ROCELB_POLICY("least_queue")
uint64_t least_queue(struct rocelb_ctx* c) {
  struct slot* s = (struct slot*)c->flow;
  uint32_t a = rocelb_up_at(c, rocelb_below(c, c->n_up));
  uint32_t b = rocelb_up_at(c, rocelb_below(c, c->n_up));
  uint32_t best = rocelb_member_at(c, b)->queue_bytes < rocelb_member_at(c, a)->queue_bytes ? b : a;
  uint32_t cur = s->member & MASK;
  if (s->valid && rocelb_member_at(c, cur)->up &&
      rocelb_member_at(c, cur)->queue_bytes <=
          rocelb_member_at(c, best)->queue_bytes + HYSTERESIS_BYTES)
    return cur;
  s->member = best;
  s->valid = 1;
  return best;
}
