#include "dataplane/record/event_filter.h"

#include <cstring>
#include <stdexcept>

namespace rocelb {
namespace {

uint64_t number(const std::string& part, const std::string& value, uint64_t max) {
  size_t used = 0;
  unsigned long long v = 0;
  try {
    v = std::stoull(value, &used, 0);
  } catch (const std::exception&) {
    used = 0;
  }
  if (value.empty() || used != value.size() || value[0] == '-' || v > max)
    throw std::invalid_argument("--events-filter: \"" + part + "\": not a number from 0 to " +
                                std::to_string(max));
  return v;
}

IpAddr address(const std::string& part, const std::string& value) {
  IpAddr a;
  if (!parse_ip(value, a))
    throw std::invalid_argument("--events-filter: \"" + part + "\": not an IPv4 or IPv6 address");
  return a;
}

bool same_ip(const IpAddr& a, const ParsedPacket& p, const uint8_t* ip) {
  if (a.family != p.ip_version) return false;
  return std::memcmp(a.b.data(), ip, a.family == 4 ? 4 : 16) == 0;
}

}  // namespace

EventFilter EventFilter::parse(const std::string& text) {
  EventFilter f;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string part = text.substr(start, end - start);
    start = end + 1;
    if (part.empty()) {
      if (end == text.size() && !text.empty() && text.back() != ',') break;
      throw std::invalid_argument("--events-filter: empty part in \"" + text +
                                  "\" (expected KEY=VALUE,...)");
    }
    const size_t eq = part.find('=');
    if (eq == std::string::npos)
      throw std::invalid_argument("--events-filter: \"" + part + "\": expected KEY=VALUE");
    const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
    auto once = [&](bool given) {
      if (given) throw std::invalid_argument("--events-filter: \"" + key + "\" given twice");
    };
    if (key == "port") {
      once(f.port.has_value());
      f.port = static_cast<uint16_t>(number(part, value, 63));
    } else if (key == "class") {
      once(f.cls.has_value());
      f.cls = static_cast<uint8_t>(number(part, value, 7));
    } else if (key == "qp") {
      once(f.qp.has_value());
      f.qp = static_cast<uint32_t>(number(part, value, 0xFFFFFF));
    } else if (key == "src") {
      once(f.src.has_value());
      f.src = address(part, value);
    } else if (key == "dst") {
      once(f.dst.has_value());
      f.dst = address(part, value);
    } else if (key == "sport") {
      once(f.sport.has_value());
      f.sport = static_cast<uint16_t>(number(part, value, 65535));
    } else if (key == "dport") {
      once(f.dport.has_value());
      f.dport = static_cast<uint16_t>(number(part, value, 65535));
    } else {
      throw std::invalid_argument("--events-filter: \"" + key +
                                  "\": unknown key (port, class, qp, src, dst, sport, dport)");
    }
    if (end == text.size()) break;
  }
  return f;
}

bool EventFilter::matches(uint16_t event_port, int in_port, int tc, const ParsedPacket* p) const {
  if (port && *port != event_port && *port != in_port) return false;
  if (cls && *cls != tc) return false;
  if (!qp && !src && !dst && !sport && !dport) return true;
  if (!p) return false;
  if (qp && (!p->has_bth || p->bth_dest_qp != *qp)) return false;
  if (src && !same_ip(*src, *p, p->src_ip)) return false;
  if (dst && !same_ip(*dst, *p, p->dst_ip)) return false;
  if (sport && (!p->has_udp || p->sport != *sport)) return false;
  if (dport && (!p->has_udp || p->dport != *dport)) return false;
  return true;
}

}  // namespace rocelb
