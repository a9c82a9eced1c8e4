#include "control/control_server.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "control/config_params.h"

namespace rocelb {
namespace {

// One read from a client. Small, so that what a client pipelines waits in
// its socket (kernel memory, bounded by the socket buffer), not in ours.
constexpr size_t kReadChunk = 16384;
// Requests handled for one client per poll(): one that pipelines thousands
// cannot keep the others waiting.
constexpr int kRequestsPerPoll = 16;

uint64_t now_ns() {
  return static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch())
                                   .count());
}

std::string errno_text() {
  return std::strerror(errno);
}

sockaddr_un make_addr(const std::string& path) {
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::memcpy(a.sun_path, path.data(), path.size());
  return a;
}

gid_t group_id(const std::string& name) {
  std::vector<char> buf(16384);
  group g{};
  group* out = nullptr;
  if (getgrnam_r(name.c_str(), &g, buf.data(), buf.size(), &out) != 0 || !out)
    throw std::runtime_error("control.group: no group named \"" + name + "\"");
  return out->gr_gid;
}

// Whether something answers on the socket file at `path`.
bool someone_listens(const std::string& path) {
  const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return false;
  const sockaddr_un a = make_addr(path);
  const bool live = ::connect(fd, reinterpret_cast<const sockaddr*>(&a), sizeof(a)) == 0;
  ::close(fd);
  return live;
}

// "30s", "250ms": a timeout as the config would write it.
std::string duration_text(uint64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns % 1'000 == 0) return std::to_string(ns / 1'000) + "us";
  return std::to_string(ns) + "ns";
}

// The reason a connection is closed, as its last line. Best effort: it never
// waits for a peer that does not read.
void send_closing(int fd, const std::string& why) {
  const std::string line = reply_closing(why);
  [[maybe_unused]] ssize_t n = ::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
}

// The supplementary groups of the peer of `fd` as they were when it
// connected (SO_PEERGROUPS); empty when the kernel cannot say.
std::vector<gid_t> peer_groups(int fd) {
  std::vector<gid_t> groups(64);
  for (int attempt = 0; attempt < 2; ++attempt) {
    socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
    if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
      groups.resize(len / sizeof(gid_t));
      return groups;
    }
    if (errno != ERANGE) break;
    groups.resize(len / sizeof(gid_t) + 1);  // len says how much is needed
  }
  return {};
}

// Milliseconds from now until deadline (0 when past), for poll().
int ms_until(uint64_t deadline, uint64_t now) {
  if (deadline <= now) return 0;
  return static_cast<int>(std::min<uint64_t>((deadline - now) / 1'000'000 + 1, 3'600'000));
}

}  // namespace

ControlServerOptions control_server_options(const ControlParams& p) {
  ControlServerOptions o;
  o.path = p.socket;
  o.group = p.group;
  o.max_clients = p.max_clients;
  o.max_clients_per_uid = p.max_clients_per_uid;
  o.client_timeout_ns = p.client_timeout_ns;
  o.idle_timeout_ns = p.idle_timeout_ns;
  return o;
}

ControlServer::ControlServer(const ControlServerOptions& opt, Handler handler)
    : opt_(opt), handler_(std::move(handler)) {
  const std::string& path = opt_.path;
  if (path.empty() || path.size() >= sizeof(sockaddr_un::sun_path))
    throw std::runtime_error("control.socket: \"" + path + "\": not a usable socket path");
  group_ = opt_.group.empty() ? getegid() : group_id(opt_.group);

  namespace fs = std::filesystem;
  const fs::path parent = fs::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty() && !fs::exists(parent, ec)) {
    fs::create_directories(parent, ec);
    if (ec)
      throw std::runtime_error("control.socket: " + path + ": cannot create " + parent.string() +
                               ": " + ec.message());
    ::chmod(parent.c_str(), 0755);
  }
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode))
      throw std::runtime_error("control.socket: " + path + ": exists and is not a socket");
    if (someone_listens(path))
      throw std::runtime_error("control.socket: " + path +
                               ": another process is serving it (is rocelb-dp already running?)");
    ::unlink(path.c_str());  // stale: left by a switch that did not stop cleanly
  }

  listen_fd_ = ::socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (listen_fd_ < 0) throw std::runtime_error("control.socket: socket: " + errno_text());
  const sockaddr_un a = make_addr(path);
  const mode_t old_mask = ::umask(0117);  // born 0660: no window with looser rights
  const int rc = ::bind(listen_fd_, reinterpret_cast<const sockaddr*>(&a), sizeof(a));
  const int bind_errno = errno;
  ::umask(old_mask);
  if (rc != 0) {
    ::close(listen_fd_);
    throw std::runtime_error("control.socket: " + path + ": " + std::strerror(bind_errno));
  }
  if (::chown(path.c_str(), static_cast<uid_t>(-1), group_) != 0 ||
      ::chmod(path.c_str(), 0660) != 0 || ::listen(listen_fd_, 16) != 0 ||
      ::stat(path.c_str(), &st) != 0) {
    const std::string why = errno_text();
    ::close(listen_fd_);
    ::unlink(path.c_str());
    throw std::runtime_error("control.socket: " + path + ": " + why);
  }
  inode_ = st.st_ino;
}

void ControlServer::reconfigure(const ControlServerOptions& next) {
  // The group first: it alone can fail, and then nothing has changed.
  const gid_t group = next.group.empty() ? getegid() : group_id(next.group);
  if (group != group_ && ::chown(opt_.path.c_str(), static_cast<uid_t>(-1), group) != 0)
    throw std::runtime_error("control.group: cannot give " + opt_.path + " to group " +
                             std::to_string(group) + ": " + errno_text());
  group_ = group;
  // A shorter timeout holds from now on: each client's deadline becomes the
  // sooner of its old one and a whole new timeout from now.
  const uint64_t now = now_ns();
  auto sooner = [now](uint64_t since, uint64_t before, uint64_t after) {
    return after < before ? std::min(since + (before - after), now) : since;
  };
  for (Client& c : clients_) {
    c.active_ns = sooner(c.active_ns, opt_.idle_timeout_ns, next.idle_timeout_ns);
    if (c.busy_since_ns)
      c.busy_since_ns = sooner(c.busy_since_ns, opt_.client_timeout_ns, next.client_timeout_ns);
  }
  const std::string path = opt_.path;
  opt_ = next;
  opt_.path = path;
}

ControlServer::~ControlServer() {
  for (auto& c : clients_) ::close(c.fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  struct stat st {};
  if (::lstat(opt_.path.c_str(), &st) == 0 && st.st_ino == inode_) ::unlink(opt_.path.c_str());
}

bool ControlServer::permitted(const ControlPeer& peer) const {
  if (peer.uid == 0 || peer.uid == geteuid() || peer.gid == group_) return true;
  return std::find(peer.groups.begin(), peer.groups.end(), group_) != peer.groups.end();
}

uint32_t ControlServer::per_uid_limit() const {
  if (opt_.max_clients_per_uid) return opt_.max_clients_per_uid;
  return opt_.max_clients > 1 ? opt_.max_clients - 1 : 1;
}

std::string ControlServer::refusal_for(const ControlPeer& peer, bool known) {
  if (!known) {
    ++stats_.refused_no_creds;
    return "permission denied: cannot read the peer's credentials";
  }
  if (!permitted(peer)) {
    ++stats_.refused_peer;
    return "permission denied: uid " + std::to_string(peer.uid) +
           " is not root and not in the control socket's group (gid " + std::to_string(group_) +
           ")";
  }
  if (clients_.size() >= opt_.max_clients) {
    ++stats_.refused_full;
    return "too many clients (control.max_clients is " + std::to_string(opt_.max_clients) + ")";
  }
  const auto same_uid = std::count_if(clients_.begin(), clients_.end(),
                                      [&](const Client& c) { return c.peer.uid == peer.uid; });
  if (static_cast<uint64_t>(same_uid) >= per_uid_limit()) {
    ++stats_.refused_uid;
    return "too many clients of uid " + std::to_string(peer.uid) +
           " (control.max_clients_per_uid is " + std::to_string(per_uid_limit()) + ")";
  }
  return {};
}

void ControlServer::accept_clients(uint64_t now) {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error: the next poll tries again
    ucred cred{};
    socklen_t len = sizeof(cred);
    ControlPeer peer;
    const bool known = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0;
    if (known) {
      peer.pid = cred.pid;
      peer.uid = cred.uid;
      peer.gid = cred.gid;
      peer.groups = peer_groups(fd);
    }
    const std::string refusal = refusal_for(peer, known);
    if (!refusal.empty()) {
      send_closing(fd, refusal);
      ::close(fd);
      continue;
    }
    ++stats_.accepted;
    Client c;
    c.fd = fd;
    c.peer = peer;
    c.active_ns = now;
    clients_.push_back(std::move(c));
  }
}

bool ControlServer::has_line(const Client& c) const {
  return !c.discarding &&
         std::memchr(c.in.data() + c.in_pos, '\n', c.in.size() - c.in_pos) != nullptr;
}

bool ControlServer::may_handle(const Client& c) const {
  // One reply at a time per client, and all clients' replies under the bound.
  return c.out.empty() && out_total_ < opt_.max_queued_bytes;
}

bool ControlServer::wants_input(const Client& c) const {
  // Nothing is read that could not be handled now: the rest stays in the
  // client's socket, and a client that does not read is not read either.
  return !c.eof && may_handle(c) && !has_line(c);
}

void ControlServer::queue_reply(Client& c, std::string line) {
  out_total_ += line.size();
  if (c.out.empty())
    c.out = std::move(line);
  else
    c.out += line;
  if (out_total_ > peak_queued_bytes_.load(std::memory_order_relaxed))
    peak_queued_bytes_.store(out_total_, std::memory_order_relaxed);
}

void ControlServer::skip_oversize(Client& c) {
  for (;;) {
    const char* begin = c.in.data() + c.in_pos;
    const size_t len = c.in.size() - c.in_pos;
    const char* nl = static_cast<const char*>(std::memchr(begin, '\n', len));
    if (c.discarding) {
      if (!nl) {  // all of it belongs to the oversize line
        c.in.clear();
        c.in_pos = 0;
        return;
      }
      c.discarding = false;
      c.in_pos += static_cast<size_t>(nl - begin) + 1;
      continue;
    }
    if (nl || len <= kMaxRequestBytes + 1) return;  // +1: a trailing '\r'
    // A line already too long, its end not here yet: answer now, skip the rest.
    ++stats_.requests;
    ++stats_.bad_requests;
    queue_reply(c, reply_error(nullptr, "request larger than " + std::to_string(kMaxRequestBytes) +
                                            " bytes: skipped to its end"));
    c.discarding = true;
    c.in.clear();
    c.in_pos = 0;
    return;
  }
}

bool ControlServer::read_client(Client& c, uint64_t now) {
  while (wants_input(c)) {
    c.in.erase(0, c.in_pos);  // what was taken as requests already
    c.in_pos = 0;
    const size_t kept = c.in.size();
    c.in.resize(kept + kReadChunk);
    const ssize_t n = ::recv(c.fd, c.in.data() + kept, kReadChunk, MSG_DONTWAIT);
    c.in.resize(kept + static_cast<size_t>(std::max<ssize_t>(n, 0)));
    if (n == 0) {  // half-closed: still answer what came before
      c.eof = true;
      return true;
    }
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.active_ns = now;
    skip_oversize(c);
  }
  return true;
}

bool ControlServer::next_line(Client& c, std::string& line) {
  if (!has_line(c)) return false;
  const char* begin = c.in.data() + c.in_pos;
  const char* nl = static_cast<const char*>(std::memchr(begin, '\n', c.in.size() - c.in_pos));
  line.assign(begin, nl);
  c.in_pos += line.size() + 1;
  if (c.in_pos == c.in.size()) {
    c.in.clear();
    c.in_pos = 0;
  }
  return true;
}

void ControlServer::handle_line(Client& c, std::string& line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line.empty()) return;
  ++stats_.requests;
  if (line.size() > kMaxRequestBytes) {  // whole, but too long all the same
    ++stats_.bad_requests;
    queue_reply(c, reply_error(nullptr, "request larger than " + std::to_string(kMaxRequestBytes) +
                                            " bytes: skipped to its end"));
    return;
  }
  // Nothing a client sends may end the switch: whatever throws becomes an
  // error reply.
  nlohmann::json id;
  try {
    const ParsedRequest req = parse_request(line);
    id = req.id;
    if (!req.ok()) {
      ++stats_.bad_requests;
      queue_reply(c, reply_error(req.id, req.error));
      return;
    }
    queue_reply(c, handler_(req, c.peer));
  } catch (const std::exception& e) {
    queue_reply(c, reply_error(id, std::string("internal error: ") + e.what()));
  }
}

bool ControlServer::write_client(Client& c, uint64_t now) {
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.out.erase(0, static_cast<size_t>(n));
    out_total_ -= static_cast<size_t>(n);
    c.active_ns = now;
  }
  return true;
}

bool ControlServer::serve(Client& c, uint64_t now) {
  std::string line;
  for (int n = 0; n < kRequestsPerPoll && may_handle(c) && next_line(c, line); ++n) {
    handle_line(c, line);
    c.busy_since_ns = 0;  // progress: the client's clock starts again
    if (!write_client(c, now)) return false;
  }
  return write_client(c, now);
}

ControlServer::Wait ControlServer::waiting_for(const Client& c) const {
  if (!c.out.empty() || c.discarding) return Wait::kClient;  // a reply not taken, a line not ended
  if (has_line(c)) return Wait::kServer;                     // whole requests, held by the bounds
  if (c.in_pos < c.in.size()) return Wait::kClient;          // part of a request
  return Wait::kIdle;
}

bool ControlServer::expired(Client& c, uint64_t now) {
  switch (waiting_for(c)) {
    case Wait::kServer:
      c.busy_since_ns = 0;  // our bounds hold it up, not the client
      return false;
    case Wait::kClient:
      if (!c.busy_since_ns) c.busy_since_ns = now;
      // Sums, not differences: reconfigure() may set a clock a little past
      // this poll's `now`.
      if (now < c.busy_since_ns + opt_.client_timeout_ns) return false;
      ++stats_.timeouts;
      if (c.out.empty())  // else the reason would land inside a reply it does not read
        send_closing(c.fd, "closed: no whole request within " +
                               duration_text(opt_.client_timeout_ns) + " (control.client_timeout)");
      return true;
    case Wait::kIdle:
      c.busy_since_ns = 0;
      if (now < c.active_ns + opt_.idle_timeout_ns) return false;
      ++stats_.idle_closed;
      send_closing(c.fd, "closed: idle for " + duration_text(opt_.idle_timeout_ns) +
                             " (control.idle_timeout)");
      return true;
  }
  return false;
}

bool ControlServer::serve_client(Client& c, short revents, uint64_t now) {
  if (revents & POLLNVAL) return false;
  if ((revents & (POLLIN | POLLHUP | POLLERR)) && !read_client(c, now)) return false;
  if (!serve(c, now)) return false;
  if (revents & (POLLHUP | POLLERR)) return false;           // the peer is gone: nothing reaches it
  if (c.eof && c.out.empty() && !has_line(c)) return false;  // half-closed and all answered
  return !expired(c, now);
}

int ControlServer::next_deadline_ms(uint64_t now, int timeout_ms) const {
  auto earlier = [&](int ms) {
    if (timeout_ms < 0 || ms < timeout_ms) timeout_ms = ms;
  };
  for (const auto& c : clients_) {
    switch (waiting_for(c)) {
      case Wait::kServer:
        if (may_handle(c)) earlier(0);  // more requests than one poll() handles
        break;
      case Wait::kClient:
        if (c.busy_since_ns) earlier(ms_until(c.busy_since_ns + opt_.client_timeout_ns, now));
        break;
      case Wait::kIdle:
        earlier(ms_until(c.active_ns + opt_.idle_timeout_ns, now));
        break;
    }
  }
  return timeout_ms;
}

void ControlServer::close_client(size_t i) {
  out_total_ -= clients_[i].out.size();
  ::close(clients_[i].fd);
  clients_.erase(clients_.begin() + static_cast<std::ptrdiff_t>(i));
}

void ControlServer::poll(int timeout_ms) {
  timeout_ms = next_deadline_ms(now_ns(), timeout_ms);
  std::vector<pollfd> fds;
  fds.reserve(clients_.size() + 1);
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const auto& c : clients_) {
    short ev = 0;
    if (wants_input(c)) ev |= POLLIN;
    if (!c.out.empty()) ev |= POLLOUT;
    fds.push_back({c.fd, ev, 0});  // POLLHUP and POLLERR come anyway
  }
  if (::poll(fds.data(), fds.size(), timeout_ms) < 0) return;  // EINTR: a signal, look again
  const uint64_t now = now_ns();

  // Clients first (fds[i + 1] is clients_[i]), from the back so that closing
  // one leaves the indexes of the others alone. Every client, not only those
  // with events: one held back by the bounds may go on, one may time out.
  for (size_t i = clients_.size(); i-- > 0;)
    if (!serve_client(clients_[i], fds[i + 1].revents, now)) close_client(i);
  if (fds[0].revents & POLLIN) accept_clients(now);
  queued_bytes_.store(out_total_, std::memory_order_relaxed);
}

}  // namespace rocelb
