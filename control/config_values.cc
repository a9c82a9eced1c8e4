// The switch config's values of kind kOther: MAC and IP addresses, prefixes.
#include "control/config_sections.h"

namespace rocelb::config_detail {

MacAddr read_mac(const KeyReader& r, const YAML::Node& n, const std::string& path) {
  MacAddr m;
  if (!parse_mac(r.scalar(n, path, "a MAC address"), m))
    r.fail_value(path, n, "not a MAC address (expected 6 hex pairs, e.g. 02:00:00:00:00:01)");
  if (m.is_zero()) r.fail_value(path, n, "MAC must not be all-zero");
  if (m.is_multicast()) r.fail_value(path, n, "MAC must be unicast (the multicast bit is set)");
  return m;
}

IpAddr read_ip(const KeyReader& r, const YAML::Node& n, const std::string& path) {
  IpAddr a;
  if (!parse_ip(r.scalar(n, path, "an IP address"), a)) r.fail_value(path, n, "not an IP address");
  return a;
}

IpPrefix read_prefix(const KeyReader& r, const YAML::Node& n, const std::string& path) {
  IpPrefix p;
  std::string why;
  if (!parse_prefix(r.scalar(n, path, "an IP prefix"), p, &why)) r.fail_value(path, n, why);
  return p;
}

}  // namespace rocelb::config_detail
