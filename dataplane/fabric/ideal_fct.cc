#include "dataplane/fabric/ideal_fct.h"

#include <algorithm>

#include "common/constants.h"

namespace rocelb {

namespace {

// ps for `bytes` on the wire at `bps`, rounded up like the switch's shaper.
uint64_t wire_ps(uint64_t bytes, uint64_t bps) {
  const unsigned __int128 bits = static_cast<unsigned __int128>(bytes) * 8 * 1'000'000'000'000ull;
  return static_cast<uint64_t>((bits + bps - 1) / bps);
}

}  // namespace

uint32_t roce_data_frame_bytes(uint32_t payload) {
  const uint32_t pad = (4 - payload % 4) % 4;
  return std::max<uint32_t>(60, 14 + 20 + 8 + 12 + payload + pad + 4);
}

uint32_t roce_ack_frame_bytes() {
  return std::max<uint32_t>(60, 14 + 20 + 8 + 12 + 4 + 4);
}

std::vector<PathLink> host_path(const Topology& topo, uint32_t src, uint32_t dst) {
  const FabricHost& a = topo.hosts.at(src);
  const FabricHost& b = topo.hosts.at(dst);
  std::vector<PathLink> path{{a.speed_bps, a.delay_ns}};
  if (a.sw != b.sw) {
    // Through the spine whose slower link to the two leaves is fastest.
    PathLink up{}, down{};
    uint64_t best = 0;
    for (const FabricLink& x : topo.links) {
      if (x.a_sw != a.sw) continue;
      for (const FabricLink& y : topo.links) {
        if (y.a_sw != b.sw || y.b_sw != x.b_sw) continue;
        const uint64_t slow = std::min(x.speed_bps, y.speed_bps);
        if (slow > best) {
          best = slow;
          up = {x.speed_bps, x.delay_ns};
          down = {y.speed_bps, y.delay_ns};
        }
      }
    }
    path.push_back(up);
    path.push_back(down);
  }
  path.push_back({b.speed_bps, b.delay_ns});
  return path;
}

uint64_t ideal_fct_ps(const std::vector<PathLink>& path, uint64_t size_bytes, uint32_t mtu) {
  if (path.empty() || size_bytes == 0 || mtu == 0) return 0;
  uint64_t slowest = UINT64_MAX;
  for (const PathLink& l : path) slowest = std::min(slowest, l.speed_bps);
  const uint64_t full = size_bytes / mtu;
  const uint32_t rest = static_cast<uint32_t>(size_bytes % mtu);
  const uint64_t w_full = roce_data_frame_bytes(mtu) + kWireOverheadBytes;
  const uint64_t w_last = roce_data_frame_bytes(rest ? rest : mtu) + kWireOverheadBytes;
  const uint64_t w_ack = roce_ack_frame_bytes() + kWireOverheadBytes;
  const uint64_t all_bytes = (rest ? full : full - 1) * w_full + w_last;
  uint64_t t = wire_ps(all_bytes, slowest) - wire_ps(w_last, slowest);
  for (const PathLink& l : path)
    t += wire_ps(w_last, l.speed_bps) + wire_ps(w_ack, l.speed_bps) + 2 * l.delay_ns * 1000;
  return t;
}

}  // namespace rocelb
