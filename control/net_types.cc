#include "control/net_types.h"

#include <arpa/inet.h>

#include <cstdio>

namespace rocelb {
namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Strict dotted quad: exactly 4 decimal parts 0..255, no sign, no leading
// zeros (which some parsers read as octal).
bool parse_v4(std::string_view s, std::array<uint8_t, 16>& b) {
  int part = 0;
  size_t i = 0;
  while (true) {
    size_t start = i;
    unsigned v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9' && i - start < 3) {
      v = v * 10 + unsigned(s[i] - '0');
      ++i;
    }
    size_t len = i - start;
    if (len == 0 || v > 255 || (len > 1 && s[start] == '0')) return false;
    b[part++] = static_cast<uint8_t>(v);
    if (part == 4) return i == s.size();
    if (i >= s.size() || s[i] != '.') return false;
    ++i;
  }
}

bool parse_v6(std::string_view s, std::array<uint8_t, 16>& b) {
  // inet_pton takes every RFC 4291 text form (::, embedded IPv4 tail) and
  // rejects zone ids and junk. It needs a NUL-terminated copy.
  if (s.empty() || s.size() > 45) return false;
  char buf[64];
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\0') return false;
    buf[i] = s[i];
  }
  buf[s.size()] = '\0';
  return inet_pton(AF_INET6, buf, b.data()) == 1;
}

// Number of leading bits two addresses share, up to `max`.
bool same_leading_bits(const std::array<uint8_t, 16>& x, const std::array<uint8_t, 16>& y,
                       unsigned bits) {
  unsigned full = bits / 8, rest = bits % 8;
  for (unsigned i = 0; i < full; ++i)
    if (x[i] != y[i]) return false;
  if (rest == 0) return true;
  uint8_t mask = static_cast<uint8_t>(0xff << (8 - rest));
  return (x[full] & mask) == (y[full] & mask);
}

}  // namespace

bool IpPrefix::contains(const IpAddr& a) const {
  if (a.family != addr.family || addr.family == 0) return false;
  return same_leading_bits(addr.b, a.b, len);
}

bool IpPrefix::is_canonical() const {
  unsigned total = addr.is_v4() ? 32 : 128;
  for (unsigned bit = len; bit < total; ++bit)
    if (addr.b[bit / 8] & (0x80 >> (bit % 8))) return false;
  return true;
}

bool parse_mac(std::string_view text, MacAddr& out) {
  // "02:00:00:00:00:01" or "02-00-00-00-00-01": 6 pairs, one separator kind.
  if (text.size() != 17) return false;
  char sep = text[2];
  if (sep != ':' && sep != '-') return false;
  MacAddr m;
  for (int i = 0; i < 6; ++i) {
    int hi = hex_value(text[i * 3]), lo = hex_value(text[i * 3 + 1]);
    if (hi < 0 || lo < 0) return false;
    if (i < 5 && text[i * 3 + 2] != sep) return false;
    m.b[i] = static_cast<uint8_t>(hi * 16 + lo);
  }
  out = m;
  return true;
}

bool parse_ip(std::string_view text, IpAddr& out) {
  IpAddr a;
  if (text.find(':') != std::string_view::npos) {
    if (!parse_v6(text, a.b)) return false;
    a.family = 6;
  } else {
    if (!parse_v4(text, a.b)) return false;
    a.family = 4;
  }
  out = a;
  return true;
}

bool parse_prefix(std::string_view text, IpPrefix& out, std::string* why) {
  auto fail = [&](const char* rule) {
    if (why) *why = rule;
    return false;
  };
  size_t slash = text.rfind('/');
  if (slash == std::string_view::npos) {
    IpAddr ignored;
    return fail(parse_ip(text, ignored) ? "missing /LEN" : "not an IP address");
  }
  IpPrefix p;
  if (!parse_ip(text.substr(0, slash), p.addr)) return fail("not an IP address");
  const char* len_rule =
      p.addr.is_v4() ? "prefix length must be 0..32" : "prefix length must be 0..128";
  std::string_view len_text = text.substr(slash + 1);
  if (len_text.empty() || len_text.size() > 3) return fail(len_rule);
  unsigned len = 0;
  for (char c : len_text) {
    if (c < '0' || c > '9') return fail(len_rule);
    len = len * 10 + unsigned(c - '0');
  }
  if (len > (p.addr.is_v4() ? 32u : 128u)) return fail(len_rule);
  p.len = static_cast<uint8_t>(len);
  out = p;
  return true;
}

std::string to_string(const MacAddr& m) {
  char buf[18];
  std::snprintf(buf, sizeof buf, "%02x:%02x:%02x:%02x:%02x:%02x", m.b[0], m.b[1], m.b[2], m.b[3],
                m.b[4], m.b[5]);
  return buf;
}

std::string to_string(const IpAddr& a) {
  if (a.is_v4())
    return std::to_string(a.b[0]) + "." + std::to_string(a.b[1]) + "." + std::to_string(a.b[2]) +
           "." + std::to_string(a.b[3]);
  if (a.is_v6()) {
    char buf[INET6_ADDRSTRLEN];
    if (inet_ntop(AF_INET6, a.b.data(), buf, sizeof buf)) return buf;
  }
  return "unset";
}

std::string to_string(const IpPrefix& p) {
  return to_string(p.addr) + "/" + std::to_string(p.len);
}

}  // namespace rocelb
