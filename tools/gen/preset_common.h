// What every rocelb-gen preset (tools/gen/presets.h) shares: its parameters
// (`--param NAME=VALUE`, each with a default, checked with one error line
// that names the parameter), the context it builds in (switch config, seed,
// notes to print), and the parts of the switch config a preset places
// traffic on:
//   host ports  ports with an IPv4 subnet and a configured neighbor in it
//               that no group uses (default.yaml: ports 0-3, hosts 10.0.N.2)
//   uplinks     the ports of a group's members, in member order
//               (default.yaml, group `uplinks`: ports 4-7)
//   remote IPs  10.<b>.<c>.<d>: off every connected subnet of the default
//               config, so the default route sends them to the uplinks
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "control/config_params.h"
#include "control/net_types.h"
#include "tools/gen/scenario.h"

namespace rocelb {

// A bad preset name or parameter: one line, rocelb-gen exits 2.
class PresetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PresetParamSpec {
  std::string_view name;
  std::string_view def;  // default, as the user would write it
  std::string_view help;
};

// The --param values of one preset run, checked against its specs.
class PresetArgs {
 public:
  // `given`: "NAME=VALUE" strings; unknown names, a missing '=' and a name
  // given twice throw PresetError.
  PresetArgs(std::string preset, std::span<const PresetParamSpec> specs,
             const std::vector<std::string>& given);

  // Each throws PresetError naming the parameter and the rule.
  uint64_t uint(std::string_view name, uint64_t lo, uint64_t hi) const;
  uint64_t bytes(std::string_view name, uint64_t lo, uint64_t hi) const;
  uint64_t duration(std::string_view name, uint64_t lo, uint64_t hi) const;
  double real(std::string_view name, double lo, double hi) const;
  std::string choice(std::string_view name, std::span<const std::string_view> options) const;
  const std::string& text(std::string_view name) const;
  bool is(std::string_view name, std::string_view value) const { return text(name) == value; }
  [[noreturn]] void fail(std::string_view name, const std::string& rule) const;
  // Refuses, before anything is built, a preset run that would make more
  // than kMaxScenarioFlows flows (the scenario it writes could not be read
  // back): "N flows (HOW): a scenario holds at most 50000", blaming `name`.
  void check_flows(std::string_view name, uint64_t flows, const std::string& how) const;

  const std::string& preset() const { return preset_; }
  // "NAME=VALUE ..." of every parameter, defaults included, in spec order.
  std::string summary() const;

 private:
  struct Value {
    std::string name, value;
    bool given = false;
  };
  const Value& find(std::string_view name) const;

  std::string preset_;
  std::vector<Value> values_;
};

struct PresetContext {
  const ConfigParams& config;
  uint64_t seed = kDefaultScenarioSeed;
  std::vector<std::string> notes;  // printed by rocelb-gen, and written into the YAML
};

struct HostPort {
  uint16_t port = 0;
  IpAddr ip;  // the host
  uint64_t speed_bps = 0;
};
std::vector<HostPort> host_ports(const ConfigParams& config);

struct Uplink {
  uint16_t port = 0;
  IpAddr via;
  std::string name;  // the port's name
};
// Throws PresetError when the group is missing or has no member.
std::vector<Uplink> group_uplinks(const ConfigParams& config, const std::string& group);

IpAddr ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d);

// An upper bound of the time a message of `bytes` takes on a wire of
// `rate_bps` in packets of `mtu` payload bytes, headers included, in ns.
uint64_t message_wire_ns(uint64_t bytes, uint32_t mtu, uint64_t rate_bps);

// One preset: its name, a one-line description, its parameters and the
// function that builds its scenario (sc.seed is set by the caller).
struct PresetDef {
  std::string_view name;
  std::string_view description;
  std::span<const PresetParamSpec> params;
  ScenarioParams (*build)(const PresetArgs& args, PresetContext& ctx);
};

// prefix followed by n, e.g. label("r", 3) == "r3" (built by appending:
// GCC 12 warns falsely on "r" + std::to_string(n)).
inline std::string label(const char* prefix, uint64_t n) {
  std::string s = prefix;
  s += std::to_string(n);
  return s;
}

// A flow with the fields every preset sets the same way (IPv4, ECT(0)).
FlowParams preset_flow(std::string name, uint16_t in_port, IpAddr src, IpAddr dst,
                       uint64_t rate_bps);

}  // namespace rocelb
