// Helpers for the config loader tests: a small valid config built from
// sections (each test replaces the one it is about) and a way to get the
// error message a config produces.
#pragma once

#include <string>
#include <vector>

#include "control/config_loader.h"

namespace rocelb::test {

// Two ports, a neighbor on each (IPv4 and IPv6), one group, one route.
struct Doc {
  std::string sw;
  std::string ports =
      "ports:\n"
      "  - {id: 0, speed: 100G, mac: \"02:00:00:00:00:00\", ipv4: 10.0.0.1/24, ipv6: "
      "\"fd00:0:0::1/64\"}\n"
      "  - {id: 1, speed: 100G, mac: \"02:00:00:00:00:01\", ipv4: 10.0.1.1/24, ipv6: "
      "\"fd00:0:1::1/64\"}\n";
  std::string neighbors =
      "neighbors:\n"
      "  - {ip: 10.0.0.2, mac: \"02:00:00:00:01:00\", port: 0}\n"
      "  - {ip: 10.0.1.2, mac: \"02:00:00:00:01:01\", port: 1}\n"
      "  - {ip: \"fd00:0:1::2\", mac: \"02:00:00:00:01:01\", port: 1}\n";
  std::string groups =
      "groups:\n"
      "  g: {members: [10.0.0.2, 10.0.1.2]}\n";
  std::string routes =
      "routes:\n"
      "  - {prefix: 0.0.0.0/0, group: g}\n";
  std::string qos;

  std::string text() const { return sw + ports + neighbors + groups + routes + qos; }
};

inline constexpr const char* kSource = "x.yaml";

inline ConfigParams load(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return load_config_text(text, kSource, overrides);
}

// The ConfigError message, or "no error".
inline std::string error_of(const std::string& text,
                            const std::vector<std::string>& overrides = {}) {
  try {
    load_config_text(text, kSource, overrides);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace rocelb::test
