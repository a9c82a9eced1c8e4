// The ideal flow completion time: the same flow alone on the idle fabric.
// Its packets leave the sender back to back, so the last one reaches the
// receiver after the whole message has crossed the path's slowest link, plus
// one packet's store and forward on every other link, plus the path's
// propagation delay; the ACK of the last packet (sent at once: it asks for
// one) then comes back the same way. With wire bytes w = frame + 20
// (preamble and inter-frame gap; nic.framing ns3: as ns-3 counts), packets w_1..w_n, links l with
// speed s_l and delay d_l, and b the slowest speed:
//
//   ideal = Σ_i w_i·8/b + Σ_l w_n·8/s_l − w_n·8/b + Σ_l d_l     (data)
//         + Σ_l w_ack·8/s_l + Σ_l d_l                           (last ACK)
//
// Frames are RoCEv2 over IPv4 without VLAN: 14 + 20 + 8 + 12 (BTH) + payload
// + pad to 4 + 4 (ICRC), at least 60 bytes; the ACK adds a 4-byte AETH.
// Knobs: the NIC's MTU (payload bytes per packet). No counters.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "dataplane/sim/topology.h"

namespace rocelb {

struct PathLink {
  uint64_t speed_bps = 0;
  uint64_t delay_ns = 0;
};

// The links from host `src` to host `dst` (NIC ports, Topology::port(): a
// host's index is its plane-0 port's, so one-plane fabrics index hosts): the
// source's host link, the fewest switch-to-switch hops over links that are
// up (of those, the one whose slowest link is fastest, then the least
// delay), the destination's host link. Empty when no path is up (the ideal
// is then 0 and the flow has no slowdown).
// One search from the source's switch; for many flows use HostPaths.
std::vector<PathLink> host_path(const Topology& topo, uint32_t src, uint32_t dst);

// host_path for many flows: the links of each switch listed once, and the
// search from a switch done once, on its first flow, and kept (a vector of
// 32 bytes a switch per source switch: a k=32 fat tree's 512 edge switches
// keep 21 MB). Same paths as host_path. The topology must outlive it and
// not change. A path is built in a vector the object keeps (no allocation
// once it has grown), valid until the next call.
class HostPaths {
 public:
  explicit HostPaths(const Topology& topo);
  ~HostPaths();
  const std::vector<PathLink>& path(uint32_t src, uint32_t dst);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Frame bytes (no FCS) of a data packet with `payload` bytes, and of an ACK.
uint32_t roce_data_frame_bytes(uint32_t payload);
uint32_t roce_ack_frame_bytes();

// In picoseconds.
// ConWeave's ns-3 ideal (`standalone_fct`, network-load-balance.cc:466-476
// with the BFS of 600-640 and 1464-1466), in ns as it truncates: twice the
// path's propagation delay, one `payload` of transmission per link, and the
// flow's bytes with 48 bytes of headers a packet at the slowest link:
//   2·Σ d_l + Σ ⌊payload·8/s_l⌋ + ⌊(size + ⌈size/payload⌉·48)·8/b⌋
// `rocelb-dp fabric --ideal ns3` divides FCTs by it instead.
uint64_t ns3_standalone_fct_ns(const std::vector<PathLink>& path, uint64_t size_bytes,
                               uint32_t payload);

// `framing`: how a wire counts a frame (nic.framing; Ethernet: + 20).
uint64_t ideal_fct_ps(const std::vector<PathLink>& path, uint64_t size_bytes, uint32_t mtu,
                      WireFraming framing = {});

}  // namespace rocelb
