// A running switch refuses a change of a key its schema row marks
// Applies::kRestart, naming it; every other change applies
// (control/restart_keys.h).
#include "control/restart_keys.h"

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "control/config_loader.h"
#include "control/switch_config_keys.h"

namespace rocelb {
namespace {

constexpr const char* kRunning = R"(
ports:
  - {id: 0, speed: 100G, mac: "02:00:00:00:00:00", device: net_null0}
  - {id: 4, speed: 100G, mac: "02:00:00:00:00:04", device: "net_af_xdp0,iface=veth4"}
qos: {pfc_enable: [3]}
)";

ConfigParams params(const std::vector<std::string>& sets = {}) {
  return load_config_text(kRunning, "run.yaml", sets);
}

std::string refusal(const std::vector<std::string>& sets) {
  return restart_needed(params(), params(sets));
}

// For each restart row: a change of it alone, and the refusal it gets.
const std::map<std::string, std::pair<std::string, std::string>> kChanges = {
    {"ports",
     {"ports=[{id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", device: net_null0}]",
      "the set of ports changed: restart the switch to add or remove ports"}},
    {"ports[].id",
     {"ports[1].id=5", "the set of ports changed: restart the switch to add or remove ports"}},
    {"ports[].device",
     {"ports[0].device=net_null9", "ports[0].device changed: restart the switch to change it"}},
    {"ports[].mtu", {"ports[1].mtu=9000", "ports[4].mtu changed: restart the switch to change it"}},
    {"ports[].xdp_steering",
     {"ports[1].xdp_steering=roce",
      "ports[4].xdp_steering changed: restart the switch to change it"}},
    {"ports[].link_detect",
     {"ports[1].link_detect=off", "ports[4].link_detect changed: restart the switch to change it"}},
};

TEST(RestartKeys, EveryRestartKeyIsRefusedByName) {
  int rows = 0;
  for (const KeySpec& row : switch_config_schema().keys) {
    if (row.applies != Applies::kRestart) continue;
    ++rows;
    auto it = kChanges.find(std::string(row.path));
    ASSERT_NE(it, kChanges.end()) << row.path << ": a restart row without a change in kChanges";
    EXPECT_EQ(refusal({it->second.first}), it->second.second) << row.path;
  }
  EXPECT_EQ(rows, int(kChanges.size()));
}

TEST(RestartKeys, LiveKeysApply) {
  EXPECT_EQ(refusal({}), "");
  for (const char* set : {"ports[1].speed=25G", "ports[0].admin_status=down", "qos.pfc_enable=[]",
                          "switch.name=leaf9", "control.max_clients=4", "ports[1].link_detect=auto",
                          "ports[1].mtu=1500", "ports[1].mtu=0x5dc"})
    EXPECT_EQ(refusal({set}), "") << set;
  for (const char* live : {"ports[].speed", "qos.pfc_enable", "switch.name"})
    EXPECT_EQ(switch_config_schema().find(live)->applies, Applies::kLive) << live;
}

// Ports are matched by id, not by their place in the list.
TEST(RestartKeys, PortsAreMatchedById) {
  const ConfigParams swapped = load_config_text(
      "ports:\n"
      "  - {id: 4, speed: 100G, mac: \"02:00:00:00:00:04\", device: \"net_af_xdp0,iface=veth4\"}\n"
      "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", device: net_null0}\n"
      "qos: {pfc_enable: [3]}\n",
      "run.yaml");
  EXPECT_EQ(restart_needed(params(), swapped), "");
}

}  // namespace
}  // namespace rocelb
