#include "tools/gen/preset_multitenant.h"

#include <algorithm>

#include "dataplane/sim/workload_random.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"by", "vlan", "how tenants are told apart: vlan (VID 100, 200, ...) or dscp"},
    {"tenants", "2", "tenants, 2..8: tenant 0 runs elephants, the others mice"},
    {"elephants", "4", "tenant 0's long transfers, 1..64"},
    {"elephant", "1MiB", "bytes of each elephant message"},
    {"elephant_messages", "8", "messages per elephant, back to back"},
    {"mice", "200", "short transfers per mouse tenant, 1..50000; all flows <= 50000"},
    {"mouse_min", "1KiB", "smallest mouse"},
    {"mouse_max", "64KiB", "largest mouse"},
    {"duration", "1ms", "mice arrive in [0, duration)"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
};
constexpr std::string_view kBy[] = {"vlan", "dscp"};

void mark(FlowParams& f, bool by_vlan, uint32_t tenant) {
  if (by_vlan) {
    f.vlan = tenant_vid(tenant);
    f.pcp = 3;
    f.dscp = 26;
  } else {
    f.dscp = kTenantDscp[tenant];
  }
}

ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  const auto hosts = host_ports(ctx.config);
  const bool by_vlan = a.choice("by", kBy) == "vlan";
  const auto tenants = static_cast<uint32_t>(a.uint("tenants", 2, 8));
  const auto elephants = static_cast<uint32_t>(a.uint("elephants", 1, 64));
  const uint64_t elephant = a.bytes("elephant", 1, 1ull << 31);
  const auto elephant_messages = static_cast<uint32_t>(a.uint("elephant_messages", 1, 100000));
  const uint64_t mice = a.uint("mice", 1, kMaxScenarioFlows);
  const uint64_t mouse_min = a.bytes("mouse_min", 1, 1ull << 31);
  const uint64_t mouse_max = a.bytes("mouse_max", 1, 1ull << 31);
  if (mouse_max < mouse_min) a.fail("mouse_max", "mouse_max must be at least mouse_min");
  const uint64_t duration = a.duration("duration", 1000, 60'000'000'000ull);
  const auto mtu = static_cast<uint32_t>(a.uint("mtu", 256, 4096));
  if (mtu & (mtu - 1)) a.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");
  if (hosts.empty()) a.fail("tenants", "the switch config has no host port");
  a.check_flows("mice", elephants + (tenants - 1) * mice,
                std::to_string(elephants) + " elephants + " + std::to_string(tenants - 1) +
                    " tenants x " + std::to_string(mice) + " mice");

  ScenarioParams sc;
  WorkloadRandom rng(ctx.seed, 0x7e4a);
  for (uint32_t e = 0; e < elephants; ++e) {
    const HostPort& h = hosts[e % hosts.size()];
    FlowParams f = preset_flow("t0-elephant" + std::to_string(e), h.port, h.ip,
                               ipv4(10, 2, static_cast<uint8_t>(e), 2), h.speed_bps);
    f.sport = static_cast<uint16_t>(49152 + rng.below(16384));
    f.dest_qp = 0x10000 | e;
    f.message_bytes = elephant;
    f.messages = elephant_messages;
    f.mtu = mtu;
    mark(f, by_vlan, 0);
    sc.flows.push_back(std::move(f));
  }
  for (uint32_t t = 1; t < tenants; ++t) {
    WorkloadRandom mrng(ctx.seed, 0x7e4a + t);
    for (uint64_t m = 0; m < mice; ++m) {
      const HostPort& h = hosts[mrng.below(hosts.size())];
      const auto dst = static_cast<uint32_t>(mrng.below(64));
      FlowParams f = preset_flow(label("t", t) + "-mouse" + std::to_string(m), h.port, h.ip,
                                 ipv4(10, 2, static_cast<uint8_t>(100 + dst), 2), h.speed_bps);
      f.start_ns = static_cast<uint64_t>(mrng.uniform() * double(duration));
      f.message_bytes = mouse_min + mrng.below(mouse_max - mouse_min + 1);
      f.sport = static_cast<uint16_t>(49152 + mrng.below(16384));
      f.dest_qp = (t << 20) | static_cast<uint32_t>(m & 0xfffff);
      f.mtu = mtu;
      mark(f, by_vlan, t);
      sc.flows.push_back(std::move(f));
    }
  }
  // Mice in start order read better in the YAML; the generator merges by
  // time anyway.
  std::stable_sort(
      sc.flows.begin() + elephants, sc.flows.end(),
      [](const FlowParams& x, const FlowParams& y) { return x.start_ns < y.start_ns; });
  std::string marks;
  for (uint32_t t = 0; t < tenants; ++t)
    marks += (t ? ", " : "") + std::string("tenant ") + std::to_string(t) + ": " +
             (by_vlan ? "VLAN " + std::to_string(tenant_vid(t))
                      : "DSCP " + std::to_string(kTenantDscp[t]));
  ctx.notes.push_back(marks);
  return sc;
}

}  // namespace

const PresetDef& multitenant_preset() {
  static const PresetDef def{"multitenant",
                             "one tenant's elephants beside other tenants' mice on the uplinks, "
                             "tenants told apart by VLAN or DSCP",
                             kParams, build};
  return def;
}

}  // namespace rocelb
