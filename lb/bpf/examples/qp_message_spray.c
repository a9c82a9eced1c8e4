/* Message-level spraying for RoCE, which no built-in mode does: each RDMA
 * message (from its FIRST or ONLY packet to its LAST) stays on one member,
 * so the receiver sees no reordering inside a message, while consecutive
 * messages of one QP spread over the members: the less loaded of two random
 * up members (power of two choices) at each message start. Non-RoCE
 * packets follow the flow hash. */
#include "rocelb_policy.h"

#define MASK (ROCELB_MAX_MEMBERS - 1)

struct slot {
  uint32_t member;
  uint32_t valid;
  uint64_t messages;
};

/* FIRST and ONLY opcodes (low 5 bits) of RC SEND, RDMA WRITE, READ request
 * and response, and ATOMIC: a new message starts. A bit set, not a chain of
 * tests: every branch doubles the validator's work. */
#define MESSAGE_STARTS                                                                       \
  ((1u << 0x00) | (1u << 0x04) | (1u << 0x05) | (1u << 0x06) | (1u << 0x0a) | (1u << 0x0b) | \
   (1u << 0x0c) | (1u << 0x0d) | (1u << 0x10) | (1u << 0x13) | (1u << 0x14))

ROCELB_POLICY("qp_message_spray")
uint64_t qp_message_spray(struct rocelb_ctx* c) {
  if (c->n_up == 0) return ROCELB_MAX_MEMBERS;
  if (c->opcode == 0xff) return rocelb_up_at(c, rocelb_pick(c->hash, c->n_up));
  struct slot* s = (struct slot*)c->flow;
  uint32_t cur = s->member & MASK;
  if (s->valid && rocelb_member_at(c, cur)->up && !((MESSAGE_STARTS >> (c->opcode & 0x1f)) & 1))
    return cur;
  uint32_t a = rocelb_up_at(c, rocelb_below(c, c->n_up));
  uint32_t b = rocelb_up_at(c, rocelb_below(c, c->n_up));
  uint32_t m = rocelb_member_at(c, b)->queue_bytes < rocelb_member_at(c, a)->queue_bytes ? b : a;
  s->member = m;
  s->valid = 1;
  s->messages++;
  return m;
}
