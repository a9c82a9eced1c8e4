#include "dataplane/run/dpdk_log_limiter.h"

#include <rte_log.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>

namespace rocelb {
namespace {

constexpr uint64_t kWindowNs = 10'000'000'000;
constexpr size_t kTracked = 64;

struct Seen {
  uint64_t key = 0;  // 0: free
  uint64_t since_ns = 0;
  uint64_t held = 0;
  char sample[96] = {};  // the line as first written, cut
};

// All of it is touched with the stream locked (stdio's own lock: the
// write callback runs under it, flush takes it).
struct Limiter {
  FILE* out = nullptr;
  FILE* stream = nullptr;
  std::string partial;  // a line not ended yet
  std::array<Seen, kTracked> seen{};
};

Limiter g_limiter;
std::atomic<uint64_t> g_held{0};

uint64_t now_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return uint64_t(ts.tv_sec) * 1'000'000'000 + uint64_t(ts.tv_nsec);
}

// FNV-1a of the line with every run of hex digits (and 0x) masked.
uint64_t key_of(const char* s, size_t n) {
  uint64_t h = 1469598103934665603ull;
  bool in_number = false;
  for (size_t i = 0; i < n; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const bool digit = std::isxdigit(c) || (c == 'x' && in_number);
    const bool number = std::isdigit(c) || (in_number && digit);
    if (number) {
      if (!in_number) h = (h ^ '#') * 1099511628211ull;
      in_number = true;
      continue;
    }
    in_number = false;
    h = (h ^ c) * 1099511628211ull;
  }
  return h ? h : 1;
}

void summary(const Seen& s, uint64_t now) {
  const uint64_t span = std::min(now - s.since_ns, kWindowNs);
  std::fprintf(g_limiter.out, "rocelb: %llu more in %.1f s of: %s\n",
               static_cast<unsigned long long>(s.held), double(span) / 1e9, s.sample);
}

void line(const char* s, size_t n) {
  const uint64_t key = key_of(s, n), now = now_ns();
  Seen* slot = nullptr;
  for (Seen& e : g_limiter.seen) {
    if (e.key == key) {
      slot = &e;
      break;
    }
    if (!slot && e.key == 0) slot = &e;
  }
  if (slot && slot->key == key && now - slot->since_ns < kWindowNs) {
    ++slot->held;
    g_held.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  if (slot && slot->key == key && slot->held) summary(*slot, now);
  std::fwrite(s, 1, n, g_limiter.out);
  if (slot) {
    *slot = Seen{key, now, 0, {}};
    const size_t keep = std::min(n, sizeof slot->sample - 1);
    std::memcpy(slot->sample, s, keep);
    if (keep && slot->sample[keep - 1] == '\n') slot->sample[keep - 1] = 0;
  }
  std::fflush(g_limiter.out);
}

ssize_t write_cb(void*, const char* buf, size_t size) {
  std::string& p = g_limiter.partial;
  size_t start = 0;
  for (size_t i = 0; i < size; ++i) {
    if (buf[i] != '\n') continue;
    if (p.empty()) {
      line(buf + start, i + 1 - start);
    } else {
      p.append(buf + start, i + 1 - start);
      line(p.data(), p.size());
      p.clear();
    }
    start = i + 1;
  }
  if (start < size) p.append(buf + start, size - start);
  if (p.size() > 4096) {  // no newline for that long: let it out
    line(p.data(), p.size());
    p.clear();
  }
  return static_cast<ssize_t>(size);
}

}  // namespace

void install_dpdk_log_limiter(FILE* out) {
  if (g_limiter.stream) return;
  g_limiter.out = out;
  cookie_io_functions_t io{};
  io.write = write_cb;
  FILE* f = fopencookie(nullptr, "w", io);
  if (!f) return;  // DPDK keeps its own stream
  setvbuf(f, nullptr, _IOLBF, 0);
  g_limiter.stream = f;
  rte_openlog_stream(f);
  // At exit, one thread is left: no lock (DPDK's cleanup may have let go of
  // its stream), the summaries straight to `out`.
  std::atexit([] {
    const uint64_t now = now_ns();
    for (Seen& e : g_limiter.seen)
      if (e.key != 0 && e.held) summary(e, now);
    std::fflush(g_limiter.out);
  });
}

void flush_dpdk_log_limiter(bool all) {
  FILE* f = g_limiter.stream;
  if (!f) return;
  flockfile(f);
  const uint64_t now = now_ns();
  for (Seen& e : g_limiter.seen) {
    if (e.key == 0 || (!all && now - e.since_ns < kWindowNs)) continue;
    if (e.held) summary(e, now);
    e = Seen{};
  }
  std::fflush(g_limiter.out);
  funlockfile(f);
}

uint64_t dpdk_log_lines_held_back() {
  return g_held.load(std::memory_order_relaxed);
}

}  // namespace rocelb
