// The switch config's `routes`: each prefix once, with exactly one target
// (a group, a neighbor or a port) that the config defines.
#include <algorithm>
#include <unordered_map>

#include "control/config_sections.h"
#include "control/yaml_util.h"

namespace rocelb::config_detail {

void read_routes(const KeyReader::Map& top, ConfigRead& c) {
  const KeyReader& r = c.r;
  ConfigParams& cfg = c.cfg;
  // Prefix (16 address bytes, length, family) → its index, for the duplicate
  // rule in one pass over a full routing table.
  std::unordered_map<std::string, size_t> seen;
  if (auto list = top.get("routes"); list && list->IsSequence()) seen.reserve(list->size());
  size_t i = 0;
  top.each("routes", [&](const YAML::Node& n, const std::string& path, const std::string& pat) {
    const KeyReader::Map m = r.map(n, path, pat);
    RouteParams rt;
    const YAML::Node prefix = m.require("prefix");
    rt.prefix = read_prefix(r, prefix, m.at("prefix"));
    if (!rt.prefix.is_canonical())
      r.fail_value(m.at("prefix"), prefix,
                   "host bits set beyond /" + std::to_string(rt.prefix.len));
    std::string key(reinterpret_cast<const char*>(rt.prefix.addr.b.data()),
                    rt.prefix.addr.b.size());
    key.push_back(static_cast<char>(rt.prefix.len));
    key.push_back(static_cast<char>(rt.prefix.addr.family));
    if (auto [it, fresh] = seen.emplace(std::move(key), i); !fresh)
      r.fail_value(m.at("prefix"), prefix,
                   "duplicate prefix (also " + index_path("routes", it->second) + ")",
                   also({index_path("routes", it->second) + ".prefix"}));
    ++i;

    // Each target's value by its row, then the rules between them.
    const bool group = m.read("group", rt.group);
    const bool via = m.has("via");
    if (via) rt.via = read_ip(r, *m.get("via"), m.at("via"));
    const bool port = m.read("port", rt.port);
    if (int(group) + int(via) + int(port) != 1) {
      std::vector<std::string> targets;
      if (group) targets.push_back("group");
      if (via) targets.push_back("via");
      if (port) targets.push_back("port");
      std::string found = targets.empty() ? "none" : targets[0];
      for (size_t t = 1; t < targets.size(); ++t)
        found += (t + 1 == targets.size() ? " and " : ", ") + targets[t];
      r.fail(path, "needs exactly one of group, via, port (found " + found + ")");
    }
    if (group) {
      rt.target = RouteTarget::kGroup;
      if (!cfg.find_group(rt.group)) {
        std::vector<std::string> names;
        for (const auto& g : cfg.groups) names.push_back(g.name);
        std::sort(names.begin(), names.end());
        std::string list;
        for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
        r.fail_value(m.at("group"), *m.get("group"),
                     names.empty() ? "no such group (no groups are defined)"
                                   : "no such group (groups: " + list + ")");
      }
    } else if (via) {
      rt.target = RouteTarget::kVia;
      if (!cfg.find_neighbor(rt.via))
        r.fail_value(m.at("via"), *m.get("via"), "not a configured neighbor");
    } else {
      rt.target = RouteTarget::kPort;
      if (!cfg.find_port(rt.port))
        r.fail_value(m.at("port"), *m.get("port"), "not a configured port");
    }
    cfg.routes.push_back(std::move(rt));
  });
}

}  // namespace rocelb::config_detail
