#include "dataplane/wire/pcap_file.h"

#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "dataplane/wire/byte_order.h"

namespace rocelb {
namespace {

// glibc ignores setvbuf's size without a buffer (it keeps st_blksize, 4 KiB:
// a system call per 4 KiB), hence a buffer of our own.
constexpr size_t kIoBuffer = 1 << 20;
constexpr uint64_t kNsPerSec = 1000000000u;

// "-" is stdin, by convention. A duplicate of fd 0, so that closing the
// reader leaves the process's stdin alone.
std::FILE* open_input(const std::string& path) {
  if (path != "-") return std::fopen(path.c_str(), "rb");
  const int fd = dup(STDIN_FILENO);
  if (fd < 0) return nullptr;
  std::FILE* f = fdopen(fd, "rb");
  if (!f) close(fd);
  return f;
}

}  // namespace

PcapReader::PcapReader(const std::string& path) : path_(path) {
  f_.reset(open_input(path));
  if (!f_) fail(std::string("cannot open: ") + std::strerror(errno));
  iobuf_ = std::make_unique<char[]>(kIoBuffer);
  std::setvbuf(f_.get(), iobuf_.get(), _IOFBF, kIoBuffer);
  uint8_t h[kPcapGlobalHeaderLen];
  size_t got = std::fread(h, 1, sizeof h, f_.get());
  if (std::ferror(f_.get())) fail(std::string("read error: ") + std::strerror(errno));
  if (got >= 4) {
    uint32_t le = load_le32(h);
    uint32_t be = load_be32(h);
    if (le == kPcapngMagic) fail("is pcapng, not pcap: convert with editcap -F pcap");
    if (le == kPcapMagicUsec || le == kPcapMagicNsec) {
      nsec_ = le == kPcapMagicNsec;
      big_endian_ = false;
    } else if (be == kPcapMagicUsec || be == kPcapMagicNsec) {
      nsec_ = be == kPcapMagicNsec;
      big_endian_ = true;
    } else {
      char m[16];
      std::snprintf(m, sizeof m, "0x%08x", be);
      fail(std::string("not a pcap file (magic ") + m + ")");
    }
  }
  if (got < sizeof h)
    fail("truncated pcap global header (" + std::to_string(got) + " of 24 bytes)");
  snaplen_ = get32(h + 16);
  linktype_ = get32(h + 20) & 0xffff;
  offset_ = kPcapGlobalHeaderLen;
}

void PcapReader::fail(const std::string& what) const {
  throw PcapError(path_, what);
}

// Fields are little-endian in a file written by a little-endian host.
uint32_t PcapReader::get32(const uint8_t* p) const {
  return big_endian_ ? load_be32(p) : load_le32(p);
}

bool PcapReader::next(PcapRecord& rec) {
  if (!peeked_) return read_record(rec);
  peeked_ = false;
  if (has_peeked_) rec = peeked_rec_;
  return has_peeked_;
}

const PcapRecord* PcapReader::peek() {
  if (!peeked_) {
    has_peeked_ = read_record(peeked_rec_);
    peeked_ = true;
  }
  return has_peeked_ ? &peeked_rec_ : nullptr;
}

// A record holds at least one byte, no more than the file's snaplen (when it
// gives one) and never more than any pcap of Ethernet does. Called for every
// record: the message is built only for a bad one.
void PcapReader::check_caplen(uint32_t caplen) const {
  const bool above_snaplen = snaplen_ != 0 && caplen > snaplen_;
  if (caplen != 0 && caplen <= kPcapMaxSnaplen && !above_snaplen) return;
  const std::string at = "record at byte offset " + std::to_string(offset_) + " has caplen ";
  if (caplen == 0) fail(at + "0: a record holds at least one byte");
  if (caplen > kPcapMaxSnaplen)
    fail(at + std::to_string(caplen) + " > " + std::to_string(kPcapMaxSnaplen));
  fail(at + std::to_string(caplen) + " > the file's snaplen " + std::to_string(snaplen_));
}

bool PcapReader::read_record(PcapRecord& rec) {
  uint8_t h[kPcapRecordHeaderLen];
  size_t got = fread_unlocked(h, 1, sizeof h, f_.get());  // one thread per reader
  if (got != sizeof h) {
    if (std::ferror(f_.get())) fail(std::string("read error: ") + std::strerror(errno));
    if (got == 0) return false;
    fail("truncated record header at byte offset " + std::to_string(offset_) + " (" +
         std::to_string(got) + " of 16 bytes)");
  }
  uint32_t sec = get32(h);
  uint32_t frac = get32(h + 4);
  uint32_t caplen = get32(h + 8);
  uint32_t origlen = get32(h + 12);
  check_caplen(caplen);
  if (buf_.size() < caplen) buf_.resize(caplen);
  got = fread_unlocked(buf_.data(), 1, caplen, f_.get());
  if (got != caplen) {
    if (std::ferror(f_.get())) fail(std::string("read error: ") + std::strerror(errno));
    fail("truncated record data at byte offset " + std::to_string(offset_ + sizeof h) +
         " (caplen " + std::to_string(caplen) + ", only " + std::to_string(got) + " bytes left)");
  }
  rec.ts_ns = uint64_t{sec} * kNsPerSec + (nsec_ ? uint64_t{frac} : uint64_t{frac} * 1000u);
  rec.caplen = caplen;
  rec.origlen = origlen;
  rec.data = buf_.data();
  rec.offset = offset_;
  offset_ += sizeof h + caplen;
  return true;
}

PcapWriter::PcapWriter(const std::string& path) : path_(path) {
  f_.reset(std::fopen(path.c_str(), "wb"));
  if (!f_) fail(std::string("cannot create: ") + std::strerror(errno));
  iobuf_ = std::make_unique<char[]>(kIoBuffer);
  std::setvbuf(f_.get(), iobuf_.get(), _IOFBF, kIoBuffer);
  uint8_t h[kPcapGlobalHeaderLen] = {};
  store_le32(h, kPcapMagicNsec);
  store_le16(h + 4, 2);  // version 2.4
  store_le16(h + 6, 4);
  store_le32(h + 16, kPcapMaxSnaplen);
  store_le32(h + 20, kLinktypeEthernet);
  if (std::fwrite(h, 1, sizeof h, f_.get()) != sizeof h)
    fail(std::string("write error: ") + std::strerror(errno));
}

void PcapWriter::fail(const std::string& what) const {
  throw PcapError(path_, what);
}

void PcapWriter::write(uint64_t ts_ns, const uint8_t* data, uint32_t len, uint32_t origlen) {
  if (!f_) fail("write after close");
  if (len > kPcapMaxSnaplen)
    fail("record of " + std::to_string(len) + " bytes > snaplen " +
         std::to_string(kPcapMaxSnaplen));
  // Seconds are 32 bits in the record header: a later time would wrap to 1970.
  if (ts_ns / kNsPerSec > UINT32_MAX) {
    char t[48];
    std::snprintf(t, sizeof t, "%" PRIu64 ".%09" PRIu64, ts_ns / kNsPerSec, ts_ns % kNsPerSec);
    fail(std::string("time ") + t + " s is past what pcap holds (" + std::to_string(UINT32_MAX) +
         " s)");
  }
  uint8_t h[kPcapRecordHeaderLen];
  store_le32(h, static_cast<uint32_t>(ts_ns / kNsPerSec));
  store_le32(h + 4, static_cast<uint32_t>(ts_ns % kNsPerSec));
  store_le32(h + 8, len);
  store_le32(h + 12, origlen ? origlen : len);
  if (fwrite_unlocked(h, 1, sizeof h, f_.get()) != sizeof h ||  // one thread per writer
      fwrite_unlocked(data, 1, len, f_.get()) != len)
    fail(std::string("write error: ") + std::strerror(errno));
}

void PcapWriter::flush() {
  if (f_ && std::fflush(f_.get()) != 0) fail(std::string("write error: ") + std::strerror(errno));
}

void PcapWriter::close() {
  if (!f_) return;
  if (std::fclose(f_.release()) != 0)
    fail(std::string("write error on close: ") + std::strerror(errno));
}

}  // namespace rocelb
