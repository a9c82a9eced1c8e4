// rocelbd's command line: where the config file is, which control socket
// the switch serves, where to serve /metrics and /healthz, and where and
// how much to log. parse_daemon_options() never exits the process: it
// returns the options, or the exit code and text (--help: 0 on stdout; a
// usage error: 2 with one line on stderr) for main() to use.
//
//   rocelbd [--config FILE] [--socket PATH] [--metrics ADDR:PORT]
//           [--log-file FILE] [--log-level LEVEL]
//
// ADDR:PORT is an IPv4 address, a host name, or an IPv6 address in
// brackets ("[::1]:9790"), then a port 1..65535.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace rocelb {

inline constexpr const char* kDefaultDaemonConfig = "/etc/rocelb/rocelb.yaml";
inline constexpr const char* kDefaultMetricsAddress = "127.0.0.1:9790";

struct ListenAddress {
  std::string host;  // without brackets: "127.0.0.1", "::1", "localhost"
  uint16_t port = 0;
  std::string to_string() const;  // "127.0.0.1:9790", "[::1]:9790"
  bool operator==(const ListenAddress&) const = default;
};

class ListenAddressError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// Throws ListenAddressError naming the text and what is wrong with it.
ListenAddress parse_listen_address(std::string_view text);

struct DaemonOptions {
  std::string config_path = kDefaultDaemonConfig;
  std::string socket_path;  // default: kDefaultControlSocket
  ListenAddress metrics;    // default: kDefaultMetricsAddress
  std::string log_file;     // empty: stderr
  std::string log_level = "info";
};

struct DaemonOptionsOutcome {
  std::optional<DaemonOptions> options;  // set when the daemon should run
  int exit_code = 0;                     // otherwise: exit with this...
  std::string out;                       // ...after printing this on stdout (--help)
  std::string err;                       // ...or this on stderr (usage error)
};

DaemonOptionsOutcome parse_daemon_options(int argc, const char* const* argv);

}  // namespace rocelb
