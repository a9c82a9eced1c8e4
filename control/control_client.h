// A client of the control socket (control_protocol.h): connects to the Unix
// socket, sends one request line, reads one reply line. Used by rocelbctl
// and rocelbd; blocking, with a timeout per call.
//
// Errors: connect() and request() throw ControlConnectError when the socket
// cannot be reached or the connection breaks (the message names the socket
// path and the reason, e.g. "/run/rocelb/rocelb.sock: No such file or
// directory"), and ControlRefusedError (a ControlConnectError) when the
// switch turns the connection away with a reason ("too many clients ...",
// "permission denied ...": its closing line, control_protocol.h). A reply
// with "ok":false to the request itself is not thrown: it comes back as a
// ControlReply with ok == false and its error.
// Kept connections: the switch closes a connection that stays idle for
// control.idle_timeout, with a closing line. request() notices that line and
// connects again, and when it arrives just as a request went out on a kept
// connection (the switch never read it), sends the request once more on a
// fresh one. A kept connection that ends without that line (the switch
// stopped or restarted) is an error, as before: callers such as rocelbd
// must hear of a switch that went away.
#pragma once

#include <chrono>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace rocelb {

inline constexpr const char* kDefaultControlSocket = "/run/rocelb/rocelb.sock";

class ControlConnectError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The switch closed the connection and said why; what() is "PATH: why".
class ControlRefusedError : public ControlConnectError {
 public:
  ControlRefusedError(const std::string& path, std::string reason)
      : ControlConnectError(path + ": " + reason), reason_(std::move(reason)) {}
  const std::string& reason() const { return reason_; }  // the switch's words

 private:
  std::string reason_;
};

struct ControlReply {
  bool ok = false;
  nlohmann::json result;  // when ok
  std::string error;      // when not ok
};

class ControlClient {
 public:
  explicit ControlClient(std::string socket_path,
                         std::chrono::milliseconds timeout = std::chrono::seconds(10));
  ~ControlClient();
  ControlClient(const ControlClient&) = delete;
  ControlClient& operator=(const ControlClient&) = delete;

  const std::string& socket_path() const { return path_; }
  bool connected() const { return fd_ >= 0; }

  // Connects (again) if not connected. Throws ControlConnectError.
  void connect();
  void close();

  // Sends `request` (an object; "id" is filled in) and waits for its reply.
  // Connects first if needed. Throws ControlConnectError when the socket is
  // unreachable, the peer closes, or no reply comes within the timeout (the
  // connection is closed then, so the next call reconnects), and
  // ControlRefusedError when the switch turns the connection away.
  ControlReply request(nlohmann::json request);

  // Shorthands.
  ControlReply show(const std::string& what) { return request({{"verb", "show"}, {"what", what}}); }
  ControlReply set(const std::string& key, const nlohmann::json& value) {
    return request({{"verb", "set"}, {"key", key}, {"value", value}});
  }
  ControlReply apply(const std::string& yaml_text) {
    return request({{"verb", "apply"}, {"config", yaml_text}});
  }
  ControlReply clear_counters() { return request({{"verb", "clear"}, {"what", "counters"}}); }

 private:
  using Deadline = std::chrono::steady_clock::time_point;

  [[noreturn]] void fail(const std::string& why);
  bool reuse_kept_connection();
  bool drain_for_closing_line();
  ControlReply exchange(const std::string& line, uint64_t id);
  bool send_line(const std::string& line, Deadline deadline);
  ControlReply read_reply(uint64_t id, Deadline deadline);
  bool take_reply_line(uint64_t id, ControlReply& out);
  void receive_more(Deadline deadline);

  std::string path_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  uint64_t next_id_ = 1;
  std::string buffer_;  // bytes received past the last reply line
};

}  // namespace rocelb
