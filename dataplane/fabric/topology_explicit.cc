#include "dataplane/fabric/topology_explicit.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "control/config_loader.h"
#include "control/net_types.h"
#include "control/units.h"
#include "control/yaml_override.h"
#include "control/yaml_util.h"
#include "dataplane/fabric/topology_keys.h"

namespace rocelb {

namespace {

using topology_detail::KeyReader;

bool good_name(const std::string& s) {
  return !s.empty() && s.size() <= 32 && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
  });
}

struct PortRef {
  uint32_t sw = 0;
  uint16_t port = 0;
};

class ExplicitReader : public KeyReader {
 public:
  ExplicitReader(const std::string& source, const std::string& base_dir)
      : KeyReader(source), base_dir_(base_dir) {}

  Topology read(const YAML::Node& root, const std::vector<std::string>& overrides) {
    only(root, "", {"switches", "links", "hosts", "nic"});
    for (const char* k : {"switches", "links", "hosts"})
      if (!root[k]) fail("", std::string("missing required key \"") + k + "\"");
    Topology t;
    t.source = source();
    std::vector<YAML::Node> docs = switches(root["switches"], t);
    // Overrides and configs; groups.* skips switches without groups.
    std::vector<bool> has_groups;
    for (const YAML::Node& d : docs) has_groups.push_back(d["groups"] && d["groups"].size() > 0);
    const auto per = topology_detail::split_overrides(overrides, t.switches, has_groups, source());
    for (size_t i = 0; i < t.switches.size(); ++i) {
      t.switches[i].overrides = per[i];
      topology_detail::load_switch(t.switches[i], docs[i], source());
    }
    t.nic = topology_detail::nic_params(root, overrides, source(), &t.nic_yaml);
    links(root["links"], t);
    hosts(root["hosts"], t);
    // Roles: a switch with hosts is a leaf.
    std::vector<uint32_t> per_leaf(t.switches.size(), 0);
    for (const FabricHost& h : t.hosts) ++per_leaf[h.sw];
    for (size_t i = 0; i < t.switches.size(); ++i) {
      t.switches[i].role = per_leaf[i] ? SwitchRole::kLeaf : SwitchRole::kSpine;
      (per_leaf[i] ? t.leaves : t.spines) += 1;
      t.hosts_per_leaf = std::max(t.hosts_per_leaf, per_leaf[i]);
    }
    return t;
  }

 private:
  std::vector<YAML::Node> switches(const YAML::Node& n, Topology& t) const {
    if (!n.IsMap() || n.size() == 0)
      fail("switches", "must be a map of switch name to config file (found " + yaml_kind(n) + ")");
    std::vector<YAML::Node> docs;
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string name = it->first.IsScalar() ? it->first.Scalar() : "";
      const std::string key = "switches." + name;
      if (!good_name(name))
        fail("switches", quote(name) + ": a switch name is letters, digits, '_' and '-'");
      YAML::Node file = it->second;
      if (file.IsMap()) {
        only(file, key, {"config"});
        if (!file["config"]) fail(key, "missing required key \"config\"");
        file = file["config"];
      }
      const std::string path_text = scalar(file, key, "a config file path");
      std::filesystem::path p(path_text);
      if (p.is_relative()) p = std::filesystem::path(base_dir_) / p;
      std::string text;
      try {
        text = read_config_file(p.string());
      } catch (const ConfigError& e) {
        fail(key, e.what());
      }
      YAML::Node doc;
      try {
        doc = YAML::Load(text);
      } catch (const YAML::Exception& e) {
        fail(key, yaml_error_where(p.string(), e) + ": invalid YAML: " + e.msg);
      }
      if (!doc.IsMap()) fail(key, p.string() + ": a switch config is a map");
      t.switches.push_back({name, SwitchRole::kLeaf, {}, {}, {}});
      docs.push_back(doc);
    }
    return docs;
  }

  // "leaf0:4": a port of a switch's config not taken yet.
  PortRef port_ref(const YAML::Node& n, const std::string& key, const Topology& t) {
    const std::string text = scalar(n, key, "SWITCH:PORT");
    const auto colon = text.find(':');
    const std::string name = text.substr(0, colon == std::string::npos ? 0 : colon);
    const std::string num = colon == std::string::npos ? "" : text.substr(colon + 1);
    if (name.empty() || num.empty() || num.size() > 2 ||
        num.find_first_not_of("0123456789") != std::string::npos)
      fail(key, quote(text) + ": must be SWITCH:PORT, e.g. leaf0:4");
    const auto sw = t.switch_index(name);
    if (!sw) fail(key, quote(text) + ": no switch " + quote(name));
    const uint16_t port = static_cast<uint16_t>(std::stoul(num));
    if (!t.switches[*sw].params.find_port(port))
      fail(key, quote(text) + ": " + name + "'s config has no port " + num);
    if (!taken_.insert({*sw, port}).second)
      fail(key, quote(text) + ": the port already has a link or a host");
    return {*sw, port};
  }

  void links(const YAML::Node& n, Topology& t) {
    if (!n.IsSequence()) fail("links", "must be a list (found " + yaml_kind(n) + ")");
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string key = "links[" + std::to_string(i) + "]";
      const YAML::Node l = n[i];
      if (!l.IsMap()) fail(key, "must be a map {a, b, delay} (found " + yaml_kind(l) + ")");
      only(l, key, {"a", "b", "delay", "speed", "state"});
      for (const char* k : {"a", "b", "delay"})
        if (!l[k]) fail(key, std::string("missing required key \"") + k + "\"");
      const PortRef a = port_ref(l["a"], key + ".a", t);
      const PortRef b = port_ref(l["b"], key + ".b", t);
      if (a.sw == b.sw) fail(key + ".b", "a link joins two different switches");
      FabricLink fl{a.sw, b.sw, a.port, b.port, 0, duration(l["delay"], key + ".delay")};
      const uint64_t sa = t.switches[a.sw].params.find_port(a.port)->speed_bps;
      const uint64_t sb = t.switches[b.sw].params.find_port(b.port)->speed_bps;
      fl.speed_bps = sa;
      if (l["speed"]) {
        fl.speed_bps = speed(l["speed"], key + ".speed");
        if (fl.speed_bps != sa || fl.speed_bps != sb)
          fail(key + ".speed", "the ports' configs say " + format_speed_bps(sa) + " and " +
                                   format_speed_bps(sb) + ": set ports[].speed there");
      }
      if (l["state"]) {
        const std::string s = scalar(l["state"], key + ".state", "up or down");
        if (s != "up" && s != "down") fail(key + ".state", quote(s) + ": must be up or down");
        fl.up = s == "up";
      }
      t.links.push_back(fl);
    }
  }

  void hosts(const YAML::Node& n, Topology& t) {
    if (!n.IsSequence() || n.size() == 0)
      fail("hosts", "must be a non-empty list (found " + yaml_kind(n) + ")");
    std::set<std::string> names;
    std::set<uint32_t> ips;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string key = "hosts[" + std::to_string(i) + "]";
      const YAML::Node h = n[i];
      if (!h.IsMap()) fail(key, "must be a map {name, at, ip, delay} (found " + yaml_kind(h) + ")");
      only(h, key, {"name", "at", "ip", "mac", "delay"});
      for (const char* k : {"name", "at", "ip", "delay"})
        if (!h[k]) fail(key, std::string("missing required key \"") + k + "\"");
      FabricHost fh;
      fh.name = scalar(h["name"], key + ".name", "a host name");
      if (!good_name(fh.name))
        fail(key + ".name", quote(fh.name) + ": a host name is letters, digits, '_' and '-'");
      if (t.switch_index(fh.name) || !names.insert(fh.name).second)
        fail(key + ".name", quote(fh.name) + ": the name is taken");
      const PortRef at = port_ref(h["at"], key + ".at", t);
      fh.sw = at.sw;
      fh.port = at.port;
      const std::string ip = scalar(h["ip"], key + ".ip", "an IPv4 address");
      if (!parse_ip(ip, fh.ip) || !fh.ip.is_v4())
        fail(key + ".ip", quote(ip) + ": must be an IPv4 address (the NIC model is IPv4)");
      if (!ips.insert(fh.ip.v4_host_order()).second)
        fail(key + ".ip", quote(ip) + ": another host has it");
      if (h["mac"]) {
        const std::string mac = scalar(h["mac"], key + ".mac", "a MAC address");
        if (!parse_mac(mac, fh.mac) || fh.mac.is_multicast() || fh.mac.is_zero())
          fail(key + ".mac", quote(mac) + ": must be a unicast MAC address");
      } else {
        fh.mac.b = {0x02, 0x00, 0x0b, uint8_t(i >> 8), uint8_t(i), 0x02};
      }
      const PortParams& p = *t.switches[at.sw].params.find_port(at.port);
      fh.gateway_mac = p.mac;
      if (p.ipv4) fh.gateway = p.ipv4->addr;
      fh.speed_bps = p.speed_bps;
      fh.delay_ns = duration(h["delay"], key + ".delay");
      t.hosts.push_back(fh);
    }
  }

  std::string base_dir_;
  std::set<std::pair<uint32_t, uint16_t>> taken_;
};

}  // namespace

Topology load_explicit_topology(const YAML::Node& root, const std::string& source,
                                const std::string& base_dir,
                                const std::vector<std::string>& overrides) {
  ExplicitReader r(source, base_dir);
  return r.read(root, overrides);
}

}  // namespace rocelb

namespace rocelb {

std::vector<std::pair<std::string, std::string>> export_explicit_topology(const Topology& t) {
  std::vector<std::pair<std::string, std::string>> files;
  auto at = [&](uint32_t sw, uint16_t port) {
    std::string s = t.switches[sw].name;
    s += ':';
    s += std::to_string(port);
    return s;
  };
  auto ns = [](uint64_t v) { return std::to_string(v) + "ns"; };
  std::string f = "# " + t.source +
                  " in the explicit form (rocelb-dp fabric --export): edit, then run it with\n"
                  "# rocelb-dp fabric --topology fabric.yaml.\nswitches:\n";
  for (const FabricSwitch& sw : t.switches) f += "  " + sw.name + ": " + sw.name + ".yaml\n";
  f += "links:\n";
  for (const FabricLink& l : t.links)
    f += "  - {a: " + at(l.a_sw, l.a_port) + ", b: " + at(l.b_sw, l.b_port) +
         ", delay: " + ns(l.delay_ns) + (l.up ? "" : ", state: down") + "}\n";
  f += "hosts:\n";
  for (const FabricHost& h : t.hosts)
    f += "  - {name: " + h.name + ", at: " + at(h.sw, h.port) + ", ip: " + to_string(h.ip) +
         ", mac: \"" + to_string(h.mac) + "\", delay: " + ns(h.delay_ns) + "}\n";
  if (!t.nic_yaml.empty() && t.nic_yaml != "{}") {
    YAML::Node nic = YAML::Load(t.nic_yaml);
    YAML::Node doc(YAML::NodeType::Map);
    doc["nic"] = nic;
    f += YAML::Dump(doc) + "\n";
  }
  files.emplace_back("fabric.yaml", f);
  for (const FabricSwitch& sw : t.switches)
    files.emplace_back(sw.name + ".yaml", effective_config_yaml(sw.config_yaml, sw.overrides));
  return files;
}

}  // namespace rocelb
