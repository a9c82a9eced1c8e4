// Watches one file for changes with inotify, on the file's DIRECTORY: an
// editor or a config tool that writes a new file and renames it over the
// old one (vim, sed -i, Ansible, a Kubernetes-style atomic move) replaces the
// inode, and a watch on the file itself would stop seeing anything. Events
// that count: IN_CLOSE_WRITE (written in place), IN_MOVED_TO (renamed over),
// IN_CREATE (created) of that file name; others in the directory are ignored.
//
// Changes come in bursts (create, write, close; or several writes), so they
// are debounced: changed() turns true once no event for the file has arrived
// for `debounce` (100 ms by default) after the last one, and then false again
// until the next event.
//
// Use: poll() fd() for POLLIN, call on_readable() when it is readable, and
// wait at most timeout_ms() before asking changed().
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace rocelb {

class FileWatcher {
 public:
  using Clock = std::chrono::steady_clock;

  // Throws std::system_error when inotify cannot watch the directory.
  explicit FileWatcher(const std::string& path,
                       std::chrono::milliseconds debounce = std::chrono::milliseconds(100));
  ~FileWatcher();
  FileWatcher(const FileWatcher&) = delete;
  FileWatcher& operator=(const FileWatcher&) = delete;

  int fd() const { return fd_; }

  // Reads every pending event; an event for the file (re)arms the debounce.
  void on_readable(Clock::time_point now = Clock::now());

  // True once per burst, when the burst has been quiet for `debounce`.
  bool changed(Clock::time_point now = Clock::now());

  // Milliseconds until changed() may turn true; -1 when nothing is pending.
  int timeout_ms(Clock::time_point now = Clock::now()) const;

 private:
  int fd_ = -1;
  std::string dir_;
  std::string name_;
  std::chrono::milliseconds debounce_;
  std::optional<Clock::time_point> due_;
};

}  // namespace rocelb
