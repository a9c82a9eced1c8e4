#include "dataplane/run/link_event.h"

#include <algorithm>

#include "control/units.h"
#include "dataplane/run/replay_run.h"

namespace rocelb {
namespace {

[[noreturn]] void fail(const std::string& spec, const std::string& why) {
  throw ReplayError("--event \"" + spec + "\": " + why);
}

bool all_digits(const std::string& s) {
  return !s.empty() && s.size() <= 5 &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// port<ID>, <ID> or a port's name; -1 when none matches.
int find_port(const std::string& text, const SwitchConfig& cfg) {
  std::string digits = text;
  if (digits.rfind("port", 0) == 0) digits = digits.substr(4);
  if (all_digits(digits)) {
    const int id = std::stoi(digits);
    for (uint16_t p : cfg.port_ids)
      if (p == id) return id;
  }
  for (uint16_t p : cfg.port_ids)
    if (cfg.ports[p].name == text) return p;
  return -1;
}

std::string port_list(const SwitchConfig& cfg) {
  std::string out;
  for (uint16_t p : cfg.port_ids) {
    if (!out.empty()) out += ", ";
    out += "port" + std::to_string(p) + " (" + cfg.ports[p].name + ")";
  }
  return out;
}

}  // namespace

LinkEvent parse_link_event(const std::string& spec, const SwitchConfig& cfg) {
  const size_t a = spec.find(':');
  const size_t b = a == std::string::npos ? a : spec.find(':', a + 1);
  if (b == std::string::npos || spec.find(':', b + 1) != std::string::npos)
    fail(spec, "expected TIME:PORT:down|up, e.g. 2ms:port4:down");
  const std::string time = spec.substr(0, a), port = spec.substr(a + 1, b - a - 1),
                    state = spec.substr(b + 1);
  LinkEvent e;
  e.spec = spec;
  std::string why;
  if (!parse_duration_ns(time, e.t_ns, &why))
    fail(spec, "time \"" + time + "\": " + why + " (a duration with a unit: 2ms, 500us)");
  const int id = find_port(port, cfg);
  if (id < 0) fail(spec, "no port \"" + port + "\" in the config (ports: " + port_list(cfg) + ")");
  e.port = static_cast<uint16_t>(id);
  if (state != "down" && state != "up") fail(spec, "state \"" + state + "\": must be down or up");
  e.up = state == "up";
  return e;
}

std::vector<LinkEvent> parse_link_events(const std::vector<std::string>& specs,
                                         const SwitchConfig& cfg) {
  std::vector<LinkEvent> out;
  out.reserve(specs.size());
  for (const std::string& s : specs) out.push_back(parse_link_event(s, cfg));
  std::stable_sort(out.begin(), out.end(),
                   [](const LinkEvent& x, const LinkEvent& y) { return x.t_ns < y.t_ns; });
  return out;
}

}  // namespace rocelb
