#include "dataplane/forward/switch_config.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

#include "control/config_loader.h"
#include "dataplane/bpf/bpf_policy_loader.h"

namespace rocelb {
namespace {

void apply_scheduler(PortConfig& pc, const SchedulerParams& s) {
  pc.strict_mask = 0;
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    if (s.strict[c]) pc.strict_mask |= uint8_t(1u << c);
    pc.quantum[c] = s.weight[c] * kDwrrQuantumPerWeight;
  }
}

uint32_t add_nexthop(SwitchConfig& sc, const NextHop& nh) {
  sc.nexthops.push_back(nh);
  return static_cast<uint32_t>(sc.nexthops.size() - 1);
}

void add_route(RouteTable& t, const IpPrefix& p, uint32_t nh) {
  if (p.addr.is_v4())
    t.add_v4(p.addr.b.data(), p.len, nh);
  else
    t.add_v6(p.addr.b.data(), p.len, nh);
}

IpPrefix network_of(const IpPrefix& p) {
  IpPrefix n = p;
  int bits = p.addr.is_v4() ? 32 : 128;
  for (int i = p.len; i < bits; ++i) n.addr.b[i / 8] &= uint8_t(~(0x80u >> (i % 8)));
  return n;
}

// Everything the route tables and next hops are built from.
bool same_routing(const ConfigParams& a, const ConfigParams& b) {
  if (a.routes.size() != b.routes.size() || a.neighbors.size() != b.neighbors.size() ||
      a.ports.size() != b.ports.size() || a.groups.size() != b.groups.size())
    return false;
  for (size_t i = 0; i < a.routes.size(); ++i) {
    const RouteParams &x = a.routes[i], &y = b.routes[i];
    if (!(x.prefix == y.prefix) || x.target != y.target || x.group != y.group || x.port != y.port ||
        !(x.via == y.via))
      return false;
  }
  for (size_t i = 0; i < a.neighbors.size(); ++i) {
    const NeighborParams &x = a.neighbors[i], &y = b.neighbors[i];
    if (!(x.ip == y.ip) || !(x.mac == y.mac) || x.port != y.port) return false;
  }
  for (size_t i = 0; i < a.ports.size(); ++i) {
    const PortParams &x = a.ports[i], &y = b.ports[i];
    if (x.id != y.id || x.ipv4 != y.ipv4 || x.ipv6 != y.ipv6) return false;
  }
  for (size_t i = 0; i < a.groups.size(); ++i)
    if (a.groups[i].name != b.groups[i].name) return false;
  return true;
}

// The group of `previous` named as g, or null.
const GroupConfig* previous_group(const SwitchConfig* previous, const std::string& name) {
  if (!previous) return nullptr;
  for (const GroupConfig& old : previous->groups)
    if (old.name == name) return &old;
  return nullptr;
}

// The program `previous` runs for a group named as g, loaded from the same
// bytes with g's bpf.* keys; null when there is none.
std::shared_ptr<const LbBpfProgram> loaded_policy(const SwitchConfig* previous,
                                                  const GroupParams& g, const BpfPolicyFile* file) {
  const GroupConfig* old = previous_group(previous, g.name);
  if (!old || !old->spec.bpf || old->policy_file.get() != file) return nullptr;
  const GroupParams* op = previous->params.find_group(g.name);
  return op && op->bpf == g.bpf ? old->spec.bpf : nullptr;
}

}  // namespace

std::unique_ptr<SwitchConfig> SwitchConfig::build(const ConfigParams& params,
                                                  const SwitchConfig* previous,
                                                  const std::vector<std::string>& reload) {
  auto sc = std::make_unique<SwitchConfig>();
  sc->params = params;
  sc->trust = params.qos.trust;
  sc->dscp_to_tc = params.qos.dscp_to_tc;
  sc->pcp_to_tc = params.qos.pcp_to_tc;
  sc->default_tc = params.qos.default_tc;

  for (const auto& p : params.ports) {
    PortConfig& pc = sc->ports[p.id];
    pc.present = true;
    pc.id = p.id;
    pc.name = p.name;
    pc.speed_bps = p.speed_bps;
    std::memcpy(pc.mac, p.mac.b.data(), 6);
    pc.promiscuous = p.promiscuous;
    pc.admin_up = p.admin_up;
    pc.mtu = p.mtu;
    pc.device = p.device;
    if (p.ipv4) {
      pc.has_v4 = true;
      std::memcpy(pc.v4, p.ipv4->addr.b.data(), 4);
    }
    if (p.ipv6) {
      pc.has_v6 = true;
      std::memcpy(pc.v6, p.ipv6->addr.b.data(), 16);
    }
    apply_scheduler(pc, p.scheduler ? *p.scheduler : params.qos.scheduler);
    pc.queue_limit = params.qos.queue_limit_bytes;
    // A lossless class is bounded by PFC (XOFF + headroom per ingress port),
    // not by tail drop: its queue may use the whole shared buffer.
    const PfcParams& pfc = params.qos.lossless.pfc;
    for (int c = 0; c < kNumTrafficClasses; ++c)
      if ((pfc.enable_mask >> c) & 1)
        pc.queue_limit[c] = std::max(pc.queue_limit[c], pfc.shared_buffer_bytes);
    sc->port_ids.push_back(p.id);
  }

  const LosslessParams& l = params.qos.lossless;
  std::array<uint64_t, kMaxPorts> speeds{};
  for (uint16_t id : sc->port_ids) speeds[id] = sc->ports[id].speed_bps;
  sc->qos.pfc = PfcConfig::build(l.pfc, speeds);
  sc->qos.wred = l.wred;
  sc->qos.mark_at_enqueue = l.ecn_mark == EcnMarkPoint::kEnqueue;
  sc->qos.watchdog = l.watchdog;
  sc->qos.seed = params.sw.hash_seed;

  sc->neighbors = NeighborTable(params.neighbors.size() + 2 * params.ports.size());
  for (const auto& n : params.neighbors) {
    NeighborEntry e;
    e.family = n.ip.family;
    std::memcpy(e.ip, n.ip.b.data(), 16);
    e.port = n.port;
    std::memcpy(e.mac, n.mac.b.data(), 6);
    sc->neighbors.insert(e);
  }

  sc->nexthops.push_back(NextHop{});  // kNoRoute
  uint32_t nh_local = add_nexthop(*sc, NextHop{NextHopKind::kLocal, 0, {}, 0});

  std::array<bool, kMaxPorts> port_has_group{};
  // Policy files read by this build (by path) and programs loaded from them.
  std::vector<std::shared_ptr<const BpfPolicyFile>> read_now;
  struct Loaded {
    BpfParams bpf;
    const BpfPolicyFile* file;
    std::shared_ptr<const LbBpfProgram> program;
  };
  std::vector<Loaded> fresh;
  // The validator's work for every policy this build loads: one budget.
  BpfChangeBudget change;
  for (const auto& g : params.groups)
    if (g.mode == LbMode::kBpf) change.total = std::max(change.total, g.bpf.validation_steps);
  change.left = change.total;
  for (const auto& g : params.groups) {
    GroupConfig gc;
    gc.name = g.name;
    gc.spec.mode = g.mode;
    gc.spec.hash.seed = params.sw.hash_seed;
    gc.spec.hash.fields = g.hash_fields;
    gc.spec.knobs = g.knobs;
    gc.spec.seed = params.sw.hash_seed;
    gc.needs_depth = uses_quality(g.mode) || g.mode == LbMode::kDrill || g.mode == LbMode::kBpf;
    if (g.mode == LbMode::kConWeave && !sc->conweave) {
      sc->conweave = true;
      sc->conweave_knobs = g.knobs.conweave;
      sc->conweave_flows = g.knobs.max_flows;
    }
    // A policy is read when its group names it, whatever the mode: by the
    // writer that named it, with that writer's rights (ControlService). The
    // bytes are kept while bpf.program stays, unless the write set it again.
    auto refused = [&](const BpfPolicyError& e) {
      const std::string key = "groups." + g.name + ".bpf.program";
      return ConfigError(
          params.origin_of(key, {"groups." + g.name + ".bpf", "groups." + g.name + ".mode"}) +
          ": " + key + ": " + e.what());
    };
    if (!g.bpf.program.empty()) {
      const GroupConfig* old = previous_group(previous, g.name);
      const bool named = std::find(reload.begin(), reload.end(), g.name) != reload.end();
      if (!named && old && old->policy_file && old->policy_file->file == g.bpf.program)
        gc.policy_file = old->policy_file;
      for (const auto& f : read_now)
        if (!gc.policy_file && f->file == g.bpf.program) gc.policy_file = f;
      if (!gc.policy_file) try {
          gc.policy_file = read_bpf_policy(g.bpf.program);
          read_now.push_back(gc.policy_file);
        } catch (const BpfPolicyError& e) {
          throw refused(e);
        }
    }
    if (g.mode == LbMode::kBpf) {
      gc.spec.bpf = loaded_policy(previous, g, gc.policy_file.get());
      // Groups that name the same policy in this build share one load.
      for (const Loaded& l : fresh)
        if (!gc.spec.bpf && l.bpf == g.bpf && l.file == gc.policy_file.get())
          gc.spec.bpf = l.program;
      // Loaded (libbpf) and validated and compiled (rte_bpf) here, on the
      // thread that builds the config: a refusal leaves the running config.
      if (!gc.spec.bpf) try {
          gc.spec.bpf = load_bpf_policy(*gc.policy_file, g.bpf.section, g.bpf.jit,
                                        g.bpf.validation_steps, &change);
          fresh.push_back({g.bpf, gc.policy_file.get(), gc.spec.bpf});
        } catch (const BpfPolicyError& e) {
          throw refused(e);
        }
    }
    gc.depth_whole_port = g.knobs.quality.depth == QueueDepthSource::kPort;
    for (const auto& m : g.members) {
      const NeighborParams* n = params.find_neighbor(m.via);
      if (!n)
        throw std::runtime_error("group " + g.name + ": member " + to_string(m.via) +
                                 " is not a neighbor");
      GroupMember gm;
      gm.port = n->port;
      std::memcpy(gm.mac, n->mac.b.data(), 6);
      gm.via = m.via;
      gm.weight = m.weight;
      gc.members.push_back(gm);
      gc.spec.weights.push_back(m.weight);
      PortConfig& pc = sc->ports[n->port];
      MemberPath path;
      path.speed_bps = pc.speed_bps;
      path.up = pc.admin_up;
      gc.paths.push_back(path);
      if (!port_has_group[n->port] || g.knobs.sampling_interval_ns < pc.load_interval_ns) {
        pc.load_interval_ns = g.knobs.sampling_interval_ns;
        pc.load_alpha_q16 = g.knobs.quality.load_alpha_q16;
      }
      port_has_group[n->port] = true;
    }
    sc->groups.push_back(std::move(gc));
  }

  if (previous && previous->routes && same_routing(previous->params, params)) {
    sc->routes = previous->routes;
    sc->nexthops = previous->nexthops;
    return sc;
  }

  // Every prefix with its next hop (identical next hops shared: a full
  // table into one group is one next hop), then tables sized for them.
  std::vector<std::pair<IpPrefix, uint32_t>> prefixes;
  prefixes.reserve(params.routes.size() + 4 * params.ports.size());
  std::map<std::tuple<NextHopKind, uint16_t, std::array<uint8_t, 6>, uint32_t>, uint32_t> shared;
  auto nexthop_id = [&](const NextHop& nh) {
    std::array<uint8_t, 6> mac;
    std::memcpy(mac.data(), nh.mac, 6);
    auto [it, fresh] = shared.try_emplace({nh.kind, nh.port, mac, nh.group}, 0);
    if (fresh) it->second = add_nexthop(*sc, nh);
    return it->second;
  };
  // Static routes first; connected subnets and the switch's own addresses are
  // added after, so they win over a static route for the same prefix.
  for (const auto& r : params.routes) {
    NextHop nh;
    switch (r.target) {
      case RouteTarget::kGroup:
        nh.kind = NextHopKind::kGroup;
        for (size_t i = 0; i < sc->groups.size(); ++i)
          if (sc->groups[i].name == r.group) nh.group = static_cast<uint32_t>(i);
        break;
      case RouteTarget::kPort:
        nh.kind = NextHopKind::kConnected;
        nh.port = r.port;
        break;
      case RouteTarget::kVia: {
        const NeighborParams* n = params.find_neighbor(r.via);
        if (!n) throw std::runtime_error("route via " + to_string(r.via) + ": not a neighbor");
        nh.kind = NextHopKind::kNeighbor;
        nh.port = n->port;
        std::memcpy(nh.mac, n->mac.b.data(), 6);
        break;
      }
    }
    prefixes.emplace_back(r.prefix, nexthop_id(nh));
  }
  for (const auto& p : params.ports) {
    NextHop nh;
    nh.kind = NextHopKind::kConnected;
    nh.port = p.id;
    const uint32_t id = nexthop_id(nh);
    for (const auto& a : {p.ipv4, p.ipv6}) {
      if (!a) continue;
      prefixes.emplace_back(network_of(*a), id);
      IpPrefix host = *a;
      host.len = a->addr.is_v4() ? 32 : 128;
      prefixes.emplace_back(host, nh_local);
    }
  }
  RouteTableSize size;
  for (const auto& [prefix, nh] : prefixes) size.add(prefix.addr.is_v4(), prefix.len);
  size.next_hops = static_cast<uint32_t>(sc->nexthops.size());
  auto table = std::make_shared<RouteTable>(size);
  for (const auto& [prefix, nh] : prefixes) add_route(*table, prefix, nh);
  sc->routes = std::move(table);
  return sc;
}

}  // namespace rocelb
