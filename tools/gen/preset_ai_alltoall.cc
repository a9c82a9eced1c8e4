#include "tools/gen/preset_ai_alltoall.h"

#include <algorithm>

#include "dataplane/sim/workload_random.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"workers", "8", "ranks in the collective, 2..64"},
    {"local", "auto",
     "ranks on this leaf's host ports, one per port (auto: half the ranks, at most the host "
     "ports); the rest are remote"},
    {"message", "256KiB", "bytes each rank sends each other rank per phase"},
    {"phases", "4", "all-to-all rounds, 1..1000"},
    {"gap", "10us", "idle time between the end of a phase and the next"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
    {"group", "uplinks", "the group whose members are the uplinks"},
};

IpAddr rank_ip(uint32_t rank, uint32_t local, const std::vector<HostPort>& hosts) {
  return rank < local ? hosts[rank].ip : ipv4(10, 2, static_cast<uint8_t>(rank - local), 2);
}

ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  const auto hosts = host_ports(ctx.config);
  const auto uplinks = group_uplinks(ctx.config, a.text("group"));
  const auto workers = static_cast<uint32_t>(a.uint("workers", 2, 64));
  if (hosts.empty()) a.fail("local", "the switch config has no host port");
  const auto local = a.is("local", "auto")
                         ? std::min<uint32_t>(static_cast<uint32_t>(hosts.size()),
                                              std::max<uint32_t>(1, workers / 2))
                         : static_cast<uint32_t>(a.uint("local", 1, hosts.size()));
  if (local > workers)
    a.fail("local", "local must be at most workers (" + std::to_string(workers) + ")");
  const uint64_t message = a.bytes("message", 1, 1ull << 31);
  const auto phases = static_cast<uint32_t>(a.uint("phases", 1, 1000));
  const uint64_t gap = a.duration("gap", 0, 1'000'000'000);
  const auto mtu = static_cast<uint32_t>(a.uint("mtu", 256, 4096));
  if (mtu & (mtu - 1)) a.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");

  uint64_t speed = UINT64_MAX;
  for (uint32_t r = 0; r < local; ++r) speed = std::min(speed, hosts[r].speed_bps);
  const uint64_t rate = speed / (workers - 1);

  ScenarioParams sc;
  WorkloadRandom rng(ctx.seed, 0xa11);
  uint32_t down = 0;  // remote-to-local flows so far: picks their uplink
  for (uint32_t s = 0; s < workers; ++s) {
    for (uint32_t d = 0; d < workers; ++d) {
      if (s == d) continue;
      const uint16_t sport = static_cast<uint16_t>(49152 + rng.below(16384));
      if (s >= local && d >= local) continue;  // never reaches this leaf
      const uint16_t in_port = s < local ? hosts[s].port : uplinks[down++ % uplinks.size()].port;
      FlowParams f = preset_flow(label("r", s) + "-to-r" + std::to_string(d), in_port,
                                 rank_ip(s, local, hosts), rank_ip(d, local, hosts), rate);
      f.sport = sport;
      f.dest_qp = ((d + 1) << 12) | (s + 1);  // rank d's QP for its peer s
      f.message_bytes = message;
      f.messages = phases;
      f.gap_ns = gap;
      f.mtu = mtu;
      sc.flows.push_back(std::move(f));
    }
  }
  ctx.notes.push_back(std::to_string(workers) + " ranks: r0..r" + std::to_string(local - 1) +
                      " on host ports, " + std::to_string(workers - local) +
                      " behind the spines (10.2.R.2); every queue pair at " + std::to_string(rate) +
                      " bit/s");
  ctx.notes.push_back(
      "phase k of every flow starts at the same time: all messages of a phase "
      "have the same size and rate");
  return sc;
}

}  // namespace

const PresetDef& ai_alltoall_preset() {
  static const PresetDef def{
      "ai-alltoall",
      "synchronized all-to-all phases of large messages between ranks on this leaf and behind "
      "the spines",
      kParams, build};
  return def;
}

}  // namespace rocelb
