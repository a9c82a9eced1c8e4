/* LetFlow as a policy: a packet more than idle_time after its flow's last
 * one starts a flowlet on a random up member; decides exactly as the built-in
 * `flowlet_random` mode (same table, same random draws). */
#include "rocelb_policy.h"

struct slot {
  uint64_t last_seen_ns;
  uint32_t member;
  uint32_t valid;
};

ROCELB_POLICY("letflow")
uint64_t letflow(struct rocelb_ctx* c) {
  struct slot* s = (struct slot*)c->flow;
  int start = 1;
  if (s->valid) {
    uint64_t age = c->now_ns >= s->last_seen_ns ? c->now_ns - s->last_seen_ns : 0;
    if (age <= c->idle_time_ns) start = !rocelb_member_at(c, s->member)->up;
  }
  uint32_t m = s->member;
  if (start) {
    if (c->n_up == 0) return ROCELB_MAX_MEMBERS; /* none up: dropped */
    m = rocelb_up_at(c, c->n_up == 1 ? 0 : rocelb_below(c, c->n_up));
    s->member = m;
    s->valid = 1;
  }
  s->last_seen_ns = c->now_ns;
  return m;
}
