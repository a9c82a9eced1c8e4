#include "dataplane/mgmt/control_views.h"

#include <algorithm>
#include <set>
#include <string_view>

#include "control/net_types.h"

namespace rocelb {
namespace {

Json priorities(uint8_t mask) {
  Json a = Json::array();
  for (int p = 0; p < 8; ++p)
    if ((mask >> p) & 1) a.push_back(p);
  return a;
}

// The counters JSON of one port (by id), or an empty object.
const Json& port_counters(const Json& counters, uint16_t id) {
  static const Json kEmpty = Json::object();
  for (const auto& p : counters.at("ports"))
    if (p.at("id").get<uint16_t>() == id) return p;
  return kEmpty;
}

uint64_t u64(const Json& j, std::string_view key) {
  auto it = j.find(key);
  return it != j.end() && it->is_number() ? it->get<uint64_t>() : 0;
}

uint64_t at_prio(const Json& pfc, std::string_view key, int prio) {
  auto it = pfc.find(key);
  if (it == pfc.end() || !it->is_array() || static_cast<size_t>(prio) >= it->size()) return 0;
  return (*it)[static_cast<size_t>(prio)].get<uint64_t>();
}

const SchedulerParams& scheduler_of(const SwitchConfig& cfg, uint16_t id) {
  const PortParams* pp = cfg.params.find_port(id);
  return pp && pp->scheduler ? *pp->scheduler : cfg.params.qos.scheduler;
}

const char* ecn_name(EcnMode m) {
  return m == EcnMode::kEcnAll ? "ecn_all" : "ecn_none";
}

}  // namespace

Json view_ports(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  Json ports = Json::array();
  for (uint16_t id : cfg.port_ids) {
    const PortConfig& pc = cfg.ports[id];
    const Json& c = port_counters(counters, id);
    const PortTx& t = dp.tx(id);
    Json p;
    p["id"] = id;
    p["name"] = pc.name;
    p["device"] = pc.device;
    p["speed_bps"] = pc.speed_bps;
    p["admin_status"] = pc.admin_up ? "up" : "down";
    p["link"] = dp.link_up(id) ? "up" : "down";  // apart from admin_status
    p["link_changes"] = dp.link_changes(id);
    for (const char* k : {"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "drops_total"})
      p[k] = u64(c, k);
    p["queued_bytes"] = t.depth_bytes();
    p["load_bps"] = t.load_bps.load(std::memory_order_relaxed);
    p["pfc_paused"] = priorities(t.pause.paused_mask(now_ns));
    p["pfc_asserted"] = priorities(dp.pfc().asserted_mask(id));
    ports.push_back(std::move(p));
  }
  Json j;
  j["time_ns"] = now_ns;
  j["ports"] = std::move(ports);
  return j;
}

Json view_queues(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  Json queues = Json::array();
  for (uint16_t id : cfg.port_ids) {
    const PortConfig& pc = cfg.ports[id];
    const Json& c = port_counters(counters, id);
    const PortTx& t = dp.tx(id);
    const SchedulerParams& sp = scheduler_of(cfg, id);
    const uint8_t paused = t.pause.paused_mask(now_ns);
    for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
      const Json& qc = c.contains("queues") ? c["queues"][static_cast<size_t>(tc)] : Json::object();
      const bool strict = (pc.strict_mask >> tc) & 1;
      Json q;
      q["port"] = id;
      q["name"] = pc.name;
      q["tc"] = tc;
      q["lossless"] = cfg.qos.pfc.lossless(static_cast<uint8_t>(tc));
      q["scheduler"] = strict ? "strict" : "dwrr";
      q["weight"] = strict ? 0u : sp.weight[static_cast<size_t>(tc)];
      q["paused"] = ((paused >> tc) & 1) != 0;
      const EgressQueue& eq = t.queues[tc];
      // Live depths (not the snapshot's): the queue as it stands now.
      QueueGauges g;
      g.depth_packets = eq.depth_packets();
      g.depth_bytes = eq.depth_bytes();
      g.watermark_bytes = eq.watermark_bytes();
      g.limit_bytes = pc.queue_limit[static_cast<size_t>(tc)];
      for (const QueueGaugeInfo& info : kQueueGauges) q[std::string(info.name)] = g.*(info.field);
      for (const QueueCounterInfo& info : kQueueCounters)
        q[std::string(info.name)] = u64(qc, info.name);
      for (const WredCounterInfo& info : kWredCounters)
        q[std::string(info.name)] = u64(qc, info.name);
      queues.push_back(std::move(q));
    }
  }
  Json j;
  j["time_ns"] = now_ns;
  j["queues"] = std::move(queues);
  return j;
}

Json view_pfc(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  const LosslessParams& l = cfg.params.qos.lossless;
  const PfcGenerator& gen = dp.pfc();
  Json j;
  j["time_ns"] = now_ns;
  j["pfc_enable"] = priorities(l.pfc.enable_mask);
  j["pause_time"] = l.pfc.pause_quanta;
  Json th;
  th["mode"] = l.pfc.dynamic ? "dynamic" : "static";
  th["xoff_bytes"] = l.pfc.xoff_bytes;
  th["xon_bytes"] = l.pfc.xon_bytes;
  th["dynamic_th"] = l.pfc.dynamic_th;
  th["xon_offset_bytes"] = l.pfc.xon_offset_bytes;
  th["shared_buffer_bytes"] = l.pfc.shared_buffer_bytes;
  th["xoff_now_bytes"] = gen.xoff_threshold(cfg.qos.pfc);
  th["xon_now_bytes"] = gen.xon_threshold(cfg.qos.pfc);
  th["total_held_bytes"] = gen.total_held_bytes(cfg.qos.pfc);
  j["thresholds"] = std::move(th);
  Json wd;
  wd["enabled"] = l.watchdog.enabled;
  wd["detection_time_ns"] = l.watchdog.detection_ns;
  wd["restoration_time_ns"] = l.watchdog.restoration_ns;
  wd["action"] = watchdog_action_name(l.watchdog.action);
  j["watchdog"] = std::move(wd);

  Json ports = Json::array();
  for (uint16_t id : cfg.port_ids) {
    const Json& c = port_counters(counters, id);
    const Json& pfc = c.contains("pfc") ? c["pfc"] : Json::object();
    const PortTx& t = dp.tx(id);
    const uint8_t paused = t.pause.paused_mask(now_ns);
    const uint8_t asserted = gen.asserted_mask(id);
    Json p;
    p["port"] = id;
    p["name"] = cfg.ports[id].name;
    p["headroom_bytes"] = cfg.qos.pfc.headroom_bytes[id];
    Json prios = Json::array();
    for (int prio = 0; prio < kPfcPriorities; ++prio) {
      Json q;
      q["priority"] = prio;
      q["lossless"] = ((l.pfc.enable_mask >> prio) & 1) != 0;
      q["rx_frames"] = at_prio(pfc, "pfc_rx_frames", prio);
      q["rx_xon_frames"] = at_prio(pfc, "pfc_rx_xon_frames", prio);
      q["rx_pause_us"] = at_prio(pfc, "pfc_rx_pause_us", prio);
      q["paused"] = ((paused >> prio) & 1) != 0;
      q["tx_frames"] = at_prio(pfc, "pfc_tx_frames", prio);
      q["tx_xon_frames"] = at_prio(pfc, "pfc_tx_xon_frames", prio);
      q["xoff_asserted_us"] = at_prio(pfc, "xoff_asserted_us", prio);
      q["asserted"] = ((asserted >> prio) & 1) != 0;
      q["held_bytes"] = gen.held_bytes(id, static_cast<uint8_t>(prio));
      q["lossless_dropped"] = at_prio(pfc, "lossless_dropped", prio);
      const Json& w = c.contains("pfc_watchdog") ? c["pfc_watchdog"][static_cast<size_t>(prio)]
                                                 : Json::object();
      q["watchdog_state"] = w.value("state", "normal");
      q["storms_detected"] = u64(w, "storms_detected");
      q["storms_restored"] = u64(w, "storms_restored");
      q["watchdog_drops"] = u64(w, "packets_dropped");
      prios.push_back(std::move(q));
    }
    p["priorities"] = std::move(prios);
    ports.push_back(std::move(p));
  }
  j["ports"] = std::move(ports);
  return j;
}

Json view_ecn(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  const LosslessParams& l = cfg.params.qos.lossless;
  Json j;
  j["time_ns"] = now_ns;
  j["mark_point"] = l.ecn_mark == EcnMarkPoint::kDequeue ? "dequeue" : "enqueue";
  Json profiles = Json::array();
  for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
    const WredProfile& w = l.wred[static_cast<size_t>(tc)];
    if (!w.enabled) continue;
    Json p;
    p["tc"] = tc;
    p["green_min_threshold_bytes"] = w.min_bytes;
    p["green_max_threshold_bytes"] = w.max_bytes;
    p["green_drop_probability"] = w.probability_pct;
    p["ecn"] = ecn_name(w.ecn);
    profiles.push_back(std::move(p));
  }
  j["profiles"] = std::move(profiles);
  Json queues = Json::array();
  for (uint16_t id : cfg.port_ids) {
    const Json& c = port_counters(counters, id);
    for (int tc = 0; tc < kNumTrafficClasses; ++tc) {
      if (!l.wred[static_cast<size_t>(tc)].enabled) continue;
      const Json& qc = c.contains("queues") ? c["queues"][static_cast<size_t>(tc)] : Json::object();
      Json q;
      q["port"] = id;
      q["name"] = cfg.ports[id].name;
      q["tc"] = tc;
      q["depth_bytes"] = dp.tx(id).queues[tc].depth_bytes();
      for (const WredCounterInfo& info : kWredCounters)
        q[std::string(info.name)] = u64(qc, info.name);
      queues.push_back(std::move(q));
    }
  }
  j["queues"] = std::move(queues);
  return j;
}

Json view_groups(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  const SwitchConfig& cfg = dp.config();
  Json groups = Json::array();
  for (const GroupConfig& g : cfg.groups) {
    Json jg;
    jg["name"] = g.name;
    jg["mode"] = std::string(to_string(g.spec.mode));
    if (g.spec.bpf)  // mode bpf: which policy runs, and how
      jg["bpf"] = Json{{"program", g.spec.bpf->file},
                       {"section", g.spec.bpf->section},
                       {"run_by", g.spec.bpf->jitted() ? "jit" : "interpreter"}};
    const LbKnobs& k = g.spec.knobs;
    Json knobs;
    knobs["idle_time_ns"] = k.idle_time_ns;
    knobs["sampling_interval_ns"] = k.sampling_interval_ns;
    knobs["max_flows"] = k.max_flows;
    knobs["buckets"] = k.buckets;
    knobs["load_weight"] = k.quality.load_weight;
    knobs["queue_weight"] = k.quality.queue_weight;
    knobs["drill_d"] = k.drill.d;
    knobs["drill_m"] = k.drill.m;
    knobs["seed"] = g.spec.seed;
    jg["knobs"] = std::move(knobs);
    const Json* cg = nullptr;
    for (const auto& x : counters.at("groups"))
      if (x.at("name") == g.name) cg = &x;
    for (const LbCounterInfo& info : kLbCounters)
      jg[std::string(info.name)] = cg ? u64(*cg, info.name) : 0;
    uint64_t total = 0;
    if (cg)
      for (const auto& m : cg->at("members")) total += u64(m, "bytes");
    Json members = Json::array();
    for (size_t i = 0; i < g.members.size(); ++i) {
      const GroupMember& gm = g.members[i];
      const Json* cm = cg && i < cg->at("members").size() ? &cg->at("members")[i] : nullptr;
      Json m;
      m["via"] = to_string(gm.via);
      m["port"] = gm.port;
      m["weight"] = gm.weight;
      m["up"] = cfg.ports[gm.port].admin_up;
      for (const MemberCounterInfo& info : kMemberCounters)
        m[std::string(info.name)] = cm ? u64(*cm, info.name) : 0;
      m["share"] = total ? static_cast<double>(m["bytes"].get<uint64_t>()) / total : 0.0;
      members.push_back(std::move(m));
    }
    jg["members"] = std::move(members);
    groups.push_back(std::move(jg));
  }
  Json j;
  j["time_ns"] = now_ns;
  j["groups"] = std::move(groups);
  return j;
}

Json view_flowlets(const Dataplane& dp, uint64_t now_ns) {
  const Epoch& e = dp.epoch();
  const SwitchConfig& cfg = *e.config;
  Json groups = Json::array();
  for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
    const GroupConfig& g = cfg.groups[gi];
    const uint64_t idle = g.spec.knobs.idle_time_ns;
    Json jg;
    jg["name"] = g.name;
    jg["mode"] = std::string(to_string(g.spec.mode));
    struct Seen {
      uint64_t age;
      unsigned worker;
      uint32_t index;
      uint16_t member;
    };
    std::vector<Seen> seen;
    bool uses = false;
    for (unsigned w = 0; w < e.workers.size(); ++w) {
      const auto& engines = e.workers[w].engines;
      if (gi >= engines.size() || !engines[gi]) continue;
      const FlowletTable* table = engines[gi]->flowlet_table();
      if (!table) continue;
      uses = true;
      for (uint32_t i = 0; i < table->size(); ++i) {
        const FlowletEntry& fe = table->at(i);
        if (!fe.valid || fe.last_seen_ns > now_ns || now_ns - fe.last_seen_ns >= idle) continue;
        seen.push_back({now_ns - fe.last_seen_ns, w, i, fe.member});
      }
    }
    jg["uses_flowlets"] = uses;
    jg["idle_time_ns"] = idle;
    jg["max_flows"] = g.spec.knobs.max_flows;
    jg["active"] = seen.size();
    std::sort(seen.begin(), seen.end(), [](const Seen& a, const Seen& b) {
      return a.age != b.age         ? a.age < b.age
             : a.worker != b.worker ? a.worker < b.worker
                                    : a.index < b.index;
    });
    Json entries = Json::array();
    for (size_t i = 0; i < seen.size() && i < kMaxFlowletEntriesShown; ++i) {
      const Seen& s = seen[i];
      Json en;
      en["worker"] = s.worker;
      en["index"] = s.index;
      en["member"] = s.member;
      const bool known = s.member < g.members.size();
      en["port"] = known ? g.members[s.member].port : 0;
      en["via"] = known ? to_string(g.members[s.member].via) : "";
      en["age_ns"] = s.age;
      entries.push_back(std::move(en));
    }
    jg["entries"] = std::move(entries);
    jg["truncated"] = seen.size() > kMaxFlowletEntriesShown;
    groups.push_back(std::move(jg));
  }
  Json j;
  j["time_ns"] = now_ns;
  j["groups"] = std::move(groups);
  return j;
}

Json view_lcores(const Dataplane& dp, const Json& counters, uint64_t now_ns) {
  (void)dp;
  Json j;
  j["time_ns"] = now_ns;
  j["tsc_hz"] = counters.value("tsc_hz", uint64_t{0});
  Json lcores = Json::array();
  if (counters.contains("lcores"))
    for (const auto& c : counters.at("lcores")) {
      Json l = c;
      const uint64_t busy = u64(c, "busy_cycles"), idle = u64(c, "idle_cycles");
      const uint64_t rx = u64(c, "rx_packets");
      l["busy_pct"] = busy + idle ? 100.0 * static_cast<double>(busy) / double(busy + idle) : 0.0;
      l["cycles_per_packet"] = rx ? static_cast<double>(busy) / double(rx) : 0.0;
      lcores.push_back(std::move(l));
    }
  j["lcores"] = std::move(lcores);
  return j;
}

namespace {

// Keys whose numbers are states, not counts: `clear counters` leaves them.
bool is_gauge(std::string_view key) {
  static const std::set<std::string_view> kGauges = {"id",
                                                     "worker",
                                                     "lcore",
                                                     "tsc_hz",
                                                     "port",
                                                     "tc",
                                                     "speed_bps",
                                                     "weight",
                                                     "depth_packets",
                                                     "depth_bytes",
                                                     "watermark_bytes",
                                                     "limit_bytes",
                                                     "storm",
                                                     "queued_packets",
                                                     "first_ns",
                                                     "last_ns",
                                                     "time_ns",
                                                     "qps",
                                                     "max_psn_gap"};
  return kGauges.count(key) != 0;
}

void subtract(Json& now, const Json& base, bool gauge) {
  if (now.is_object() && base.is_object()) {
    for (auto& [k, v] : now.items()) {
      auto it = base.find(k);
      if (it != base.end()) subtract(v, *it, is_gauge(k));
    }
  } else if (now.is_array() && base.is_array()) {
    for (size_t i = 0; i < now.size(); ++i) {
      Json& v = now[i];
      const Json* b = nullptr;
      if (v.is_object() && v.contains("name")) {  // ports, groups: by name
        for (const auto& x : base)
          if (x.is_object() && x.value("name", Json()) == v["name"]) b = &x;
      } else if (i < base.size()) {
        b = &base[i];
      }
      if (b) subtract(v, *b, gauge);
    }
  } else if (!gauge && now.is_number_unsigned() && base.is_number_unsigned()) {
    const uint64_t n = now.get<uint64_t>(), b = base.get<uint64_t>();
    now = n > b ? n - b : 0;
  }
}

}  // namespace

Json counters_minus(const Json& counters, const Json& base) {
  Json out = counters;
  subtract(out, base, false);
  return out;
}

Json view_memory(const MemoryEstimate& e, uint64_t limit_bytes) {
  Json j;
  j["total_bytes"] = e.total;
  j["limit_bytes"] = limit_bytes;
  j["workers"] = e.runtime.workers;
  j["pool_mbufs"] = e.runtime.pool_mbufs;
  j["xdp_pools"] = e.xdp_pools;
  j["xdp_pool_mbufs"] = e.runtime.xdp_pool_mbufs;
  j["ring_capacity"] = e.runtime.ring_capacity;
  j["page_bytes"] = e.runtime.page_bytes;
  j["items"] = Json::array();
  for (const MemoryItem& i : e.items) {
    Json item;
    item["name"] = i.name;
    item["key"] = i.key.empty() ? Json() : Json(i.key);
    item["bytes"] = i.bytes;
    j["items"].push_back(std::move(item));
  }
  return j;
}

}  // namespace rocelb
