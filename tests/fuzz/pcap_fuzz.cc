// libFuzzer target for PcapReader: the input is a whole pcap file. It is put
// in a memfd (no disk write per input) that the reader opens by its
// /proc/self/fd path, then read to the end or to the reader's PcapError; any
// other outcome (a crash, another exception, a sanitizer report) is a bug.
// Bits of the header's thiszone field, which the reader ignores, choose
// which records are peek()ed before next(). Every record is checked against
// the input bytes: its offset, lengths, timestamp and data.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/pcap_file.h"

namespace {

int memfd() {
  static const int fd = [] {
    const int f = memfd_create("pcap_fuzz", MFD_CLOEXEC);
    if (f < 0) std::abort();
    return f;
  }();
  return fd;
}

// A header or record field of the input, in the byte order the reader found.
uint32_t field(const rocelb::PcapReader& r, const uint8_t* p) {
  return r.big_endian() ? rocelb::load_be32(p) : rocelb::load_le32(p);
}

void check(const rocelb::PcapReader& r, const rocelb::PcapRecord& rec, const uint8_t* data,
           size_t size, uint64_t offset) {
  if (rec.offset != offset || !rec.data) std::abort();
  if (rec.caplen == 0 || rec.caplen > rocelb::kPcapMaxSnaplen) std::abort();
  if (r.snaplen() != 0 && rec.caplen > r.snaplen()) std::abort();
  if (offset + rocelb::kPcapRecordHeaderLen + rec.caplen > size) std::abort();
  const uint8_t* h = data + offset;
  const uint64_t frac = field(r, h + 4);
  const uint64_t ts = uint64_t{field(r, h)} * 1000000000u + (r.nanosecond() ? frac : frac * 1000u);
  if (rec.ts_ns != ts || rec.caplen != field(r, h + 8) || rec.origlen != field(r, h + 12))
    std::abort();
  if (std::memcmp(rec.data, h + rocelb::kPcapRecordHeaderLen, rec.caplen) != 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const int fd = memfd();
  if (ftruncate(fd, 0) != 0) std::abort();
  if (size && pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    rocelb::PcapReader r(path);
    if (size < rocelb::kPcapGlobalHeaderLen) std::abort();
    if (field(r, data) != (r.nanosecond() ? rocelb::kPcapMagicNsec : rocelb::kPcapMagicUsec))
      std::abort();
    if (r.snaplen() != field(r, data + 16) || r.linktype() != (field(r, data + 20) & 0xffff))
      std::abort();
    const uint32_t peek_mask = rocelb::load_le32(data + 8);
    uint64_t offset = rocelb::kPcapGlobalHeaderLen;
    for (unsigned i = 0;; ++i) {
      const bool peek_first = peek_mask >> (i % 32) & 1;
      const rocelb::PcapRecord* peeked = peek_first ? r.peek() : nullptr;
      const uint64_t peeked_offset = peeked ? peeked->offset : 0;
      if (peek_first && r.peek() != peeked) std::abort();  // a second peek takes nothing
      rocelb::PcapRecord rec;
      const bool got = r.next(rec);
      if (peek_first && got != (peeked != nullptr)) std::abort();
      if (!got) {
        if (offset != size) std::abort();  // a clean end is the end of the input
        break;
      }
      if (peeked && peeked_offset != rec.offset) std::abort();
      check(r, rec, data, size, offset);
      offset += rocelb::kPcapRecordHeaderLen + rec.caplen;
    }
  } catch (const rocelb::PcapError&) {
  }
  return 0;
}
