#include "control/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rocelb {

ControlClient::ControlClient(std::string socket_path, std::chrono::milliseconds timeout)
    : path_(std::move(socket_path)), timeout_(timeout) {}

ControlClient::~ControlClient() {
  close();
}

void ControlClient::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

void ControlClient::fail(const std::string& why) {
  close();
  throw ControlConnectError(path_ + ": " + why);
}

void ControlClient::connect() {
  if (fd_ >= 0) return;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (path_.empty() || path_.size() >= sizeof(addr.sun_path))
    throw ControlConnectError(path_ + ": not a usable socket path (1.." +
                              std::to_string(sizeof(addr.sun_path) - 1) + " bytes)");
  std::memcpy(addr.sun_path, path_.data(), path_.size());
  fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) fail(std::string("socket: ") + std::strerror(errno));
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    fail(std::strerror(errno));
}

ControlReply ControlClient::request(nlohmann::json req) {
  connect();
  const uint64_t id = next_id_++;
  req["id"] = id;
  const std::string line =
      req.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  const auto deadline = std::chrono::steady_clock::now() + timeout_;
  auto remaining_ms = [&] {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    return static_cast<int>(std::max<int64_t>(0, left.count()));
  };

  for (size_t off = 0; off < line.size();) {
    const ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN) {
        pollfd p{fd_, POLLOUT, 0};
        if (::poll(&p, 1, remaining_ms()) <= 0) fail("timed out sending the request");
        continue;
      }
      fail(std::string("send: ") + std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }

  for (;;) {
    const auto nl = buffer_.find('\n');
    if (nl != std::string::npos) {
      const std::string reply_line = buffer_.substr(0, nl);
      buffer_.erase(0, nl + 1);
      nlohmann::json reply = nlohmann::json::parse(reply_line, nullptr, /*allow_exceptions=*/false);
      if (!reply.is_object() || !reply.contains("ok") || !reply["ok"].is_boolean())
        fail("the switch sent a reply that is not a control reply: " + reply_line.substr(0, 200));
      if (reply.value("id", nlohmann::json()) != nlohmann::json(id))
        continue;  // a reply to an earlier request that timed out: skip it
      ControlReply out;
      out.ok = reply["ok"].get<bool>();
      if (out.ok)
        out.result = reply.value("result", nlohmann::json());
      else
        out.error = reply.value("error", std::string("(no error text)"));
      return out;
    }
    pollfd p{fd_, POLLIN, 0};
    const int pr = ::poll(&p, 1, remaining_ms());
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) fail("no reply within " + std::to_string(timeout_.count()) + " ms");
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail(std::string("recv: ") + std::strerror(errno));
    if (n == 0) fail("the switch closed the connection");
    buffer_.append(buf, static_cast<size_t>(n));
  }
}

}  // namespace rocelb
