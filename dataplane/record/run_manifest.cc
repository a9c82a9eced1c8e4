#include "dataplane/record/run_manifest.h"

#include "lb/lb_mode.h"

namespace rocelb {

Json run_manifest_switch(const std::string& name, const SwitchConfig& cfg) {
  Json s;
  s["name"] = name;
  Json ports = Json::array();
  for (uint16_t id : cfg.port_ids) {
    const PortConfig& p = cfg.ports[id];
    ports.push_back({{"id", id}, {"name", p.name}, {"speed_bps", p.speed_bps}});
  }
  s["ports"] = ports;
  Json groups = Json::array();
  for (const GroupConfig& g : cfg.groups) {
    Json members = Json::array();
    for (const GroupMember& m : g.members) members.push_back(m.port);
    groups.push_back(
        {{"name", g.name}, {"mode", std::string(to_string(g.spec.mode))}, {"members", members}});
  }
  s["groups"] = groups;
  Json ecn = Json::array();
  for (int c = 0; c < kNumTrafficClasses; ++c) {
    const WredProfile& w = cfg.qos.wred[c];
    if (!w.enabled) continue;
    ecn.push_back({{"class", c},
                   {"min_bytes", w.min_bytes},
                   {"max_bytes", w.max_bytes},
                   {"max_probability", w.probability_pct / 100.0},
                   {"where", cfg.qos.mark_at_enqueue ? "enqueue" : "dequeue"}});
  }
  s["ecn"] = ecn;
  Json classes = Json::array();
  for (int c = 0; c < kPfcPriorities; ++c)
    if (cfg.qos.pfc.lossless(static_cast<uint8_t>(c))) classes.push_back(c);
  Json pfc;
  pfc["classes"] = classes;
  pfc["dynamic"] = cfg.qos.pfc.dynamic;
  if (!cfg.qos.pfc.dynamic) {
    pfc["xoff_bytes"] = cfg.qos.pfc.xoff_bytes;
    pfc["xon_bytes"] = cfg.qos.pfc.xon_bytes;
  }
  s["pfc"] = pfc;
  return s;
}

Json run_manifest_json(const RunManifest& m) {
  Json j;
  j["kind"] = m.kind;
  j["t0_ns"] = m.t0_ns;
  j["end_ns"] = m.end_ns;
  if (m.interval_ns)
    j["interval_ns"] = m.interval_ns;
  else
    j["interval_ns"] = nullptr;
  j["outputs"] = m.outputs;
  j["switches"] = m.switches;
  for (auto it = m.extra.begin(); it != m.extra.end(); ++it) j[it.key()] = it.value();
  return j;
}

}  // namespace rocelb
