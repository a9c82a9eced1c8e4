#include "control/bounded_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace rocelb {
namespace {

const char* kind_of(mode_t m) {
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string byte_limit_text(size_t bytes) {
  if (bytes >= (size_t{1} << 20) && bytes % (size_t{1} << 20) == 0)
    return std::to_string(bytes >> 20) + " MiB";
  if (bytes >= (size_t{1} << 10) && bytes % (size_t{1} << 10) == 0)
    return std::to_string(bytes >> 10) + " KiB";
  return std::to_string(bytes) + " B";
}

std::string read_bounded_file(const std::string& path, size_t limit, const std::string& what) {
  auto fail = [&](const std::string& why) {
    return BoundedFileError("cannot read " + what + " \"" + path + "\": " + why, why);
  };
  auto too_big = [&](const std::string& size) {
    return fail(size + ", over the limit of " + byte_limit_text(limit) + " for this file");
  };
  Fd f;
  // O_NONBLOCK: opening a FIFO with no writer would otherwise wait forever.
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (f.fd < 0) throw fail(std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) throw fail(std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    throw fail(std::string("not a regular file (") + kind_of(st.st_mode) + ")");
  if (static_cast<unsigned long long>(st.st_size) > limit)
    throw too_big(std::to_string(st.st_size) + " bytes");
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(f.fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw fail(std::strerror(errno));
    }
    if (n == 0) break;
    if (text.size() + size_t(n) > limit)
      throw too_big("more than " + std::to_string(limit) + " bytes");
    text.append(buf, size_t(n));
  }
  return text;
}

}  // namespace rocelb
