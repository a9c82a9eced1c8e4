/* rocelb_policy.h: the ABI of a load-balancing policy written in C and
 * compiled to eBPF (`clang -O2 -target bpf -c policy.c`), for groups with
 * `mode: bpf` (lb/bpf/README.md).
 *
 * A policy is one function in its own ELF section that takes a
 * struct rocelb_ctx * and returns a member index (0 .. n_members - 1):
 *
 *     #include "rocelb_policy.h"
 *     ROCELB_POLICY("ecmp")            // section rocelb/ecmp
 *     uint64_t ecmp(struct rocelb_ctx *c) { return rocelb_pick(c->hash, c->n_members); }
 *
 * It may read every field, write flow[], group[] and rng_state (the switch
 * keeps them; what it writes elsewhere in the context is undefined: the
 * switch refills the rest per burst and per packet), and call nothing: no helpers, no maps, no
 * global data, so it runs under DPDK's rte_bpf (JIT or interpreter) and is checked by its
 * validator, which refuses loops and reads outside the context. Use the
 * inline functions below, mask computed indexes (& (ROCELB_MAX_MEMBERS - 1)),
 * and keep branches few: the validator follows every path through the
 * program, so each `if` in sequence doubles its work (a loop over all
 * members with a test inside takes it minutes; up_list[] and n_up are there
 * so that a policy needs no such loop).
 *
 * A returned index that is out of range or a down member is not used: the
 * packet is dropped and counted as no_member_up.
 *
 * The random stream is part of the ABI: rocelb_rand() is splitmix64 on
 * rng_state, the generator the built-in engines draw from, seeded the same
 * way, so a policy that draws as an engine does decides as it does.
 */
#ifndef ROCELB_POLICY_H
#define ROCELB_POLICY_H

#ifdef __cplusplus
#include <cstdint>
#elif defined(__bpf__)
/* No libc headers for the BPF target: the compiler's own types. */
typedef __UINT8_TYPE__ uint8_t;
typedef __UINT16_TYPE__ uint16_t;
typedef __UINT32_TYPE__ uint32_t;
typedef __UINT64_TYPE__ uint64_t;
#else
#include <stdint.h>
#endif

#define ROCELB_POLICY_ABI 1
#define ROCELB_MAX_MEMBERS 64  /* members a bpf group may have */
#define ROCELB_FLOW_BYTES 32   /* the per-flow state slot */
#define ROCELB_GROUP_BYTES 512 /* the per-group scratch area */

struct rocelb_member {
  uint64_t queue_bytes; /* bytes queued towards it now (as quality.depth says) */
  uint64_t load_bps;    /* its transmit load, EWMA, bits per second */
  uint32_t band;        /* its quality band: 0 is best (quality.bands bands) */
  uint32_t up;          /* 1 up, 0 down (admin, link or no neighbor) */
};

struct rocelb_ctx {
  /* The packet. */
  uint64_t now_ns;   /* the switch's clock */
  uint32_t hash;     /* the group's flow hash (its hash_fields and seed) */
  uint32_t pkt_len;  /* frame bytes */
  uint8_t family;    /* 4 or 6 */
  uint8_t proto;     /* IP protocol */
  uint8_t tc;        /* traffic class 0..7 */
  uint8_t opcode;    /* BTH opcode; 0xff when not RoCE */
  uint16_t src_port; /* UDP/TCP ports, host order */
  uint16_t dst_port;
  uint32_t dest_qp; /* BTH destination QP (24 bits) */
  uint32_t psn;     /* BTH PSN (24 bits) */
  uint32_t pad0;
  uint8_t src_ip[16]; /* IPv4 in the first 4 bytes */
  uint8_t dst_ip[16];
  /* The group. */
  uint32_t n_members;     /* 1 .. ROCELB_MAX_MEMBERS */
  uint32_t n_up;          /* how many are up */
  uint32_t up_generation; /* changes whenever the set of up members changes */
  uint32_t pad2;
  uint64_t idle_time_ns; /* groups.<name>.idle_time (the flowlet gap) */
  uint32_t knob_d;       /* groups.<name>.drill.d */
  uint32_t knob_m;       /* groups.<name>.drill.m */
  uint64_t rng_state;    /* splitmix64 state: rocelb_rand() advances it */
  /* State the switch keeps between packets. */
  uint32_t flow_new; /* 1: the flow's slot was never written (zeroed) */
  uint32_t pad1;
  uint8_t flow[ROCELB_FLOW_BYTES];   /* this flow's slot (max_flows slots, by hash) */
  uint8_t group[ROCELB_GROUP_BYTES]; /* this group's scratch on this worker */
  struct rocelb_member members[ROCELB_MAX_MEMBERS];
  uint16_t up_list[ROCELB_MAX_MEMBERS]; /* the up members in order: up_list[0 .. n_up-1] */
  uint64_t reserved[8];                 /* zero; room for the ABI to grow */
};

/* Puts the function in ELF section "rocelb/NAME": groups.<g>.bpf.section NAME. */
#define ROCELB_POLICY(name) __attribute__((section("rocelb/" name), used))

#ifndef __cplusplus
/* A 64-bit draw: splitmix64, as lb/lb_rng.h. */
static inline __attribute__((always_inline)) uint64_t rocelb_rand(struct rocelb_ctx* c) {
  uint64_t z = (c->rng_state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* A draw in [0, n): multiply-shift on the high 32 bits, as LbRng::below. */
static inline __attribute__((always_inline)) uint32_t rocelb_below(struct rocelb_ctx* c,
                                                                   uint32_t n) {
  return (uint32_t)(((rocelb_rand(c) >> 32) * (uint64_t)n) >> 32);
}

/* A hash onto n members without modulo bias, as the built-in ECMP. */
static inline __attribute__((always_inline)) uint32_t rocelb_pick(uint32_t hash, uint32_t n) {
  return (uint32_t)(((uint64_t)hash * n) >> 32);
}

/* The k-th up member (k < n_up), as the built-in engines count them. */
static inline __attribute__((always_inline)) uint32_t rocelb_up_at(const struct rocelb_ctx* c,
                                                                   uint32_t k) {
  return c->up_list[k & (ROCELB_MAX_MEMBERS - 1)];
}

/* The member behind an index a policy computed, kept inside the context. */
static inline __attribute__((always_inline)) const struct rocelb_member* rocelb_member_at(
    const struct rocelb_ctx* c, uint32_t m) {
  return &c->members[m & (ROCELB_MAX_MEMBERS - 1)];
}
#endif

#endif
