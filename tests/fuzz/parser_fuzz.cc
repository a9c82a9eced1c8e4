// libFuzzer target for parse_frame(): the input is one frame, parsed whole
// (avail == frame_len) and again with only a prefix readable (avail <
// frame_len, the first byte choosing the cut). The input is copied to an
// exact-size heap buffer so AddressSanitizer reports any read past avail.
// Invariants checked: the returned result equals out.result, and every
// offset the parser reports on success lies inside the bytes it could read.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "dataplane/wire/parser.h"

namespace {

void check(const rocelb::ParsedPacket& p, rocelb::ParseResult r, uint32_t avail,
           uint32_t frame_len) {
  if (r != p.result) std::abort();
  if (static_cast<int>(r) >= rocelb::kNumParseResults) std::abort();
  if (r != rocelb::ParseResult::ok) return;
  if (avail >= 14 && p.l3_offset > avail) std::abort();
  if (p.ip_end > frame_len) std::abort();
  if (p.has_udp && p.l4_offset + 8u > avail) std::abort();
  if (p.has_bth && p.bth_offset + 12u > avail) std::abort();
  if (p.is_later_fragment && (p.has_udp || !p.is_fragment)) std::abort();
}

void run(const uint8_t* data, uint32_t avail, uint32_t frame_len) {
  std::unique_ptr<uint8_t[]> buf(new uint8_t[avail ? avail : 1]);
  if (avail) std::memcpy(buf.get(), data, avail);
  rocelb::ParsedPacket p;
  rocelb::ParseResult r = rocelb::parse_frame(buf.get(), avail, frame_len, p);
  check(p, r, avail, frame_len);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 70000) return 0;
  uint32_t n = static_cast<uint32_t>(size);
  run(data, n, n);
  if (n >= 2) {
    // First byte: where the first segment ends; the frame is the rest.
    const uint8_t* frame = data + 1;
    uint32_t len = n - 1;
    uint32_t avail = data[0] % len;
    run(frame, avail, len);
    // And a frame announced longer than what was captured.
    run(frame, len, len + data[0]);
  }
  return 0;
}
