// Value types for addresses the config speaks about: MAC, IPv4/IPv6 address
// and prefix. Parsing returns false on bad text (the loader turns that into a
// key-path error); formatting gives the canonical text form.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace rocelb {

struct MacAddr {
  std::array<uint8_t, 6> b{};
  bool operator==(const MacAddr&) const = default;
  bool is_multicast() const { return b[0] & 1; }
  bool is_zero() const { return b == std::array<uint8_t, 6>{}; }
};

// An IPv4 or IPv6 address. IPv4 is kept in the first 4 bytes, network order.
struct IpAddr {
  uint8_t family = 0;  // 4 or 6; 0 = unset
  std::array<uint8_t, 16> b{};
  bool operator==(const IpAddr&) const = default;
  bool is_v4() const { return family == 4; }
  bool is_v6() const { return family == 6; }
  uint32_t v4_host_order() const {
    return (uint32_t(b[0]) << 24) | (uint32_t(b[1]) << 16) | (uint32_t(b[2]) << 8) | b[3];
  }
};

struct IpPrefix {
  IpAddr addr;
  uint8_t len = 0;
  bool operator==(const IpPrefix&) const = default;
  bool contains(const IpAddr& a) const;
  // True when no host bit (beyond len) is set.
  bool is_canonical() const;
};

bool parse_mac(std::string_view text, MacAddr& out);
bool parse_ip(std::string_view text, IpAddr& out);
// Parses "A/LEN". On failure sets *why to the rule that failed.
bool parse_prefix(std::string_view text, IpPrefix& out, std::string* why);

std::string to_string(const MacAddr& m);
std::string to_string(const IpAddr& a);
std::string to_string(const IpPrefix& p);

}  // namespace rocelb
