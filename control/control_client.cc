#include "control/control_client.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace rocelb {
namespace {

int remaining_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(std::max<int64_t>(0, left.count()));
}

// The switch's line before it closes the connection on its own
// (control_protocol.h: reply_closing).
bool is_closing_line(const nlohmann::json& reply) {
  const auto it = reply.find("closed");
  return it != reply.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

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
  // Neither connect() (a switch whose backlog is full) nor send() (one that
  // does not read) may block past the timeout.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout_.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(timeout_.count() % 1000 * 1000);
  ::setsockopt(fd_, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0)
    fail(std::strerror(errno));
}

bool ControlClient::reuse_kept_connection() {
  if (fd_ < 0) return false;
  // Between requests nothing is due from the switch: anything readable is
  // the end of the connection.
  pollfd p{fd_, POLLIN, 0};
  if (::poll(&p, 1, 0) == 0) return true;
  if (!drain_for_closing_line()) fail("the switch closed the connection");
  close();  // it closed an idle connection and said so: a fresh one follows
  return false;
}

bool ControlClient::drain_for_closing_line() {
  std::string got;
  char buf[4096];
  for (ssize_t n; (n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT)) > 0;)
    got.append(buf, static_cast<size_t>(n));
  for (size_t start = 0, nl; (nl = got.find('\n', start)) != std::string::npos; start = nl + 1)
    if (is_closing_line(nlohmann::json::parse(got.substr(start, nl - start), nullptr, false)))
      return true;
  return false;
}

ControlReply ControlClient::request(nlohmann::json req) {
  // JSON is UTF-8 text. A string that is not (a value or a config file with
  // a stray byte) is refused here, not sent with U+FFFD in its place: the
  // switch would otherwise apply a value the user never wrote.
  req["id"] = next_id_;
  std::string line;
  try {
    line = req.dump() + "\n";
  } catch (const nlohmann::json::type_error& e) {
    std::string why = e.what();  // "[json.exception.type_error.316] invalid UTF-8 byte at ..."
    if (const size_t at = why.find("] "); at != std::string::npos) why.erase(0, at + 2);
    ControlReply refused;
    refused.error = "not sent: the request has text that is not UTF-8 (" + why +
                    "); the control protocol and a config are UTF-8";
    return refused;
  }
  const bool kept = reuse_kept_connection();
  connect();
  const uint64_t id = next_id_++;
  try {
    return exchange(line, id);
  } catch (const ControlRefusedError&) {
    // The switch closed the kept connection (idle) as the request went out,
    // and said so: it never read the request, so sending it again on a fresh
    // connection cannot apply it twice.
    if (!kept) throw;
  }
  connect();
  return exchange(line, id);
}

ControlReply ControlClient::exchange(const std::string& line, uint64_t id) {
  const Deadline deadline = std::chrono::steady_clock::now() + timeout_;
  // When the switch has hung up, what it said before it did is still to be
  // read: the reply loop finds it (or the end).
  send_line(line, deadline);
  return read_reply(id, deadline);
}

bool ControlClient::send_line(const std::string& line, Deadline deadline) {
  for (size_t off = 0; off < line.size();) {
    const ssize_t n = ::send(fd_, line.data() + off, line.size() - off, MSG_NOSIGNAL);
    if (n >= 0) {
      off += static_cast<size_t>(n);
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET) return false;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      pollfd p{fd_, POLLOUT, 0};
      if (::poll(&p, 1, remaining_ms(deadline)) <= 0) fail("timed out sending the request");
      continue;
    }
    fail(std::string("send: ") + std::strerror(errno));
  }
  return true;
}

ControlReply ControlClient::read_reply(uint64_t id, Deadline deadline) {
  for (;;) {
    ControlReply out;
    if (take_reply_line(id, out)) return out;
    receive_more(deadline);
  }
}

bool ControlClient::take_reply_line(uint64_t id, ControlReply& out) {
  for (size_t nl; (nl = buffer_.find('\n')) != std::string::npos;) {
    const std::string reply_line = buffer_.substr(0, nl);
    buffer_.erase(0, nl + 1);
    nlohmann::json reply = nlohmann::json::parse(reply_line, nullptr, /*allow_exceptions=*/false);
    if (!reply.is_object() || !reply.contains("ok") || !reply["ok"].is_boolean())
      fail("the switch sent a reply that is not a control reply: " + reply_line.substr(0, 200));
    if (is_closing_line(reply)) {
      const auto error = reply.find("error");
      std::string why = error != reply.end() && error->is_string() ? error->get<std::string>()
                                                                   : "(no reason given)";
      close();
      throw ControlRefusedError(path_, std::move(why));
    }
    // null: about the request as a whole (e.g. one over 64 KiB), so ours.
    const nlohmann::json reply_id = reply.value("id", nlohmann::json());
    if (!reply_id.is_null() && reply_id != nlohmann::json(id))
      continue;  // a reply to an earlier request that timed out: skip it
    out.ok = reply["ok"].get<bool>();
    if (out.ok)
      out.result = reply.value("result", nlohmann::json());
    else
      out.error = reply.value("error", std::string("(no error text)"));
    return true;
  }
  return false;
}

void ControlClient::receive_more(Deadline deadline) {
  for (;;) {
    pollfd p{fd_, POLLIN, 0};
    const int pr = ::poll(&p, 1, remaining_ms(deadline));
    if (pr < 0 && errno == EINTR) continue;
    if (pr <= 0) fail("no reply within " + std::to_string(timeout_.count()) + " ms");
    char buf[65536];
    const ssize_t n = ::recv(fd_, buf, sizeof(buf), 0);
    if (n < 0 && errno == EINTR) continue;
    if (n > 0) {
      buffer_.append(buf, static_cast<size_t>(n));
      return;
    }
    fail(n == 0 ? "the switch closed the connection"
                : std::string("recv: ") + std::strerror(errno));
  }
}

}  // namespace rocelb
