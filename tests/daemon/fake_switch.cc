#include "fake_switch.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

#include "control/control_protocol.h"

namespace rocelb::test {

FakeSwitch::FakeSwitch(std::string socket_path) : path_(std::move(socket_path)) {}

FakeSwitch::~FakeSwitch() {
  stop();
}

void FakeSwitch::start() {
  stop();
  {
    std::lock_guard lock(mu_);
    generation_ = 1;
    applied_.clear();
  }
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path_.size() >= sizeof(addr.sun_path)) throw std::runtime_error("socket path too long");
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  ::unlink(path_.c_str());
  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listen_fd_, 16) != 0)
    throw std::runtime_error(std::string("fake switch: ") + std::strerror(errno));
  if (::pipe2(stop_pipe_, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
  thread_ = std::thread([this] { serve(); });
}

void FakeSwitch::stop() {
  if (!thread_.joinable()) return;
  const char c = 0;
  [[maybe_unused]] ssize_t n = ::write(stop_pipe_[1], &c, 1);
  thread_.join();
  ::close(listen_fd_);
  ::close(stop_pipe_[0]);
  ::close(stop_pipe_[1]);
  listen_fd_ = stop_pipe_[0] = stop_pipe_[1] = -1;
  ::unlink(path_.c_str());
}

void FakeSwitch::refuse_when_containing(std::string marker) {
  std::lock_guard lock(mu_);
  marker_ = std::move(marker);
}

void FakeSwitch::reset_generation() {
  std::lock_guard lock(mu_);
  generation_ = 1;
}

std::vector<std::string> FakeSwitch::applied() const {
  std::lock_guard lock(mu_);
  return applied_;
}

uint64_t FakeSwitch::generation() const {
  std::lock_guard lock(mu_);
  return generation_;
}

std::string FakeSwitch::answer(const std::string& line) {
  const ParsedRequest req = parse_request(line);
  if (!req.ok()) return reply_error(req.id, req.error);
  std::lock_guard lock(mu_);
  if (req.verb == ControlVerb::kApply) {
    if (!marker_.empty() && req.config.find(marker_) != std::string::npos)
      return reply_error(req.id, "apply: refused by the fake switch (" + marker_ + ")");
    applied_.push_back(req.config);
    return reply_ok(req.id, {{"generation", ++generation_}});
  }
  if (req.verb == ControlVerb::kShow && req.what == "config")
    return reply_ok(req.id, {{"generation", generation_},
                             {"source", "fake"},
                             {"overrides", nlohmann::json::array()},
                             {"yaml", applied_.empty() ? "" : applied_.back()}});
  if (req.verb == ControlVerb::kShow && req.what == "metrics") {
    ++scrapes_;
    return reply_ok(req.id,
                    {{"content_type", "text/plain; version=0.0.4; charset=utf-8"},
                     {"text",
                      "# HELP rocelb_fake_scrapes_total Scrapes served by the fake switch.\n"
                      "# TYPE rocelb_fake_scrapes_total counter\n"
                      "rocelb_fake_scrapes_total{switch=\"fake \\\"one\\\"\"} " +
                          std::to_string(scrapes_) + "\n"}});
  }
  return reply_error(req.id, "fake switch: not implemented");
}

void FakeSwitch::serve() {
  struct Client {
    int fd;
    std::string buf;
  };
  std::vector<Client> clients;
  for (;;) {
    std::vector<pollfd> fds = {{stop_pipe_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
    for (const Client& c : clients) fds.push_back({c.fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0) continue;
    if (fds[0].revents) break;
    if (fds[1].revents & POLLIN) {
      const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd >= 0) clients.push_back({fd, {}});
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      Client& c = clients[i - 2];
      char buf[65536];
      const ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
      if (n <= 0) {
        ::close(c.fd);
        c.fd = -1;
        continue;
      }
      c.buf.append(buf, static_cast<size_t>(n));
      for (size_t nl; (nl = c.buf.find('\n')) != std::string::npos;) {
        const std::string reply = answer(c.buf.substr(0, nl));
        c.buf.erase(0, nl + 1);
        [[maybe_unused]] ssize_t w = ::send(c.fd, reply.data(), reply.size(), MSG_NOSIGNAL);
      }
    }
    std::erase_if(clients, [](const Client& c) { return c.fd < 0; });
  }
  for (const Client& c : clients) ::close(c.fd);
}

}  // namespace rocelb::test
