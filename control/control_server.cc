#include "control/control_server.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace rocelb {
namespace {

constexpr size_t kMaxPendingReplyBytes = 16u << 20;  // stop reading a client that does not read

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

}  // namespace

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

ControlServer::~ControlServer() {
  for (auto& c : clients_) ::close(c.fd);
  if (listen_fd_ >= 0) ::close(listen_fd_);
  struct stat st {};
  if (::lstat(opt_.path.c_str(), &st) == 0 && st.st_ino == inode_) ::unlink(opt_.path.c_str());
}

bool ControlServer::permitted(const ControlPeer& peer, int fd) const {
  if (peer.uid == 0 || peer.uid == geteuid() || peer.gid == group_) return true;
  // The peer's supplementary groups as they were when it connected.
  std::vector<gid_t> groups(256);
  socklen_t len = static_cast<socklen_t>(groups.size() * sizeof(gid_t));
  if (::getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups.data(), &len) == 0) {
    for (size_t i = 0; i < len / sizeof(gid_t); ++i)
      if (groups[i] == group_) return true;
  }
  return false;
}

void ControlServer::accept_clients() {
  for (;;) {
    const int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error: the next poll tries again
    ucred cred{};
    socklen_t len = sizeof(cred);
    ControlPeer peer;
    const bool known = ::getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0;
    if (known) peer = {cred.pid, cred.uid, cred.gid};
    std::string refusal;
    if (!known) {
      refusal = "permission denied: cannot read the peer's credentials";
    } else if (!permitted(peer, fd)) {
      ++stats_.refused_peer;
      refusal = "permission denied: uid " + std::to_string(peer.uid) +
                " is not root and not in the control socket's group (gid " +
                std::to_string(group_) + ")";
    } else if (clients_.size() >= opt_.max_clients) {
      ++stats_.refused_full;
      refusal =
          "too many clients (control.max_clients is " + std::to_string(opt_.max_clients) + ")";
    }
    if (!refusal.empty()) {
      const std::string line = reply_error(nullptr, refusal);
      [[maybe_unused]] ssize_t n =
          ::send(fd, line.data(), line.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      ::close(fd);
      continue;
    }
    ++stats_.accepted;
    Client c;
    c.fd = fd;
    c.peer = peer;
    clients_.push_back(std::move(c));
  }
}

void ControlServer::handle_lines(Client& c) {
  // c.in holds one whole line (without '\n').
  if (!c.in.empty() && c.in.back() == '\r') c.in.pop_back();
  if (c.in.empty()) return;
  ++stats_.requests;
  // Nothing a client sends may end the switch: whatever throws becomes an
  // error reply.
  nlohmann::json id;
  try {
    const ParsedRequest req = parse_request(c.in);
    id = req.id;
    if (!req.ok()) {
      ++stats_.bad_requests;
      c.out += reply_error(req.id, req.error);
      return;
    }
    c.out += handler_(req, c.peer);
  } catch (const std::exception& e) {
    c.out += reply_error(id, std::string("internal error: ") + e.what());
  }
}

bool ControlServer::read_client(Client& c) {
  char buf[65536];
  for (;;) {
    const ssize_t n = ::recv(c.fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n == 0) {  // half-closed: still answer what came before
      c.eof = true;
      return true;
    }
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    size_t pos = 0;
    const size_t end = static_cast<size_t>(n);
    while (pos < end) {
      const char* nl = static_cast<const char*>(std::memchr(buf + pos, '\n', end - pos));
      if (c.discarding) {
        if (!nl) break;
        c.discarding = false;
        pos = static_cast<size_t>(nl - buf) + 1;
        continue;
      }
      const size_t stop = nl ? static_cast<size_t>(nl - buf) : end;
      c.in.append(buf + pos, stop - pos);
      if (c.in.size() > kMaxRequestBytes + 1) {  // +1: a trailing '\r'
        ++stats_.requests;
        ++stats_.bad_requests;
        c.out += reply_error(nullptr, "request larger than " + std::to_string(kMaxRequestBytes) +
                                          " bytes: skipped to its end");
        c.in.clear();
        c.in.shrink_to_fit();
        c.discarding = !nl;
        pos = nl ? stop + 1 : end;
        continue;
      }
      if (!nl) break;
      handle_lines(c);
      c.in.clear();
      c.busy_since_ns = 0;  // progress: the timeout starts again
      pos = stop + 1;
    }
    if (c.out.size() > kMaxPendingReplyBytes) return true;  // let it read first
  }
}

bool ControlServer::write_client(Client& c) {
  while (!c.out.empty()) {
    const ssize_t n = ::send(c.fd, c.out.data(), c.out.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    c.out.erase(0, static_cast<size_t>(n));
  }
  return true;
}

void ControlServer::close_client(size_t i) {
  ::close(clients_[i].fd);
  clients_.erase(clients_.begin() + static_cast<std::ptrdiff_t>(i));
}

void ControlServer::poll(int timeout_ms) {
  uint64_t now = now_ns();
  // Wake up in time for the first stalled client's deadline.
  for (const auto& c : clients_)
    if (c.busy_since_ns) {
      const uint64_t deadline = c.busy_since_ns + opt_.client_timeout_ns;
      const int ms = deadline > now ? static_cast<int>((deadline - now) / 1'000'000 + 1) : 0;
      if (ms < timeout_ms) timeout_ms = ms;
    }
  std::vector<pollfd> fds;
  fds.reserve(clients_.size() + 1);
  fds.push_back({listen_fd_, POLLIN, 0});
  for (const auto& c : clients_) {
    short ev = 0;
    if (c.out.size() <= kMaxPendingReplyBytes && !c.eof) ev |= POLLIN;
    if (!c.out.empty()) ev |= POLLOUT;
    fds.push_back({c.fd, ev, 0});
  }
  if (::poll(fds.data(), fds.size(), timeout_ms) < 0) return;  // EINTR: a signal, look again
  now = now_ns();

  // Clients first (fds[i + 1] is clients_[i]), from the back so that closing
  // one leaves the indexes of the others alone.
  for (size_t i = clients_.size(); i-- > 0;) {
    Client& c = clients_[i];
    const short re = fds[i + 1].revents;
    bool keep = true;
    if ((re & (POLLIN | POLLHUP | POLLERR)) && !c.eof) keep = read_client(c);
    if (keep) keep = write_client(c);
    if (keep && c.eof && c.out.empty()) keep = false;
    if (keep && (re & (POLLHUP | POLLERR)) && c.eof) keep = false;
    if (keep) {
      const bool busy = !c.in.empty() || c.discarding || !c.out.empty();
      if (!busy) {
        c.busy_since_ns = 0;
      } else if (!c.busy_since_ns) {
        c.busy_since_ns = now;
      } else if (now - c.busy_since_ns >= opt_.client_timeout_ns) {
        ++stats_.timeouts;
        keep = false;
      }
    }
    if (!keep) close_client(i);
  }
  if (fds[0].revents & POLLIN) accept_clients();
}

}  // namespace rocelb
