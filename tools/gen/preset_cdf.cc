#include "tools/gen/preset_cdf.h"

#include <cstdio>

#include "dataplane/sim/flow_size_cdf.h"
#include "dataplane/sim/poisson_arrivals.h"
#include "dataplane/sim/workload_random.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"cdf", "WebSearch",
     "flow-size distribution: AliStorage2019, WebSearch, FbHdp2015, GoogleRPC2008"},
    {"load", "0.5", "share of each sender's link offered on average, 0.001..1"},
    {"duration", "5ms", "flows start in [0, duration)"},
    {"hosts", "auto", "senders, one per host port (auto: every host port)"},
    {"remotes", "16", "receivers behind the spines, 1..250"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
};
ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  const auto hosts = host_ports(ctx.config);
  if (hosts.empty()) a.fail("hosts", "the switch config has no host port");
  std::optional<FlowSizeCdf> cdf = FlowSizeCdf::named(a.text("cdf"));
  if (!cdf) {
    std::string names;
    for (const auto& n : named_cdfs()) names += (names.empty() ? "" : ", ") + std::string(n.name);
    a.fail("cdf", "cdf must be one of " + names);
  }
  const double load = a.real("load", 0.001, 1);
  const uint64_t duration = a.duration("duration", 1000, 10'000'000'000ull);
  const auto n_hosts = a.is("hosts", "auto")
                           ? static_cast<uint32_t>(hosts.size())
                           : static_cast<uint32_t>(a.uint("hosts", 1, hosts.size()));
  const auto remotes = static_cast<uint32_t>(a.uint("remotes", 1, 250));
  const auto mtu = static_cast<uint32_t>(a.uint("mtu", 256, 4096));
  if (mtu & (mtu - 1)) a.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");

  // Senders on leaf 0, receivers on leaf 1; only the senders draw flows
  // (each host draws from its own stream, so the receivers' draws would
  // change nothing here).
  Topology topo;
  for (uint32_t i = 0; i < n_hosts + remotes; ++i) {
    FabricHost h;
    h.sw = i < n_hosts ? 0 : 1;
    h.speed_bps = hosts[i < n_hosts ? i : 0].speed_bps;
    topo.hosts.push_back(h);
  }
  PoissonParams pp;
  pp.cdf = &*cdf;
  pp.load = load;
  pp.duration_ns = duration;
  pp.inter_leaf = true;
  pp.max_flows = kMaxScenarioFlows;
  pp.senders = n_hosts;
  auto flows = poisson_flows(topo, pp, ctx.seed);
  if (!flows)
    a.fail("duration", "more than " + std::to_string(kMaxScenarioFlows) +
                           " flows, what a scenario holds: lower duration or load");

  ScenarioParams sc;
  WorkloadRandom rng(ctx.seed, 0xcdf);
  uint64_t bytes = 0;
  for (const FabricFlow& ff : *flows) {
    if (ff.src >= n_hosts) continue;
    const HostPort& h = hosts[ff.src];
    const uint32_t j = ff.dst - n_hosts;
    FlowParams f = preset_flow(label("h", ff.src) + "-f" + std::to_string(sc.flows.size()), h.port,
                               h.ip, ipv4(10, 2, static_cast<uint8_t>(j), 2), h.speed_bps);
    f.start_ns = ff.start_ns;
    f.message_bytes = ff.size_bytes;
    f.sport = static_cast<uint16_t>(49152 + rng.below(16384));
    f.dest_qp = 0x1000 + static_cast<uint32_t>(sc.flows.size());
    f.mtu = mtu;
    bytes += ff.size_bytes;
    sc.flows.push_back(std::move(f));
  }
  if (sc.flows.empty()) a.fail("duration", "no flow starts within duration: raise it or load");
  uint64_t capacity_bits = 0;
  for (uint32_t i = 0; i < n_hosts; ++i) capacity_bits += hosts[i].speed_bps;
  char buf[200];
  std::snprintf(buf, sizeof buf,
                "%zu flows from %u senders, mean size %.0f B (%s mean %.0f B), offered load %.3f "
                "(target %.3f)",
                sc.flows.size(), n_hosts, double(bytes) / double(sc.flows.size()),
                a.text("cdf").c_str(), cdf->mean_bytes(),
                double(bytes) * 8 * 1e9 / (double(capacity_bits) * double(duration)), load);
  ctx.notes.push_back(buf);
  return sc;
}

}  // namespace

const PresetDef& cdf_preset() {
  static const PresetDef def{"cdf",
                             "Poisson flow arrivals at a target load with sizes from a published "
                             "distribution (WebSearch, AliStorage2019, ...)",
                             kParams, build};
  return def;
}

}  // namespace rocelb
