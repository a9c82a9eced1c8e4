// `rocelb-dp run` from a test, paced by what the switch says rather than by
// a timer: spawned as a child (so its exit code is ours to read), ready once
// it prints its "SIGINT or SIGTERM stops" line, read through rocelbctl while
// it runs, stopped by SIGTERM once the test has seen what it waits for.
// A slow or loaded machine makes a run longer, never a failed test.
#pragma once

#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "run_command.h"

extern char** environ;

namespace rocelb::test {

class LiveRun {
 public:
  // `args` follow `rocelb-dp run --set control.socket=DIR/sock` as a shell
  // would read them (EAL's after `--`); stdout and stderr go to `dir`/out and `dir`/err.
  LiveRun(const std::filesystem::path& dir, const std::string& args) : dir_(dir) {
    // An earlier run's files in `dir` would say "ready" for this one.
    std::error_code ec;
    for (const char* f : {"out", "err"}) std::filesystem::remove(dir / f, ec);
    const std::string cmd = "exec " + bin("dataplane/rocelb-dp") +
                            " run --set control.socket=" + sock().string() + args + " >" +
                            (dir / "out").string() + " 2>" + (dir / "err").string() + " </dev/null";
    const char* argv[] = {"/bin/sh", "-c", cmd.c_str(), nullptr};
    if (posix_spawn(&pid_, "/bin/sh", nullptr, nullptr, const_cast<char**>(argv), environ) != 0)
      pid_ = -1;
  }
  ~LiveRun() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  LiveRun(const LiveRun&) = delete;
  LiveRun& operator=(const LiveRun&) = delete;

  std::filesystem::path sock() const { return dir_ / "sock"; }
  pid_t pid() const { return pid_; }
  std::string out() const { return read_file(dir_ / "out"); }
  std::string err() const { return read_file(dir_ / "err"); }

  // Polls `done` every `poll_ms` until it holds (true), or the switch exits
  // or `limit_s` pass (false).
  bool wait_until(const std::function<bool()>& done, int limit_s = 120, int poll_ms = 50) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(limit_s);
    while (std::chrono::steady_clock::now() < end) {
      if (done()) return true;
      if (exited()) return done();
      std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
    }
    return false;
  }

  // Until the switch says it forwards (EAL, devices and socket are up).
  bool wait_ready(int limit_s = 120) {
    return wait_until([&] { return err().find("SIGINT or SIGTERM stops") != std::string::npos; },
                      limit_s);
  }

  // `show counters` as JSON, or null when the switch does not answer.
  nlohmann::json counters() const {
    const auto r = run_command(
        bin("tools/rocelbctl") + " --socket " + sock().string() + " show counters --json", dir_);
    if (r.exit_code != 0) return nullptr;
    return nlohmann::json::parse(r.out, nullptr, false);
  }

  // A port's figure from `show counters` (0 when it cannot be read).
  uint64_t port_counter(int port, const std::string& key) const {
    const auto j = counters();
    if (!j.is_object() || !j.contains("ports")) return 0;
    for (const auto& p : j["ports"])
      if (p.value("id", -1) == port && p.contains(key)) return p[key].get<uint64_t>();
    return 0;
  }
  // A figure of `show counters`' totals (0 when it cannot be read).
  uint64_t total_counter(const std::string& key) const {
    const auto j = counters();
    if (!j.is_object() || !j.contains("totals") || !j["totals"].contains(key)) return 0;
    return j["totals"][key].get<uint64_t>();
  }

  // Sends `sig` (SIGHUP: reload the config file).
  void signal(int sig) const {
    if (pid_ > 0 && !reaped_) ::kill(pid_, sig);
  }

  // User plus system CPU seconds of the whole run, once it has exited.
  double cpu_seconds() const { return cpu_s_; }

  // SIGTERM, then the exit (SIGKILL after `limit_s`): its code and output.
  CommandResult stop(int limit_s = 60) {
    CommandResult r;
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGTERM);
      wait_until([] { return false; }, limit_s);
      if (!reaped_) {
        ::kill(pid_, SIGKILL);
        reap(0);
      }
    }
    r.exit_code = code_;
    r.out = out();
    r.err = err();
    return r;
  }

 private:
  bool exited() { return reaped_ || reap(WNOHANG); }
  bool reap(int flags) {
    int status = 0;
    rusage ru{};
    if (::wait4(pid_, &status, flags, &ru) != pid_) return false;
    reaped_ = true;
    code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    cpu_s_ = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
             static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
    return true;
  }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  bool reaped_ = false;
  int code_ = -1;
  double cpu_s_ = 0;
};

}  // namespace rocelb::test
