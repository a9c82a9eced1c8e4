#include "dataplane/record/write_file.h"

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rocelb {

std::string write_error(const std::string& path, int err) {
  return "cannot write " + path + ": " + (err > 0 ? std::strerror(err) : "write error");
}

void write_whole_file(const std::string& path, std::string_view text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot create " + path + ": " + std::strerror(errno));
  errno = 0;
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  int err = written ? 0 : errno;
  if (std::fflush(f) != 0 && !err) err = errno ? errno : -1;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : -1;
  if (!written || err) throw std::runtime_error(write_error(path, err));
}

}  // namespace rocelb
