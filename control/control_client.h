// A client of the control socket (control_protocol.h): connects to the Unix
// socket, sends one request line, reads one reply line. Used by rocelbctl
// and rocelbd; blocking, with a timeout per call.
//
// Errors: connect() and request() throw ControlConnectError when the socket
// cannot be reached or the connection breaks (the message names the socket
// path and the reason, e.g. "/run/rocelb/rocelb.sock: No such file or
// directory"), and never for a refusal by the switch: a reply with
// "ok":false comes back as a ControlReply with ok == false and its error.
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
  // connection is closed then, so the next call reconnects).
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
  [[noreturn]] void fail(const std::string& why);

  std::string path_;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  uint64_t next_id_ = 1;
  std::string buffer_;  // bytes received past the last reply line
};

}  // namespace rocelb
