// rocelbd: the rocelb control daemon. Owns the switch's config file and
// keeps `rocelb-dp run` on it over the control socket: applies it at start,
// on SIGHUP and whenever the file changes, and again after the switch
// restarts; serves Prometheus /metrics and /healthz. See
// control/daemon/daemon.h for the loop and control/control-protocol.md for the
// socket.
//
// Exit codes: 0 stopped by SIGINT/SIGTERM; 1 could not start (the initial
// config is invalid, the log file or the metrics address is unusable);
// 2 usage error.
#include <signal.h>

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <cstdio>
#include <iostream>

#include "control/daemon/daemon.h"
#include "control/daemon/daemon_options.h"

int main(int argc, char** argv) {
  using namespace rocelb;
  const DaemonOptionsOutcome parsed = parse_daemon_options(argc, argv);
  if (!parsed.options) {
    std::cout << parsed.out;
    if (!parsed.err.empty()) std::cerr << "rocelbd: " << parsed.err;
    return parsed.exit_code;
  }
  const DaemonOptions& o = *parsed.options;

  // Before any thread exists: the daemon takes these through a signalfd.
  block_daemon_signals();
  ::signal(SIGPIPE, SIG_IGN);

  std::shared_ptr<spdlog::logger> logger;
  try {
    logger = o.log_file.empty() ? spdlog::stderr_color_mt("rocelbd")
                                : spdlog::basic_logger_mt("rocelbd", o.log_file);
  } catch (const spdlog::spdlog_ex& e) {
    std::cerr << "rocelbd: --log-file " << o.log_file << ": " << e.what() << "\n";
    return 1;
  }
  logger->set_pattern("[%Y-%m-%d %H:%M:%S.%e] [%l] %v");
  logger->set_level(spdlog::level::from_str(o.log_level));
  logger->flush_on(spdlog::level::trace);  // a daemon logs little: every line goes out at once
  spdlog::set_default_logger(logger);

  try {
    Daemon daemon(DaemonSettings::from(o));
    return daemon.run();
  } catch (const std::exception& e) {
    spdlog::critical("rocelbd: {}", e.what());
    return 1;
  }
}
