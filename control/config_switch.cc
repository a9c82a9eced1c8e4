// The switch config's `switch`, `control` and `limits` sections.
#include <algorithm>

#include "control/config_sections.h"

namespace rocelb::config_detail {
namespace {

// sockaddr_un holds 108 bytes with the terminating NUL.
constexpr size_t kMaxSocketPath = 107;

void read_control(const KeyReader::Map& m, ControlParams& out) {
  const KeyReader& r = m.reader();
  if (m.read("socket", out.socket) &&
      (out.socket.empty() || out.socket.size() > kMaxSocketPath || out.socket[0] != '/'))
    r.fail_value(
        m.at("socket"), *m.get("socket"),
        "must be an absolute path of at most " + std::to_string(kMaxSocketPath) + " bytes");
  if (m.read("group", out.group) &&
      (out.group.empty() || out.group.find_first_of(" :/\t") != std::string::npos))
    r.fail_value(m.at("group"), *m.get("group"), "must be a group name");
  m.read("max_clients", out.max_clients);
  // Unset, one uid gets all slots but one: a user's leaked connections
  // always leave room for someone else (root, an operator).
  out.max_clients_per_uid = std::max<uint32_t>(1, out.max_clients - 1);
  if (m.read("max_clients_per_uid", out.max_clients_per_uid) &&
      out.max_clients_per_uid > out.max_clients)
    r.fail_value(m.at("max_clients_per_uid"), *m.get("max_clients_per_uid"),
                 "must be at most control.max_clients (" + std::to_string(out.max_clients) + ")");
  m.read("client_timeout", out.client_timeout_ns);
  m.read("idle_timeout", out.idle_timeout_ns);
}

}  // namespace

void read_switch(const KeyReader::Map& top, ConfigParams& cfg) {
  if (top.has("switch")) {
    const KeyReader::Map m = top.map("switch");
    m.read("name", cfg.sw.name);
    m.read("hash_seed", cfg.sw.hash_seed);
  }
  if (top.has("control")) read_control(top.map("control"), cfg.control);
  if (top.has("limits")) top.map("limits").read("max_memory", cfg.limits.max_memory_bytes);
}

}  // namespace rocelb::config_detail
