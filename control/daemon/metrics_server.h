// rocelbd's HTTP endpoint (cpp-httplib, on its own threads):
//   GET /metrics  200, text/plain; version=0.0.4: whatever handlers.metrics()
//                 returns (the switch's counters, then the daemon's own)
//   GET /healthz  200 "ok\n" when handlers.unhealthy_reason() is empty,
//                 else 503 with that reason on one line
//   anything else 404
// The handlers are called from httplib's worker threads, several at once:
// they must be thread-safe. An exception from one becomes a 500.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "control/daemon/daemon_options.h"

namespace httplib {
class Server;
}

namespace rocelb {

struct MetricsHandlers {
  std::function<std::string()> metrics;
  std::function<std::string()> unhealthy_reason;  // empty: healthy
};

class MetricsServerError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class MetricsServer {
 public:
  MetricsServer(ListenAddress address, MetricsHandlers handlers);
  ~MetricsServer();
  MetricsServer(const MetricsServer&) = delete;
  MetricsServer& operator=(const MetricsServer&) = delete;

  // Binds (port 0: any free port) and starts serving. Throws
  // MetricsServerError when the address cannot be bound.
  void start();
  void stop();

  uint16_t port() const { return port_; }  // the bound port, once started

 private:
  ListenAddress address_;
  MetricsHandlers handlers_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  uint16_t port_ = 0;
};

}  // namespace rocelb
