#include "control/daemon/file_watcher.h"

#include <sys/inotify.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace rocelb {

namespace {
constexpr uint32_t kEvents = IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE;
}

FileWatcher::FileWatcher(const std::string& path, std::chrono::milliseconds debounce)
    : debounce_(debounce) {
  const std::filesystem::path p(path);
  name_ = p.filename().string();
  dir_ = p.has_parent_path() ? p.parent_path().string() : std::string(".");
  fd_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "inotify_init1");
  if (::inotify_add_watch(fd_, dir_.c_str(), kEvents | IN_ONLYDIR) < 0) {
    const int e = errno;
    ::close(fd_);
    fd_ = -1;
    throw std::system_error(e, std::generic_category(), "inotify watch on " + dir_);
  }
}

FileWatcher::~FileWatcher() {
  if (fd_ >= 0) ::close(fd_);
}

void FileWatcher::on_readable(Clock::time_point now) {
  alignas(inotify_event) char buf[8192];
  for (;;) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EAGAIN: drained
    for (ssize_t off = 0; off < n;) {
      const auto* ev = reinterpret_cast<const inotify_event*>(buf + off);
      off += static_cast<ssize_t>(sizeof(inotify_event) + ev->len);
      if (ev->mask & IN_Q_OVERFLOW) {
        due_ = now + debounce_;  // events were lost: assume ours was one
        continue;
      }
      if (ev->len == 0 || !(ev->mask & kEvents)) continue;
      if (name_ == ev->name) due_ = now + debounce_;
    }
  }
}

bool FileWatcher::changed(Clock::time_point now) {
  if (!due_ || now < *due_) return false;
  due_.reset();
  return true;
}

int FileWatcher::timeout_ms(Clock::time_point now) const {
  if (!due_) return -1;
  if (now >= *due_) return 0;
  // Round up, so a poll() that wakes at the timeout finds changed() true.
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(*due_ - now).count());
}

}  // namespace rocelb
