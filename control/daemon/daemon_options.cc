#include "control/daemon/daemon_options.h"

#include "common/cli_app.h"

#include <CLI/CLI.hpp>
#include <cctype>
#include <charconv>
#include <sstream>

#include "control/control_client.h"

namespace rocelb {

namespace {

bool host_name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
         c == '-' || c == '_';
}

[[noreturn]] void bad(std::string_view text, const std::string& why) {
  throw ListenAddressError("\"" + std::string(text) + "\": " + why);
}

}  // namespace

std::string ListenAddress::to_string() const {
  const bool v6 = host.find(':') != std::string::npos;
  return (v6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

ListenAddress parse_listen_address(std::string_view text) {
  const std::string example = "expected ADDR:PORT, e.g. 127.0.0.1:9790 or [::1]:9790";
  ListenAddress out;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    const auto close = text.find(']');
    if (close == std::string_view::npos) bad(text, "no ']' after the IPv6 address; " + example);
    out.host = std::string(text.substr(1, close - 1));
    if (out.host.empty()) bad(text, "empty address in brackets; " + example);
    for (char c : out.host)
      if (!(std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.'))
        bad(text, "\"" + out.host + "\" is not an IPv6 address");
    if (close + 1 >= text.size() || text[close + 1] != ':') bad(text, "no port; " + example);
    port_text = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) bad(text, "no port; " + example);
    out.host = std::string(text.substr(0, colon));
    if (out.host.empty()) bad(text, "no address before the port; " + example);
    if (out.host.find(':') != std::string::npos)
      bad(text, "an IPv6 address needs brackets; " + example);
    for (char c : out.host)
      if (!host_name_char(c)) bad(text, "\"" + out.host + "\" is not an address or host name");
    port_text = text.substr(colon + 1);
  }
  if (port_text.empty()) bad(text, "no port; " + example);
  unsigned long port = 0;
  const auto [end, ec] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size())
    bad(text, "port \"" + std::string(port_text) + "\" is not a number");
  if (port < 1 || port > 65535) bad(text, "port must be 1..65535");
  out.port = static_cast<uint16_t>(port);
  return out;
}

DaemonOptionsOutcome parse_daemon_options(int argc, const char* const* argv) {
  CLI::App app{
      "rocelbd: the rocelb control daemon. Owns the switch's config file, applies it over the "
      "control socket (again on SIGHUP, on every change of the file, and when the switch "
      "restarts), and serves Prometheus metrics."};
  DaemonOptions o;
  o.socket_path = kDefaultControlSocket;
  std::string metrics = kDefaultMetricsAddress;
  app.add_option("--config", o.config_path, "the switch config YAML this daemon owns")
      ->capture_default_str();
  app.add_option("--socket", o.socket_path, "the switch's control socket")->capture_default_str();
  app.add_option("--metrics", metrics, "serve /metrics and /healthz on ADDR:PORT")
      ->capture_default_str();
  app.add_option("--log-file", o.log_file, "append the log to FILE instead of stderr");
  app.add_option("--log-level", o.log_level, "least severe level logged")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}))
      ->capture_default_str();

  add_version_flag(app);

  DaemonOptionsOutcome outcome;
  std::ostringstream out, err;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    outcome.exit_code = cli_error(app, e, "", out, err);
    outcome.out = out.str();
    outcome.err = err.str();
    return outcome;
  }
  try {
    o.metrics = parse_listen_address(metrics);
  } catch (const ListenAddressError& e) {
    outcome.exit_code = 2;
    outcome.err = std::string("--metrics: ") + e.what() + "\n";
    return outcome;
  }
  if (o.config_path.empty()) {
    outcome.exit_code = 2;
    outcome.err = "--config: empty path\n";
    return outcome;
  }
  if (o.socket_path.empty()) {
    outcome.exit_code = 2;
    outcome.err = "--socket: empty path\n";
    return outcome;
  }
  outcome.options = std::move(o);
  return outcome;
}

}  // namespace rocelb
