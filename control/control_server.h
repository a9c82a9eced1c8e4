// The transport of the control socket (control/control-protocol.md): a Unix
// stream socket, peers checked with SO_PEERCRED, newline-delimited requests
// handed to a handler one at a time, replies written back in order. Single
// threaded: the owner calls poll() in its loop (rocelb-dp's main thread, never
// a forwarding lcore).
//
// Knobs (ControlServerOptions): path, group (the socket's group; members may
// connect), max_clients, client_timeout_ns (a request begun, or a reply not
// taken, for this long drops the client; an idle client stays).
// Rules: the socket file is created 0660 owned by the process's uid and the
// group; a stale socket file (nobody listening) is replaced, a live one or
// any other file is an error; the parent directory is created 0755 when
// missing. A peer that is not root, not the switch's uid and not in the
// group gets one error line and is closed before anything is read from it.
// Counters (stats()): accepted, refused_peer, refused_full, requests,
// bad_requests, timeouts.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "control/control_protocol.h"

namespace rocelb {

struct ControlServerOptions {
  std::string path;
  std::string group;  // empty: the process's group
  uint32_t max_clients = 16;
  uint64_t client_timeout_ns = 10'000'000'000;
};

struct ControlPeer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
};

struct ControlServerStats {
  uint64_t accepted = 0, refused_peer = 0, refused_full = 0, requests = 0, bad_requests = 0,
           timeouts = 0;
};

class ControlServer {
 public:
  // Gets every well-formed request and returns the whole reply line (use
  // reply_ok / reply_error). Exceptions it throws become error replies.
  using Handler = std::function<std::string(const ParsedRequest&, const ControlPeer&)>;

  // Creates and listens on the socket. Throws std::runtime_error naming the
  // path (or the group) and the reason.
  ControlServer(const ControlServerOptions& opt, Handler handler);
  ~ControlServer();  // closes every client, removes the socket file
  ControlServer(const ControlServer&) = delete;
  ControlServer& operator=(const ControlServer&) = delete;

  // Waits up to timeout_ms for activity, then serves what is ready: new
  // connections, requests, replies, timeouts.
  void poll(int timeout_ms);

  const std::string& path() const { return opt_.path; }
  size_t clients() const { return clients_.size(); }
  const ControlServerStats& stats() const { return stats_; }

 private:
  struct Client {
    int fd = -1;
    ControlPeer peer;
    std::string in;              // bytes of the request being received
    bool discarding = false;     // an oversize line: skipping to its newline
    std::string out;             // reply bytes not yet written
    bool eof = false;            // the peer is done sending: close once `out` is written
    uint64_t busy_since_ns = 0;  // when the pending request/reply began (0: idle)
  };

  void accept_clients();
  bool permitted(const ControlPeer& peer, int fd) const;
  bool read_client(Client& c);   // false: close it
  bool write_client(Client& c);  // false: close it
  void handle_lines(Client& c);
  void close_client(size_t i);

  ControlServerOptions opt_;
  Handler handler_;
  int listen_fd_ = -1;
  gid_t group_ = 0;
  ino_t inode_ = 0;  // of our socket file, so that we remove only ours
  std::vector<Client> clients_;
  ControlServerStats stats_;
};

}  // namespace rocelb
