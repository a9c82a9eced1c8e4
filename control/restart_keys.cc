#include "control/restart_keys.h"

#include <stdexcept>
#include <string_view>
#include <vector>

#include "control/switch_config_keys.h"

namespace rocelb {
namespace {

// A port's key that a running switch cannot change, by its row.
struct PortKey {
  std::string_view path;
  bool (*differs)(const PortParams& a, const PortParams& b);
};

constexpr PortKey kPortKeys[] = {
    // The device is opened when the switch starts (dataplane/run/live_run.cc).
    {"ports[].device",
     [](const PortParams& a, const PortParams& b) { return a.device != b.device; }},
    // The device's own MTU is set when it starts.
    {"ports[].mtu", [](const PortParams& a, const PortParams& b) { return a.mtu != b.mtu; }},
    // The XDP program and the link source are chosen when the device starts
    // (dataplane/xdp/xdp_steering.h).
    {"ports[].xdp_steering",
     [](const PortParams& a, const PortParams& b) { return a.xdp_steering != b.xdp_steering; }},
    {"ports[].link_detect",
     [](const PortParams& a, const PortParams& b) { return a.link_detect != b.link_detect; }},
};

std::vector<uint16_t> port_ids(const ConfigParams& p) {
  std::vector<uint16_t> ids;
  for (const PortParams& port : p.ports) ids.push_back(port.id);
  return ids;
}

}  // namespace

std::string restart_needed(const ConfigParams& running, const ConfigParams& next) {
  for (const KeySpec& row : switch_config_schema().keys) {
    if (row.applies != Applies::kRestart) continue;
    if (row.path == "ports" || row.path == "ports[].id") {
      if (port_ids(running) != port_ids(next))
        return "the set of ports changed: restart the switch to add or remove ports";
      continue;
    }
    const PortKey* key = nullptr;
    for (const PortKey& k : kPortKeys)
      if (k.path == row.path) key = &k;
    if (!key)
      throw std::logic_error(std::string(row.path) +
                             ": a restart key control/restart_keys.cc does not compare");
    for (const PortParams& b : next.ports) {
      const PortParams* a = running.find_port(b.id);
      if (a && key->differs(*a, b))
        return "ports[" + std::to_string(b.id) + "]." +
               std::string(row.path.substr(std::string_view("ports[].").size())) +
               " changed: restart the switch to change it";
    }
  }
  return "";
}

}  // namespace rocelb
