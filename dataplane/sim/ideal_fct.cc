#include "dataplane/sim/ideal_fct.h"

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

namespace {

// Per switch, the best way in from the source switch: the fewest hops over
// links that are up, and among those the path whose slowest link is
// fastest (then the least delay).
struct Best {
  uint32_t hops = UINT32_MAX;
  uint64_t slowest = 0, delay = 0;
  int via_link = -1;  // index into topo.links
  uint32_t from = 0;
};

// Per switch, the indices of the links that touch it, in index order.
std::vector<std::vector<uint32_t>> links_by_switch(const Topology& topo) {
  std::vector<std::vector<uint32_t>> adj(topo.switches.size());
  for (size_t i = 0; i < topo.links.size(); ++i) {
    const FabricLink& l = topo.links[i];
    adj.at(l.a_sw).push_back(static_cast<uint32_t>(i));
    if (l.b_sw != l.a_sw) adj.at(l.b_sw).push_back(static_cast<uint32_t>(i));
  }
  return adj;
}

// Breadth first from `from` over the whole fabric (a switch's entry is
// final once its level is done, so a search that goes on past it finds
// the same way in).
std::vector<Best> search(const Topology& topo, const std::vector<std::vector<uint32_t>>& adj,
                         uint32_t from) {
  std::vector<Best> best(topo.switches.size());
  best[from] = {0, UINT64_MAX, 0, -1, from};
  std::vector<uint32_t> frontier{from};
  while (!frontier.empty()) {
    std::vector<uint32_t> next;
    for (uint32_t u : frontier)
      for (uint32_t i : adj[u]) {
        const FabricLink& l = topo.links[i];
        if (!l.up) continue;
        const uint32_t v = l.a_sw == u ? l.b_sw : l.a_sw;
        const Best cand{best[u].hops + 1, std::min(best[u].slowest, l.speed_bps),
                        best[u].delay + l.delay_ns, static_cast<int>(i), u};
        Best& bv = best[v];
        if (bv.hops < cand.hops) continue;
        if (bv.hops == UINT32_MAX) next.push_back(v);
        if (bv.hops > cand.hops || cand.slowest > bv.slowest ||
            (cand.slowest == bv.slowest && cand.delay < bv.delay))
          bv = cand;
      }
    frontier = std::move(next);
  }
  return best;
}

// Into `path`: the source's host link, the switch links back from b's
// switch to a's (reversed), the destination's host link.
void path_from(const Topology& topo, const std::vector<Best>& best, const FabricHost& a,
               const FabricHost& b, std::vector<PathLink>& path) {
  path.clear();
  if (a.sw != b.sw && best[b.sw].hops == UINT32_MAX) return;  // no way through
  path.push_back({a.speed_bps, a.delay_ns});
  for (uint32_t v = b.sw; v != a.sw; v = best[v].from) {
    const FabricLink& l = topo.links[static_cast<size_t>(best[v].via_link)];
    path.push_back({l.speed_bps, l.delay_ns});
  }
  std::reverse(path.begin() + 1, path.end());
  path.push_back({b.speed_bps, b.delay_ns});
}

}  // namespace

struct HostPaths::Impl {
  const Topology& topo;
  std::vector<std::vector<uint32_t>> adj;
  std::vector<std::vector<Best>> from;  // per source switch, empty until asked
  std::vector<PathLink> path;           // the last path() returned
};

HostPaths::HostPaths(const Topology& topo)
    : impl_(new Impl{topo, links_by_switch(topo),
                     std::vector<std::vector<Best>>(topo.switches.size())}) {}

HostPaths::~HostPaths() = default;

const std::vector<PathLink>& HostPaths::path(uint32_t src, uint32_t dst) {
  const FabricHost& a = impl_->topo.port(src);
  const FabricHost& b = impl_->topo.port(dst);
  std::vector<Best>& best = impl_->from.at(a.sw);
  if (best.empty()) best = search(impl_->topo, impl_->adj, a.sw);
  path_from(impl_->topo, best, a, b, impl_->path);
  return impl_->path;
}

std::vector<PathLink> host_path(const Topology& topo, uint32_t src, uint32_t dst) {
  return HostPaths(topo).path(src, dst);
}

uint64_t ns3_standalone_fct_ns(const std::vector<PathLink>& path, uint64_t size_bytes,
                               uint32_t payload) {
  if (path.empty() || payload == 0) return 0;
  constexpr uint64_t kNs3HeaderBytes = 48;  // 14 + 20 + 14 (UDP + seq/pg), INT aside
  uint64_t slowest = UINT64_MAX, t = 0;
  for (const PathLink& l : path) {
    slowest = std::min(slowest, l.speed_bps);
    t += 2 * l.delay_ns + uint64_t{payload} * 8'000'000'000 / l.speed_bps;
  }
  const uint64_t packets = size_bytes == 0 ? 0 : (size_bytes - 1) / payload + 1;
  const unsigned __int128 bits =
      static_cast<unsigned __int128>(size_bytes + packets * kNs3HeaderBytes) * 8'000'000'000;
  return t + static_cast<uint64_t>(bits / slowest);
}

uint64_t ideal_fct_ps(const std::vector<PathLink>& path, uint64_t size_bytes, uint32_t mtu,
                      WireFraming framing) {
  if (path.empty() || size_bytes == 0 || mtu == 0) return 0;
  uint64_t slowest = UINT64_MAX;
  for (const PathLink& l : path) slowest = std::min(slowest, l.speed_bps);
  const uint64_t full = size_bytes / mtu;
  const uint32_t rest = static_cast<uint32_t>(size_bytes % mtu);
  const uint64_t w_full = framing.bytes(roce_data_frame_bytes(mtu));
  const uint64_t w_last = framing.bytes(roce_data_frame_bytes(rest ? rest : mtu));
  const uint64_t w_ack = framing.bytes(roce_ack_frame_bytes());
  const uint64_t all_bytes = (rest ? full : full - 1) * w_full + w_last;
  uint64_t t = wire_ps(all_bytes, slowest) - wire_ps(w_last, slowest);
  for (const PathLink& l : path)
    t += wire_ps(w_last, l.speed_bps) + wire_ps(w_ack, l.speed_bps) + 2 * l.delay_ns * 1000;
  return t;
}

}  // namespace rocelb
