/* rocelb's XDP steering program: shares a port with the kernel. On an
 * AF_XDP port with ports[].xdp_steering: roce it sends to the switch's
 * AF_XDP socket what the switch must see (RoCEv2, RoCEv1, MAC control frames
 * such as PFC, ARP and IPv6 neighbor solicitations for the port's own
 * addresses, and IP packets to those addresses) and passes everything else
 * to the kernel, so SSH and management keep working on the same interface.
 * With xdp_steering: all every frame goes to the switch (still counted).
 * Maps and counters: steer_abi.h. Built with clang -target bpf; loaded by
 * DPDK's af_xdp PMD (its xdp_prog devarg) and configured, read and detached
 * by the switch through libbpf (xdp_steering.cc). */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "steer_abi.h"

#define ETH_P_ROCEV1 0x8915
#define ETH_P_MACCTRL 0x8808
#define ROCEV2_PORT 4791
#define ICMPV6_NS 135
#define MAX_QUEUES 64

struct {
  __uint(type, BPF_MAP_TYPE_XSKMAP);
  __uint(max_entries, MAX_QUEUES);
  __type(key, __u32);
  __type(value, __u32);
} xsks_map SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_ARRAY);
  __uint(max_entries, 1);
  __type(key, __u32);
  __type(value, struct rl_steer_cfg);
} rl_cfg SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_HASH);
  __uint(max_entries, 16);
  __type(key, struct rl_own_addr);
  __type(value, __u8);
} rl_own SEC(".maps");

struct {
  __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
  __uint(max_entries, RL_NSTATS);
  __type(key, __u32);
  __type(value, struct rl_steer_stat);
} rl_stats SEC(".maps");

static __always_inline void count(__u32 why, __u64 bytes) {
  struct rl_steer_stat *s = bpf_map_lookup_elem(&rl_stats, &why);
  if (s) {
    s->packets++;
    s->bytes += bytes;
  }
}

static __always_inline int own_v4(const void *a) {
  struct rl_own_addr k = {};
  k.addr[10] = 0xff;
  k.addr[11] = 0xff;
  __builtin_memcpy(&k.addr[12], a, 4);
  return bpf_map_lookup_elem(&rl_own, &k) != 0;
}

static __always_inline int own_v6(const void *a) {
  struct rl_own_addr k;
  __builtin_memcpy(k.addr, a, 16);
  return bpf_map_lookup_elem(&rl_own, &k) != 0;
}

/* Why the frame is the switch's (an RL_ST_* index), or -1: the kernel's. */
static __always_inline int classify(void *data, void *end) {
  struct ethhdr *eth = data;
  if ((void *)(eth + 1) > end) return -1;
  __u16 proto = eth->h_proto;
  void *l3 = eth + 1;
  if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
    __u16 *tag = l3; /* TCI, then the inner ethertype */
    if ((void *)(tag + 2) > end) return -1;
    proto = tag[1];
    l3 = tag + 2;
  }
  if (proto == bpf_htons(ETH_P_MACCTRL)) return RL_ST_MAC_CTRL;
  if (proto == bpf_htons(ETH_P_ROCEV1)) return RL_ST_ROCEV1;
  if (proto == bpf_htons(ETH_P_ARP)) {
    /* Ethernet/IPv4 ARP: target protocol address at byte 24. */
    __u8 *arp = l3;
    if ((void *)(arp + 28) > end) return -1;
    return own_v4(arp + 24) ? RL_ST_NEIGHBOR : -1;
  }
  if (proto == bpf_htons(ETH_P_IP)) {
    struct iphdr *ip = l3;
    if ((void *)(ip + 1) > end) return -1;
    if (ip->protocol == IPPROTO_UDP && !(ip->frag_off & bpf_htons(0x1fff))) {
      struct udphdr *udp = (void *)ip + ip->ihl * 4;
      if ((void *)(udp + 1) <= end && udp->dest == bpf_htons(ROCEV2_PORT)) return RL_ST_ROCEV2;
    }
    return own_v4(&ip->daddr) ? RL_ST_OWN_ADDR : -1;
  }
  if (proto == bpf_htons(ETH_P_IPV6)) {
    struct ipv6hdr *ip6 = l3;
    if ((void *)(ip6 + 1) > end) return -1;
    if (ip6->nexthdr == IPPROTO_UDP) {
      struct udphdr *udp = (void *)(ip6 + 1);
      if ((void *)(udp + 1) <= end && udp->dest == bpf_htons(ROCEV2_PORT)) return RL_ST_ROCEV2;
    }
    if (ip6->nexthdr == IPPROTO_ICMPV6) {
      /* Neighbor solicitation: type 135, target address at byte 8. */
      __u8 *icmp = (void *)(ip6 + 1);
      if ((void *)(icmp + 24) <= end && icmp[0] == ICMPV6_NS && own_v6(icmp + 8))
        return RL_ST_NEIGHBOR;
    }
    return own_v6(&ip6->daddr) ? RL_ST_OWN_ADDR : -1;
  }
  return -1;
}

SEC("xdp")
int rocelb_steer(struct xdp_md *ctx) {
  void *data = (void *)(long)ctx->data;
  void *end = (void *)(long)ctx->data_end;
  __u64 bytes = end - data;
  __u32 zero = 0;
  struct rl_steer_cfg *cfg = bpf_map_lookup_elem(&rl_cfg, &zero);
  int why = classify(data, end);
  if (why < 0 && cfg && cfg->mode == RL_MODE_ALL) why = RL_ST_ALL;
  if (why < 0) {
    count(RL_ST_PASSED, bytes);
    return XDP_PASS;
  }
  int action = bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
  count(action == XDP_REDIRECT ? (__u32)why : RL_ST_NO_SOCKET, bytes);
  return action;
}

char LICENSE[] SEC("license") = "Dual MIT/GPL";
