/* What rocelb's XDP steering program (rocelb_steer.bpf.c) and the switch
 * (xdp_steering.h) share: the program's name, its maps and their layouts.
 * Plain C, included by both the BPF program and the C++ host.
 *
 * Maps (looked up by name on the attached program):
 *   xsks_map   XSKMAP, rx queue -> AF_XDP socket (filled by DPDK's af_xdp PMD)
 *   rl_cfg     ARRAY[1] of struct rl_steer_cfg (written by the switch at start)
 *   rl_own     HASH: the port's own addresses (IPv4 as ::ffff:a.b.c.d) -> 1
 *   rl_stats   PERCPU_ARRAY[RL_NSTATS] of struct rl_steer_stat
 */
#ifndef ROCELB_XDP_STEER_ABI_H
#define ROCELB_XDP_STEER_ABI_H

#define RL_STEER_PROG_NAME "rocelb_steer"

/* rl_steer_cfg.mode: what goes to the switch. */
#define RL_MODE_ROCE 0 /* RoCE, MAC control, neighbor discovery and the port's own addresses */
#define RL_MODE_ALL 1  /* every frame */

struct rl_steer_cfg {
  unsigned int mode;
  unsigned int pad;
};

struct rl_own_addr {
  unsigned char addr[16];
};

/* rl_stats indexes: why a frame went to the switch, or that it went to the kernel. */
#define RL_ST_ROCEV2 0    /* UDP destination port 4791 */
#define RL_ST_ROCEV1 1    /* ethertype 0x8915 */
#define RL_ST_MAC_CTRL 2  /* ethertype 0x8808: PFC, PAUSE */
#define RL_ST_NEIGHBOR 3  /* ARP or IPv6 neighbor solicitation for an own address */
#define RL_ST_OWN_ADDR 4  /* any other IP packet to an own address (ping) */
#define RL_ST_ALL 5       /* mode all: everything else */
#define RL_ST_PASSED 6    /* to the kernel */
#define RL_ST_NO_SOCKET 7 /* meant for the switch, but no socket on that queue: to the kernel */
#define RL_NSTATS 8

struct rl_steer_stat {
  unsigned long long packets;
  unsigned long long bytes;
};

#endif
