// The transport of the control socket (control/control-protocol.md): a Unix
// stream socket, peers checked with SO_PEERCRED, newline-delimited requests
// handed to a handler one at a time, replies written back in order. Single
// threaded: the owner calls poll() in its loop (rocelb-dp's control thread,
// never a forwarding lcore); no client can make poll() wait for it.
//
// Knobs (ControlServerOptions, from the config's control.* keys):
//   path, group      the socket and its group (members may connect)
//   max_clients      connections at once; the next one is refused
//   max_clients_per_uid  connections of one uid at once (0: max_clients - 1,
//                    at least 1), so one user's leak leaves a slot for others
//   client_timeout_ns  a request begun, or a reply not taken, for this long
//                    drops the client
//   idle_timeout_ns  a client with nothing pending (no request, no reply) for
//                    this long is closed: idle connections never pin slots
//   max_queued_bytes replies held for all clients together; while over it,
//                    no request is handled (they wait, none is lost)
// reconfigure() adopts new knobs while running (a `set control.*`): the
// group at once (the socket file is given to it), limits for the next
// connection (a lowered max_clients closes nobody; newcomers are refused
// until the count is under it), timeouts from then on (a client is closed
// at its old deadline or a whole new timeout after the change, whichever
// comes first). The path never changes.
// Bounds: a client's next request is handled only once its previous reply
// has been handed to the kernel, and its socket is read only when no whole
// request is waiting, so what the server holds per client is at most one
// reply plus one request line and one read (kReadChunk); a client that
// pipelines and never reads is stalled on its first unsent reply and dropped
// at client_timeout.
// Rules: the socket file is created 0660 owned by the process's uid and the
// group; a stale socket file (nobody listening) is replaced, a live one or
// any other file is an error; the parent directory is created 0755 when
// missing. A peer that is not root, not the switch's uid and not in the
// group (its primary or supplementary groups when it connected) gets one
// error line and is closed before anything is read from it.
// Every line the server sends before closing a connection on its own is a
// reply_closing() line saying why.
// Counters (stats()): accepted, refused_peer, refused_full (max_clients),
// refused_uid (max_clients_per_uid), refused_no_creds (SO_PEERCRED failed),
// requests, bad_requests, timeouts (client_timeout), idle_closed
// (idle_timeout); queued_bytes() and peak_queued_bytes(): unsent reply
// bytes held now and at most. Exported by dataplane/record/counters_prometheus.h
// as rocelb_control_*.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "control/control_protocol.h"

namespace rocelb {

struct ControlParams;

struct ControlServerOptions {
  std::string path;
  std::string group;  // empty: the process's group
  uint32_t max_clients = 16;
  uint64_t client_timeout_ns = 10'000'000'000;
  uint64_t idle_timeout_ns = 30'000'000'000;
  uint32_t max_clients_per_uid = 0;     // 0: max_clients - 1, at least 1
  size_t max_queued_bytes = 16u << 20;  // unsent replies of every client together
};

// The options the config's control section asks for.
ControlServerOptions control_server_options(const ControlParams& p);

// Who a client is, as the kernel recorded it when it connected (SO_PEERCRED
// and SO_PEERGROUPS): the same for every request on the connection, whatever
// becomes of the process that connected (it may hand the connection on and
// exit, and its pid go to another process).
struct ControlPeer {
  pid_t pid = 0;
  uid_t uid = 0;
  gid_t gid = 0;
  std::vector<gid_t> groups;  // supplementary groups; empty when unknown
};

struct ControlServerStats {
  uint64_t accepted = 0, refused_peer = 0, refused_full = 0, refused_uid = 0, refused_no_creds = 0,
           requests = 0, bad_requests = 0, timeouts = 0, idle_closed = 0;
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

  // Adopts `next` (see the top of this file); its path is ignored. Throws
  // std::runtime_error naming control.group when the group does not exist
  // or the socket cannot be given to it: then nothing changed. Call it from
  // the thread that polls (the handler does).
  void reconfigure(const ControlServerOptions& next);

  const std::string& path() const { return opt_.path; }
  const ControlServerOptions& options() const { return opt_; }
  // The per-uid limit in force (max_clients_per_uid, or its default).
  uint32_t per_uid_limit() const;
  size_t clients() const { return clients_.size(); }
  const ControlServerStats& stats() const { return stats_; }
  // Safe to read from any thread (tests and metrics watch them while poll runs).
  size_t queued_bytes() const { return queued_bytes_.load(std::memory_order_relaxed); }
  size_t peak_queued_bytes() const { return peak_queued_bytes_.load(std::memory_order_relaxed); }

 private:
  struct Client {
    int fd = -1;
    ControlPeer peer;
    std::string in;              // bytes received, not yet taken as requests (from in_pos)
    size_t in_pos = 0;           // where the unread part of `in` starts
    bool discarding = false;     // an oversize line: skipping to its newline
    std::string out;             // reply bytes not yet written
    bool eof = false;            // the peer is done sending: close once all is answered
    uint64_t busy_since_ns = 0;  // when the client began to hold us up (0: it does not)
    uint64_t active_ns = 0;      // last byte read or written (the idle clock)
  };
  enum class Wait { kIdle, kClient, kServer };  // who a client's next step waits for

  void accept_clients(uint64_t now);
  bool permitted(const ControlPeer& peer) const;
  // Why a new peer is turned away (counted), or "" when it is served.
  std::string refusal_for(const ControlPeer& peer, bool known);
  bool has_line(const Client& c) const;     // a whole request is buffered
  bool may_handle(const Client& c) const;   // the bounds let its next request be handled
  bool wants_input(const Client& c) const;  // its socket is to be read
  void queue_reply(Client& c, std::string line);
  bool read_client(Client& c, uint64_t now);  // false: close it
  // An oversize line: answered once its first 64 KiB are in, skipped to its end.
  void skip_oversize(Client& c);
  bool next_line(Client& c, std::string& line);  // takes the next whole request
  void handle_line(Client& c, std::string& line);
  bool write_client(Client& c, uint64_t now);  // false: close it
  // Handles its buffered requests while the bounds allow, writing each reply.
  bool serve(Client& c, uint64_t now);                        // false: close it
  bool serve_client(Client& c, short revents, uint64_t now);  // false: close it
  Wait waiting_for(const Client& c) const;
  // Whether it ran out of time (client_timeout or idle_timeout); says why to it.
  bool expired(Client& c, uint64_t now);
  int next_deadline_ms(uint64_t now, int timeout_ms) const;  // poll()'s wait
  void close_client(size_t i);

  ControlServerOptions opt_;
  Handler handler_;
  int listen_fd_ = -1;
  gid_t group_ = 0;
  ino_t inode_ = 0;  // of our socket file, so that we remove only ours
  std::vector<Client> clients_;
  ControlServerStats stats_;
  size_t out_total_ = 0;  // sum of clients_[i].out.size()
  std::atomic<size_t> queued_bytes_{0}, peak_queued_bytes_{0};
};

}  // namespace rocelb
