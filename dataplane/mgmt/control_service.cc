#include "dataplane/mgmt/control_service.h"

#include "dataplane/xdp/xdp_steering.h"

#include <algorithm>
#include <iostream>
#include <optional>

#include "control/config_loader.h"
#include "control/default_config.h"
#include "control/peer_file_rights.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "dataplane/mgmt/control_views.h"
#include "dataplane/mgmt/memory_runtime.h"
#include "dataplane/record/counters_prometheus.h"

namespace rocelb {

RunningConfigText startup_config_text(const std::string& file,
                                      const std::vector<std::string>& sets) {
  RunningConfigText r;
  r.file = file;
  r.text = file.empty() ? std::string(embedded_default_config()) : read_config_file(file);
  r.source = file.empty() ? std::string(kEmbeddedDefaultName) : file;
  r.startup_sets = sets;
  r.overrides = sets;
  return r;
}

ControlService::ControlService(LiveRun& live, RunningConfigText running)
    : live_(live), running_(std::move(running)) {
  memory_ = live_memory_runtime();
  memory_.workers = live.dataplane().num_workers();
  memory_.pool_mbufs = live.pool()->size;
  if (live.xdp_pool_mbufs()) memory_.xdp_pool_mbufs = live.xdp_pool_mbufs();
}

namespace {

// The group whose policy file a `set` names: its key is
// "groups.<name>.bpf.program" or "groups.<name>.bpf" ("" for any other key,
// a knob of the policy included: those reuse the bytes read when the file
// was named, and never open it again with this writer's rights).
std::string bpf_group_of(const std::string& key) {
  const std::string prefix = "groups.";
  if (key.rfind(prefix, 0) != 0) return "";
  const size_t dot = key.find('.', prefix.size());
  if (dot == std::string::npos) return "";
  const std::string group = key.substr(prefix.size(), dot - prefix.size());
  const std::string bpf = prefix + group + ".bpf";
  return key == bpf || path_within(key, bpf + ".program") ? group : "";
}

// The overrides in effect, each with who gave it, as errors name it: the
// command line's "--set", or a client's "rocelbctl set".
std::vector<ConfigOverride> overrides_with_origin(const RunningConfigText& t) {
  std::vector<ConfigOverride> out;
  for (const std::string& o : t.overrides) {
    const bool startup =
        std::find(t.startup_sets.begin(), t.startup_sets.end(), o) != t.startup_sets.end();
    out.push_back({o, startup ? "--set" : "rocelbctl set"});
  }
  return out;
}

}  // namespace

uint64_t ControlService::publish(const ConfigParams& params, const ControlPeer* peer,
                                 const std::vector<std::string>& reload) {
  std::unique_ptr<SwitchConfig> next;
  {
    // A policy file a client names is opened with the client's rights.
    std::optional<PeerFileRights> rights;
    if (peer) rights.emplace(peer->uid, peer->gid, peer->groups);
    next = SwitchConfig::build(params, &live_.dataplane().config(), reload);
  }
  // The control socket first: it may refuse (control.group), and then
  // nothing has changed.
  const ControlServerOptions before = server_ ? server_->options() : ControlServerOptions{};
  if (server_) server_->reconfigure(control_server_options(params.control));
  try {
    live_.apply(std::move(next));
  } catch (...) {
    if (server_) server_->reconfigure(before);
    throw;
  }
  return live_.dataplane().epoch().generation;
}

Json ControlService::counters_cleared(uint64_t now_ns) const {
  Json c = counters_to_json(live_.dataplane(), live_.dataplane().snapshot(), now_ns);
  return baseline_.is_null() ? c : counters_minus(c, baseline_);
}

Json ControlService::xdp_ports() const {
  Json out = Json::array();
  const XdpSteering* xdp = live_.xdp();
  if (!xdp) return out;
  for (uint16_t id : live_.dataplane().config().port_ids)
    if (xdp->steered(id)) out.push_back(Json{{"id", id}, {"xdp", xdp->stats(id)}});
  return out;
}

Json ControlService::show(const std::string& what) {
  const Dataplane& dp = live_.dataplane();
  const uint64_t now = live_.now_ns();
  if (what == "flowlets") return view_flowlets(dp, now);
  if (what == "config") {
    Json j;
    j["generation"] = dp.epoch().generation;
    j["source"] = running_.source;
    j["overrides"] = running_.overrides;
    j["yaml"] = effective_config_yaml(running_.text, running_.overrides);
    const ConfigParams& params = dp.config().params;
    j["memory"] = view_memory(estimate_memory(params, memory_), params.limits.max_memory_bytes);
    return j;
  }
  if (what == "metrics") {  // never cleared: Prometheus counters only go up
    Json j;
    j["content_type"] = kPrometheusContentType;
    std::string text = counters_prometheus(counters_to_json(dp, dp.snapshot(), now));
    if (server_) {
      ControlMetrics m = control_metrics(*server_);
      m.writes_applied = stats_.writes_applied;
      m.writes_refused = stats_.writes_refused;
      text += control_prometheus(m);
    }
    if (const Json x = xdp_ports(); !x.empty()) text += xdp_prometheus(x);
    j["text"] = std::move(text);
    return j;
  }
  const Json c = counters_cleared(now);
  if (what == "ports") {
    Json j = view_ports(dp, c, now);
    for (Json& p : j["ports"]) {
      const uint16_t id = p["id"].get<uint16_t>();
      p["link_detect"] = live_.follows_link(id) ? "device" : "config";
      if (live_.xdp() && live_.xdp()->steered(id)) p["xdp"] = live_.xdp()->stats(id);
    }
    return j;
  }
  if (what == "queues") return view_queues(dp, c, now);
  if (what == "pfc") return view_pfc(dp, c, now);
  if (what == "ecn") return view_ecn(dp, c, now);
  if (what == "groups") return view_groups(dp, c, now);
  if (what == "lcores") return view_lcores(dp, c, now);
  Json j = c;  // counters
  j["time_ns"] = now;
  return j;
}

std::string ControlService::handle(const ParsedRequest& req, const ControlPeer& peer) {
  if (!req.is_write()) return reply_ok(req.id, show(req.what));

  const std::string who = "uid " + std::to_string(peer.uid) + " pid " + std::to_string(peer.pid);
  if (req.verb == ControlVerb::kClear) {  // what == counters (the parser checked)
    const uint64_t now = live_.now_ns();
    baseline_ = counters_to_json(live_.dataplane(), live_.dataplane().snapshot(), now);
    std::cerr << "rocelb-dp: control: counters cleared by " << who << "\n";
    Json r;
    r["cleared_at_ns"] = now;
    return reply_ok(req.id, r);
  }

  // set / apply: the loader's validation, then publication.
  RunningConfigText next = running_;
  std::string what;
  std::vector<std::string> reload;
  try {
    if (req.verb == ControlVerb::kSet) {
      const std::string ov = set_override(req);
      // The same key set again replaces its earlier value (the list stays short).
      std::erase_if(next.overrides, [&](const std::string& o) {
        return o.compare(0, req.key.size() + 1, req.key + "=") == 0;
      });
      next.overrides.push_back(ov);
      what = "set " + ov;
      // Naming a policy file reads it again, even under the same path.
      if (const std::string g = bpf_group_of(req.key); !g.empty()) reload.push_back(g);
    } else {
      next.text = req.config;
      next.source = "control apply";
      next.overrides.clear();
      what = "apply (" + std::to_string(req.config.size()) + " bytes)";
    }
    const ConfigParams params =
        load_config_with(next.text, next.source, overrides_with_origin(next), memory_);
    // Who may connect and how many: only root changes that.
    if (peer.uid != 0 && !(params.control == live_.dataplane().config().params.control))
      throw ConfigError((req.verb == ControlVerb::kSet ? req.key : std::string("control")) +
                        ": changing control.* needs root (uid 0); this client is uid " +
                        std::to_string(peer.uid));
    const uint64_t gen = publish(params, &peer, reload);
    running_ = std::move(next);
    ++stats_.writes_applied;
    std::cerr << "rocelb-dp: control: " << what << " by " << who << ": generation " << gen << "\n";
    Json r;
    r["generation"] = gen;
    if (req.verb == ControlVerb::kSet) {
      r["key"] = req.key;
      r["value"] = req.value;
    }
    return reply_ok(req.id, r);
  } catch (const std::exception& e) {
    ++stats_.writes_refused;
    const std::string why = e.what();
    std::cerr << "rocelb-dp: control: " << what << " by " << who << " refused: " << why << "\n";
    return reply_error(req.id, why);
  }
}

std::string ControlService::reload_file() {
  try {
    RunningConfigText next = startup_config_text(running_.file, running_.startup_sets);
    const uint64_t gen = publish(load_config_text(next.text, next.source, next.overrides, memory_));
    running_ = std::move(next);
    ++stats_.writes_applied;
    return "config reloaded (generation " + std::to_string(gen) + ")";
  } catch (const std::exception& e) {
    ++stats_.writes_refused;
    return std::string("reload refused, the running config stays: ") + e.what();
  }
}

}  // namespace rocelb
