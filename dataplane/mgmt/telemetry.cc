#include "dataplane/mgmt/telemetry.h"

#include <rte_telemetry.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "dataplane/run/live_run.h"

namespace rocelb {
namespace {

std::atomic<LiveRun*> g_live{nullptr};

// Adds every unsigned number under `j` to the dict, keys joined with '.'.
void flatten(rte_tel_data* d, const std::string& prefix, const Json& j) {
  if (j.is_object()) {
    for (const auto& [k, v] : j.items()) flatten(d, prefix.empty() ? k : prefix + "/" + k, v);
  } else if (j.is_number_unsigned() || j.is_number_integer()) {
    rte_tel_data_add_dict_u64(d, prefix.c_str(), j.get<uint64_t>());
  } else if (j.is_boolean()) {
    rte_tel_data_add_dict_u64(d, prefix.c_str(), j.get<bool>() ? 1 : 0);
  }
}

const Json* find_port(const Json& c, const char* params) {
  if (!params || !*params) return nullptr;
  char* end = nullptr;
  const long id = std::strtol(params, &end, 10);
  if (*end) return nullptr;
  for (const auto& p : c.at("ports"))
    if (p.at("id").get<long>() == id) return &p;
  return nullptr;
}

// Starts a dict answer and runs `fill` on the port named by params; -1 for
// an unknown port, an empty dict when no switch runs.
template <typename Fill>
int per_port(const char* params, rte_tel_data* d, Fill fill) {
  rte_tel_data_start_dict(d);
  LiveRun* e = g_live.load();
  if (!e) return 0;
  const Json c = e->counters();
  const Json* p = find_port(c, params);
  if (!p) return -1;
  fill(*p);
  return 0;
}

int cmd_ports(const char*, const char*, rte_tel_data* d) {
  rte_tel_data_start_array(d, RTE_TEL_U64_VAL);
  if (LiveRun* e = g_live.load()) {
    const Json c = e->counters();  // kept alive for the loop
    for (const auto& p : c.at("ports")) rte_tel_data_add_array_u64(d, p.at("id").get<uint64_t>());
  }
  return 0;
}

int cmd_port(const char*, const char* params, rte_tel_data* d) {
  return per_port(params, d, [d](const Json& p) {
    for (const auto& [k, v] : p.items())
      if (k != "queues" && k != "pfc" && k != "pfc_watchdog") flatten(d, k, v);
  });
}

int cmd_queues(const char*, const char* params, rte_tel_data* d) {
  return per_port(params, d, [d](const Json& p) {
    for (const auto& q : p.at("queues"))
      for (const auto& [k, v] : q.items())
        if (k != "tc") flatten(d, "tc" + std::to_string(q.at("tc").get<int>()) + "/" + k, v);
  });
}

int cmd_pfc(const char*, const char* params, rte_tel_data* d) {
  return per_port(params, d, [d](const Json& p) {
    for (const auto& [k, per] : p.at("pfc").items())
      for (size_t prio = 0; prio < per.size(); ++prio)
        flatten(d, k + "/p" + std::to_string(prio), per[prio]);
    for (const auto& w : p.at("pfc_watchdog"))
      for (const auto& [k, v] : w.items())
        if (k != "tc" && k != "state")
          flatten(d, "watchdog/tc" + std::to_string(w.at("tc").get<int>()) + "/" + k, v);
  });
}

int cmd_groups(const char*, const char*, rte_tel_data* d) {
  rte_tel_data_start_dict(d);
  LiveRun* e = g_live.load();
  if (!e) return 0;
  const Json c = e->counters();  // kept alive for the loop
  for (const auto& g : c.at("groups")) {
    const std::string name = g.at("name").get<std::string>();
    for (const auto& [k, v] : g.items())
      if (k != "members") flatten(d, name + "/" + k, v);
    size_t k = 0;
    for (const auto& m : g.at("members")) {
      const std::string base = name + "/m" + std::to_string(k++);
      for (const MemberCounterInfo& info : kMemberCounters)
        flatten(d, base + "/" + std::string(info.name), m.at(std::string(info.name)));
    }
  }
  return 0;
}

}  // namespace

void telemetry_attach(LiveRun* live) {
  static const bool registered = [] {
    rte_telemetry_register_cmd("/rocelb/ports", cmd_ports, "rocelb port ids");
    rte_telemetry_register_cmd("/rocelb/port", cmd_port, "rocelb port counters. Parameter: id");
    rte_telemetry_register_cmd("/rocelb/queues", cmd_queues,
                               "rocelb egress queues of a port. Parameter: id");
    rte_telemetry_register_cmd("/rocelb/pfc", cmd_pfc,
                               "rocelb PFC and watchdog counters of a port. Parameter: id");
    rte_telemetry_register_cmd("/rocelb/groups", cmd_groups,
                               "rocelb load-balancing groups and members");
    return true;
  }();
  (void)registered;
  g_live.store(live);
}

}  // namespace rocelb
