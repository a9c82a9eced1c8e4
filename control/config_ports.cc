// The switch config's `ports` and `neighbors`: each port's keys, then what
// two ports may not share (id, name, MAC, device, overlapping subnets) and
// where a neighbor may sit.
#include "control/config_sections.h"
#include "control/yaml_util.h"

namespace rocelb::config_detail {
namespace {

// RFC 8200: an IPv6 link carries packets of at least 1280 bytes.
constexpr uint32_t kMinIpv6Mtu = 1280;

// Host bits of an interface address: all zero (network) or all one (broadcast).
bool host_bits_all(const IpPrefix& p, bool ones) {
  unsigned total = p.addr.is_v4() ? 32 : 128;
  for (unsigned bit = p.len; bit < total; ++bit) {
    bool set = p.addr.b[bit / 8] & (0x80 >> (bit % 8));
    if (set != ones) return false;
  }
  return true;
}

bool overlaps(const IpPrefix& a, const IpPrefix& b) {
  if (a.addr.family != b.addr.family) return false;
  IpPrefix shorter = a.len <= b.len ? a : b;
  const IpAddr& other = a.len <= b.len ? b.addr : a.addr;
  return shorter.contains(other);
}

// Two ports on one device: the same DPDK device name (up to the first
// comma: "net_tap0", a PCI address), or two virtual devices bound to the
// same kernel interface ("iface=rl0"). Returns why, or "" when distinct.
std::string same_device(const std::string& a, const std::string& b) {
  auto name = [](const std::string& d) { return d.substr(0, d.find(',')); };
  auto iface = [](const std::string& d) -> std::string {
    for (size_t pos = d.find(','); pos != std::string::npos; pos = d.find(',', pos + 1)) {
      const size_t end = d.find(',', pos + 1);
      const std::string arg = d.substr(pos + 1, end == std::string::npos ? end : end - pos - 1);
      if (arg.rfind("iface=", 0) == 0) return arg.substr(6);
    }
    return "";
  };
  if (name(a) == name(b)) return "device " + name(a);
  const std::string ia = iface(a);
  if (!ia.empty() && ia == iface(b)) return "interface " + ia;
  return "";
}

// An interface address: the family asked for, a prefix length of at least
// 1, and (IPv4 up to /30) neither the subnet's network nor broadcast address.
IpPrefix read_interface_prefix(const KeyReader& r, const YAML::Node& n, const std::string& path,
                               int family) {
  IpPrefix p = read_prefix(r, n, path);
  unsigned max_len = family == 4 ? 32 : 128;
  if (p.addr.family != family)
    r.fail_value(path, n, family == 4 ? "must be an IPv4 address" : "must be an IPv6 address");
  if (p.len < 1) r.fail_value(path, n, "prefix length must be 1.." + std::to_string(max_len));
  if (family == 4 && p.len <= 30) {
    if (host_bits_all(p, false))
      r.fail_value(path, n, "interface address must not be the network address of its subnet");
    if (host_bits_all(p, true))
      r.fail_value(path, n, "interface address must not be the broadcast address of its subnet");
  }
  return p;
}

PortParams read_port(const KeyReader& r, const YAML::Node& n, const std::string& path,
                     const std::string& pattern) {
  const KeyReader::Map m = r.map(n, path, pattern);
  for (const char* key : {"id", "speed", "mac"}) m.require(key);
  PortParams p;
  m.read("id", p.id);
  p.name = "port" + std::to_string(p.id);
  m.read("name", p.name);
  m.read("speed", p.speed_bps);
  p.mac = read_mac(r, m.require("mac"), m.at("mac"));
  if (auto v = m.get("ipv4")) p.ipv4 = read_interface_prefix(r, *v, m.at("ipv4"), 4);
  if (auto v = m.get("ipv6")) p.ipv6 = read_interface_prefix(r, *v, m.at("ipv6"), 6);
  m.read("device", p.device);
  m.read("promiscuous", p.promiscuous);
  std::string word;
  if (m.read("admin_status", word)) p.admin_up = word == "up";
  if (m.read("mtu", p.mtu) && p.ipv6 && p.mtu < kMinIpv6Mtu)
    r.fail_value(m.at("mtu"), *m.get("mtu"),
                 "mtu must be at least " + std::to_string(kMinIpv6Mtu) +
                     " on a port with an IPv6 address (RFC 8200)");
  if (m.has("scheduler")) p.scheduler = read_scheduler(m.map("scheduler"));
  if (m.read("xdp_steering", word)) {
    p.xdp_steering = word == "roce"  ? XdpSteeringMode::kRoce
                     : word == "all" ? XdpSteeringMode::kAll
                                     : XdpSteeringMode::kOff;
    if (p.xdp_steering != XdpSteeringMode::kOff &&
        (!is_af_xdp_device(p.device) || p.device.find("iface=") == std::string::npos))
      r.fail_value(m.at("xdp_steering"), *m.get("xdp_steering"),
                   "needs an AF_XDP device (ports[].device: \"net_af_xdpN,iface=IF\")");
  }
  if (m.read("link_detect", word))
    p.link_detect = word == "on"    ? LinkDetect::kOn
                    : word == "off" ? LinkDetect::kOff
                                    : LinkDetect::kAuto;
  return p;
}

}  // namespace

void read_ports(const KeyReader::Map& top, ConfigRead& c) {
  const KeyReader& r = c.r;
  top.each("ports", [&](const YAML::Node& mine, const std::string& path, const std::string& pat) {
    PortParams p = read_port(r, mine, path, pat);
    for (size_t j = 0; j < c.cfg.ports.size(); ++j) {
      const PortParams& q = c.cfg.ports[j];
      const std::string qpath = index_path("ports", j);
      if (q.id == p.id)
        r.fail_value(path + ".id", mine["id"], "duplicate port id (also " + qpath + ")",
                     also({qpath + ".id"}));
      if (q.name == p.name)
        r.fail(path + ".name", quote(p.name) + ": duplicate port name (also " + qpath + ")",
               also({qpath + ".name", qpath}));
      if (q.mac == p.mac)
        r.fail_value(path + ".mac", mine["mac"], "duplicate MAC (also " + qpath + ")",
                     also({qpath + ".mac"}));
      if (!p.device.empty() && !q.device.empty()) {
        const std::string why = same_device(p.device, q.device);
        if (!why.empty())
          r.fail_value(path + ".device", mine["device"], "the same " + why + " as " + qpath,
                       also({qpath + ".device"}));
      }
      if (p.ipv4 && q.ipv4 && overlaps(*p.ipv4, *q.ipv4))
        r.fail_value(
            path + ".ipv4", mine["ipv4"],
            "subnet overlaps port " + std::to_string(q.id) + " (" + to_string(*q.ipv4) + ")",
            also({qpath + ".ipv4"}));
      if (p.ipv6 && q.ipv6 && overlaps(*p.ipv6, *q.ipv6))
        r.fail_value(
            path + ".ipv6", mine["ipv6"],
            "subnet overlaps port " + std::to_string(q.id) + " (" + to_string(*q.ipv6) + ")",
            also({qpath + ".ipv6"}));
    }
    c.port_paths[p.id] = path;
    c.cfg.ports.push_back(std::move(p));
  });
}

void read_neighbors(const KeyReader::Map& top, ConfigRead& c) {
  const KeyReader& r = c.r;
  ConfigParams& cfg = c.cfg;
  top.each("neighbors", [&](const YAML::Node& n, const std::string& path, const std::string& pat) {
    const KeyReader::Map m = r.map(n, path, pat);
    for (const char* key : {"ip", "mac", "port"}) m.require(key);
    NeighborParams nb;
    const YAML::Node ip_node = m.require("ip");
    const std::string ip_path = m.at("ip");
    nb.ip = read_ip(r, ip_node, ip_path);
    for (size_t j = 0; j < cfg.neighbors.size(); ++j)
      if (cfg.neighbors[j].ip == nb.ip)
        r.fail_value(ip_path, ip_node,
                     "duplicate neighbor (also " + index_path("neighbors", j) + ")",
                     also({index_path("neighbors", j) + ".ip"}));
    nb.mac = read_mac(r, m.require("mac"), m.at("mac"));
    m.read("port", nb.port);
    const PortParams* port = cfg.find_port(nb.port);
    if (!port) r.fail_value(m.at("port"), m.require("port"), "not a configured port");

    const std::string pid = std::to_string(port->id);
    const char* fam = nb.ip.is_v4() ? "ipv4" : "ipv6";
    const std::optional<IpPrefix>& subnet = nb.ip.is_v4() ? port->ipv4 : port->ipv6;
    const std::string subnet_path = join_path(c.port_paths.at(port->id), fam);
    if (!subnet)
      r.fail_value(ip_path, ip_node, "port " + pid + " has no " + fam + " address",
                   also({subnet_path, m.at("port")}));
    if (!subnet->contains(nb.ip))
      r.fail_value(ip_path, ip_node,
                   "not in the subnet of port " + pid + " (" + to_string(*subnet) + ")",
                   also({subnet_path, m.at("port")}));
    for (const PortParams& q : cfg.ports) {
      const std::optional<IpPrefix>& a = nb.ip.is_v4() ? q.ipv4 : q.ipv6;
      if (a && a->addr == nb.ip)
        r.fail_value(ip_path, ip_node,
                     "is the interface address of port " + std::to_string(q.id) + " itself",
                     also({join_path(c.port_paths.at(q.id), fam)}));
    }
    cfg.neighbors.push_back(nb);
  });
}

}  // namespace rocelb::config_detail
