#include "control/daemon/metrics_server.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "control/daemon/prometheus_text.h"

namespace rocelb {

MetricsServer::MetricsServer(ListenAddress address, MetricsHandlers handlers)
    : address_(std::move(address)), handlers_(std::move(handlers)) {}

MetricsServer::~MetricsServer() {
  stop();
}

void MetricsServer::start() {
  if (server_) return;
  auto server = std::make_unique<httplib::Server>();
  server->Get("/metrics", [this](const httplib::Request&, httplib::Response& res) {
    res.set_content(handlers_.metrics(), kDaemonMetricsContentType);
  });
  server->Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    std::string reason = handlers_.unhealthy_reason();
    if (reason.empty()) {
      res.set_content("ok\n", "text/plain; charset=utf-8");
      return;
    }
    for (char& c : reason)
      if (c == '\n' || c == '\r') c = ' ';
    res.status = 503;
    res.set_content(reason + "\n", "text/plain; charset=utf-8");
  });
  server->set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "internal error";
        try {
          std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what += std::string(": ") + e.what();
        } catch (...) {
        }
        res.status = 500;
        res.set_content(what + "\n", "text/plain; charset=utf-8");
      });
  server->set_error_handler([](const httplib::Request&, httplib::Response& res) {
    if (res.status == 404 && res.body.empty())
      res.set_content("not found (try /metrics or /healthz)\n", "text/plain; charset=utf-8");
  });

  // SO_REUSEADDR (a restart need not wait out TIME_WAIT) but not httplib's
  // default SO_REUSEPORT, with which a second rocelbd would share the port
  // silently instead of being told it is taken.
  server->set_socket_options([](int sock) {
    const int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
  });
  errno = 0;
  int port = address_.port;
  if (port == 0) {
    port = server->bind_to_any_port(address_.host);
    if (port <= 0) port = -1;
  } else if (!server->bind_to_port(address_.host, port)) {
    port = -1;
  }
  if (port < 0) {
    const int e = errno;
    throw MetricsServerError("--metrics " + address_.to_string() + ": cannot listen" +
                             (e != 0 ? std::string(": ") + std::strerror(e) : std::string()));
  }
  port_ = static_cast<uint16_t>(port);
  server_ = std::move(server);
  auto ended = std::make_shared<std::atomic<bool>>(false);
  thread_ = std::thread([s = server_.get(), ended] {
    s->listen_after_bind();
    *ended = true;
  });
  // stop() is a no-op until the listener runs: wait for it, so a stop()
  // right after start() is never lost.
  while (!server_->is_running() && !*ended)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

void MetricsServer::stop() {
  if (!server_) return;
  server_->stop();
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

}  // namespace rocelb
