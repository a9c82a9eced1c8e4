// A stand-in for `rocelb-dp run`'s control socket, for the daemon's unit
// tests only: a thread serving the Unix socket with the real protocol code
// (control_protocol.h). It answers `apply` (generation + 1, or a refusal
// when the text contains the refuse marker), `show config` and `show
// metrics` (one counter that grows with every scrape). stop() is a switch
// process dying (connections closed, socket removed); start() after it is a
// new process (generation back to 1, nothing applied).
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace rocelb::test {

class FakeSwitch {
 public:
  explicit FakeSwitch(std::string socket_path);
  ~FakeSwitch();

  void start();
  void stop();

  void refuse_when_containing(std::string marker);
  // The generation drops back to 1 with the connections kept: what a
  // daemon sees if a new switch process took over the socket unnoticed.
  void reset_generation();
  std::vector<std::string> applied() const;  // texts accepted since start()
  uint64_t generation() const;

 private:
  void serve();
  std::string answer(const std::string& line);

  std::string path_;
  int listen_fd_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::thread thread_;
  mutable std::mutex mu_;
  uint64_t generation_ = 1;
  uint64_t scrapes_ = 0;
  std::string marker_;
  std::vector<std::string> applied_;
};

}  // namespace rocelb::test
