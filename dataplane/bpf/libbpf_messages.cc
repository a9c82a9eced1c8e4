#include "dataplane/bpf/libbpf_messages.h"

#include <bpf/libbpf.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace rocelb {
namespace {

std::string g_last;

int keep(enum libbpf_print_level level, const char* fmt, va_list args) {
  if (level == LIBBPF_DEBUG) return 0;
  char buf[512];
  const int n = vsnprintf(buf, sizeof buf, fmt, args);
  std::string line(buf, n > 0 ? std::min<size_t>(size_t(n), sizeof buf - 1) : 0);
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ')) line.pop_back();
  if (!line.empty()) g_last = line;
  return 0;
}

}  // namespace

void keep_libbpf_messages() {
  libbpf_set_print(keep);
  g_last.clear();
}

const std::string& last_libbpf_message() {
  return g_last;
}

}  // namespace rocelb
