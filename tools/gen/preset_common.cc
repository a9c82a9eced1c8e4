#include "tools/gen/preset_common.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "control/units.h"
#include "control/yaml_util.h"

namespace rocelb {
namespace {

constexpr uint64_t kMaxHeaderBytes = 14 + 4 + 20 + 8 + 12 + 16 + 3 + 4 + 20;

}  // namespace

PresetArgs::PresetArgs(std::string preset, std::span<const PresetParamSpec> specs,
                       const std::vector<std::string>& given)
    : preset_(std::move(preset)) {
  for (const auto& s : specs) values_.push_back({std::string(s.name), std::string(s.def), false});
  for (const auto& g : given) {
    const auto eq = g.find('=');
    if (eq == std::string::npos || eq == 0)
      throw PresetError("--param " + quote(g) + ": expected NAME=VALUE (preset " + preset_ + ")");
    std::string name = g.substr(0, eq);
    auto it = std::find_if(values_.begin(), values_.end(),
                           [&](const Value& v) { return v.name == name; });
    if (it == values_.end()) {
      std::string known;
      for (const auto& v : values_) known += (known.empty() ? "" : ", ") + v.name;
      throw PresetError("--param " + g + ": preset " + preset_ + " has no parameter " +
                        quote(name) + " (known: " + known + ")");
    }
    if (it->given) throw PresetError("--param " + g + ": " + name + " given twice");
    it->value = g.substr(eq + 1);
    it->given = true;
  }
}

const PresetArgs::Value& PresetArgs::find(std::string_view name) const {
  for (const auto& v : values_)
    if (v.name == name) return v;
  throw std::logic_error("preset " + preset_ + " reads undeclared parameter " + std::string(name));
}

void PresetArgs::fail(std::string_view name, const std::string& rule) const {
  const Value& v = find(name);
  std::string where = v.given ? "--param " + v.name + "=" + v.value
                              : "parameter " + v.name + " (default " + v.value + ")";
  throw PresetError(where + ": " + rule + " (preset " + preset_ + ")");
}

void PresetArgs::check_flows(std::string_view name, uint64_t flows, const std::string& how) const {
  if (flows > kMaxScenarioFlows)
    fail(name, std::to_string(flows) + " flows (" + how + "): a scenario holds at most " +
                   std::to_string(kMaxScenarioFlows));
}

const std::string& PresetArgs::text(std::string_view name) const {
  return find(name).value;
}

uint64_t PresetArgs::uint(std::string_view name, uint64_t lo, uint64_t hi) const {
  const std::string& s = text(name);
  std::string range = std::to_string(lo) + ".." + std::to_string(hi);
  if (s.empty() || s.size() > 19 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    fail(name, std::string(name) + " must be an integer " + range);
  uint64_t v = std::strtoull(s.c_str(), nullptr, 10);
  if (v < lo || v > hi) fail(name, std::string(name) + " must be " + range);
  return v;
}

uint64_t PresetArgs::bytes(std::string_view name, uint64_t lo, uint64_t hi) const {
  uint64_t v = 0;
  std::string why;
  if (!parse_bytes(text(name), v, &why)) fail(name, why);
  if (v < lo || v > hi)
    fail(name, std::string(name) + " must be " + format_bytes(lo) + " .. " + format_bytes(hi));
  return v;
}

uint64_t PresetArgs::duration(std::string_view name, uint64_t lo, uint64_t hi) const {
  uint64_t v = 0;
  std::string why;
  if (!parse_duration_ns(text(name), v, &why)) fail(name, why);
  if (v < lo || v > hi)
    fail(name, std::string(name) + " must be " + std::to_string(lo) + "ns .. " +
                   std::to_string(hi) + "ns");
  return v;
}

double PresetArgs::real(std::string_view name, double lo, double hi) const {
  const std::string& s = text(name);
  char* end = nullptr;
  double v = s.empty() ? NAN : std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || !std::isfinite(v))
    fail(name, std::string(name) + " must be a number");
  if (v < lo || v > hi) {
    char buf[80];
    std::snprintf(buf, sizeof buf, " must be in %g..%g", lo, hi);
    fail(name, std::string(name) + buf);
  }
  return v;
}

std::string PresetArgs::choice(std::string_view name,
                               std::span<const std::string_view> options) const {
  const std::string& s = text(name);
  std::string list;
  for (auto o : options) {
    if (s == o) return s;
    list += (list.empty() ? "" : ", ") + std::string(o);
  }
  fail(name, std::string(name) + " must be one of " + list);
}

std::string PresetArgs::summary() const {
  std::string out;
  for (const auto& v : values_) out += (out.empty() ? "" : " ") + v.name + "=" + v.value;
  return out;
}

std::vector<HostPort> host_ports(const ConfigParams& config) {
  std::vector<HostPort> out;
  for (const auto& p : config.ports) {
    if (!p.ipv4) continue;
    bool in_group = false;
    for (const auto& g : config.groups)
      for (const auto& m : g.members) {
        const NeighborParams* n = config.find_neighbor(m.via);
        if (n && n->port == p.id) in_group = true;
      }
    if (in_group) continue;
    for (const auto& n : config.neighbors)
      if (n.port == p.id && n.ip.is_v4() && p.ipv4->contains(n.ip)) {
        out.push_back({p.id, n.ip, p.speed_bps});
        break;
      }
  }
  return out;
}

std::vector<Uplink> group_uplinks(const ConfigParams& config, const std::string& group) {
  const GroupParams* g = config.find_group(group);
  if (!g) throw PresetError("the switch config has no group " + quote(group));
  std::vector<Uplink> out;
  for (const auto& m : g->members) {
    const NeighborParams* n = config.find_neighbor(m.via);
    if (!n) continue;  // the config loader refuses this
    const PortParams* p = config.find_port(n->port);
    out.push_back({n->port, m.via, p ? p->name : ""});
  }
  if (out.empty()) throw PresetError("group " + quote(group) + " has no member");
  return out;
}

IpAddr ipv4(uint8_t a, uint8_t b, uint8_t c, uint8_t d) {
  IpAddr ip;
  ip.family = 4;
  ip.b[0] = a;
  ip.b[1] = b;
  ip.b[2] = c;
  ip.b[3] = d;
  return ip;
}

uint64_t message_wire_ns(uint64_t bytes, uint32_t mtu, uint64_t rate_bps) {
  const uint64_t packets = std::max<uint64_t>(1, (bytes + mtu - 1) / mtu);
  const unsigned __int128 bits = (unsigned __int128)(bytes + packets * kMaxHeaderBytes) * 8;
  return static_cast<uint64_t>((bits * 1'000'000'000ull + rate_bps - 1) / rate_bps);
}

FlowParams preset_flow(std::string name, uint16_t in_port, IpAddr src, IpAddr dst,
                       uint64_t rate_bps) {
  FlowParams f;
  f.name = std::move(name);
  f.in_port = in_port;
  f.src = src;
  f.dst = dst;
  f.rate_bps = rate_bps;
  return f;
}

}  // namespace rocelb
