#include "tools/gen/preset_ecmp_collision.h"

#include "dataplane/sim/workload_random.h"
#include "dataplane/wire/flow_key_of.h"
#include "dataplane/wire/parser.h"
#include "lb/flow_hash.h"
#include "tools/gen/generator.h"

namespace rocelb {
namespace {

constexpr PresetParamSpec kParams[] = {
    {"flows", "4", "flows that all hash to one uplink, 2..64"},
    {"uplink", "auto", "the uplink's port id (auto: where the first flow lands)"},
    {"message", "256KiB", "bytes per message"},
    {"messages", "8", "messages per flow"},
    {"gap", "0", "idle time between a flow's messages"},
    {"mtu", "1024", "RoCE path MTU: 256, 512, 1024, 2048 or 4096"},
    {"group", "uplinks", "the ECMP group the flows' route uses"},
};
constexpr uint32_t kSportBase = 49152;
constexpr uint32_t kSports = 16384;

ScenarioParams build(const PresetArgs& a, PresetContext& ctx) {
  const auto hosts = host_ports(ctx.config);
  const std::string group = a.text("group");
  const auto uplinks = group_uplinks(ctx.config, group);
  const auto n = static_cast<uint32_t>(a.uint("flows", 2, 64));
  const uint64_t message = a.bytes("message", 1, 1ull << 31);
  const auto messages = static_cast<uint32_t>(a.uint("messages", 1, 100000));
  const uint64_t gap = a.duration("gap", 0, 1'000'000'000);
  const auto mtu = static_cast<uint32_t>(a.uint("mtu", 256, 4096));
  if (mtu & (mtu - 1)) a.fail("mtu", "mtu must be one of 256, 512, 1024, 2048, 4096");
  if (hosts.empty()) a.fail("flows", "the switch config has no host port");
  std::optional<uint16_t> target;
  if (!a.is("uplink", "auto")) {
    target = static_cast<uint16_t>(a.uint("uplink", 0, kMaxPorts - 1));
    bool member = false;
    for (const auto& u : uplinks) member = member || u.port == *target;
    if (!member) a.fail("uplink", "not the port of a member of group " + group);
  }

  ScenarioParams sc;
  WorkloadRandom rng(ctx.seed, 0xec);
  for (uint32_t i = 0; i < n; ++i) {
    const HostPort& h = hosts[i % hosts.size()];
    FlowParams f = preset_flow(label("c", i), h.port, h.ip, ipv4(10, 2, static_cast<uint8_t>(i), 2),
                               h.speed_bps);
    f.dest_qp = 0x100 * (i + 1);
    f.message_bytes = message;
    f.messages = messages;
    f.gap_ns = gap;
    f.mtu = mtu;
    const auto first = static_cast<uint32_t>(rng.below(kSports));
    bool found = false;
    for (uint32_t k = 0; k < kSports && !found; ++k) {
      f.sport = static_cast<uint16_t>(kSportBase + (first + k) % kSports);
      const uint16_t up = ecmp_uplink_of(f, ctx.config, group);
      if (!target) target = up;
      found = up == *target;
    }
    if (!found) a.fail("uplink", "no UDP source port of flow " + f.name + " hashes there");
    sc.flows.push_back(std::move(f));
  }
  const GroupParams* g = ctx.config.find_group(group);
  if (g->mode != LbMode::kFixed)
    ctx.notes.push_back("group " + group +
                        " is not in mode fixed: the hash places flows only under fixed");
  for (const auto& f : sc.flows) {
    const uint16_t up = ecmp_uplink_of(f, ctx.config, group);
    std::string name;
    for (const auto& u : uplinks)
      if (u.port == up) name = u.name;
    ctx.notes.push_back(f.name + ": port " + std::to_string(f.in_port) + " " + to_string(f.src) +
                        ":" + std::to_string(f.sport) + " -> " + to_string(f.dst) +
                        ":4791 hashes to uplink port " + std::to_string(up) +
                        (name.empty() ? "" : " (" + name + ")"));
  }
  return sc;
}

}  // namespace

uint16_t ecmp_uplink_of(const FlowParams& f, const ConfigParams& config, const std::string& group) {
  const GroupParams* g = config.find_group(group);
  if (!g || g->members.empty()) throw PresetError("the switch config has no group " + group);
  const std::vector<uint8_t> frame = build_frame(flow_frame_spec(f, 0, 0));
  const auto len = static_cast<uint32_t>(frame.size());
  ParsedPacket pp;
  if (parse_frame(frame.data(), len, len, pp) != ParseResult::ok)
    throw std::logic_error("ecmp_uplink_of: the generated frame does not parse");
  FlowKey key;
  flow_key_of(pp, frame.data(), len, key);
  const uint32_t hash = flow_hash(key, HashConfig{config.sw.hash_seed, g->hash_fields});
  const auto member = ecmp_pick(hash, static_cast<uint32_t>(g->members.size()));
  const NeighborParams* nb = config.find_neighbor(g->members[member].via);
  if (!nb) throw PresetError("group " + group + ": a member is not a neighbor");
  return nb->port;
}

const PresetDef& ecmp_collision_preset() {
  static const PresetDef def{
      "ecmp-collision",
      "flows whose UDP source ports make the switch's ECMP hash put them all on one uplink",
      kParams, build};
  return def;
}

}  // namespace rocelb
