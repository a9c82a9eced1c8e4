#include "dataplane/wire/pcap_file.h"

#include <cerrno>
#include <cstring>

#include "dataplane/wire/byte_order.h"

namespace rocelb {
namespace {

constexpr size_t kIoBuffer = 1 << 18;

}  // namespace

PcapReader::PcapReader(const std::string& path) : path_(path) {
  f_.reset(std::fopen(path.c_str(), "rb"));
  if (!f_) fail(std::string("cannot open: ") + std::strerror(errno));
  std::setvbuf(f_.get(), nullptr, _IOFBF, kIoBuffer);
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
  throw PcapError(path_ + ": " + what);
}

// Fields are little-endian in a file written by a little-endian host.
uint32_t PcapReader::get32(const uint8_t* p) const {
  return big_endian_ ? load_be32(p) : load_le32(p);
}

bool PcapReader::next(PcapRecord& rec) {
  uint8_t h[kPcapRecordHeaderLen];
  size_t got = std::fread(h, 1, sizeof h, f_.get());
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
  if (caplen > kPcapMaxSnaplen)
    fail("record at byte offset " + std::to_string(offset_) + " has caplen " +
         std::to_string(caplen) + " > " + std::to_string(kPcapMaxSnaplen));
  if (buf_.size() < caplen) buf_.resize(caplen);
  got = std::fread(buf_.data(), 1, caplen, f_.get());
  if (got != caplen) {
    if (std::ferror(f_.get())) fail(std::string("read error: ") + std::strerror(errno));
    fail("truncated record data at byte offset " + std::to_string(offset_ + sizeof h) +
         " (caplen " + std::to_string(caplen) + ", only " + std::to_string(got) + " bytes left)");
  }
  rec.ts_ns = uint64_t{sec} * 1000000000u + (nsec_ ? uint64_t{frac} : uint64_t{frac} * 1000u);
  rec.caplen = caplen;
  rec.origlen = origlen;
  rec.data = buf_.data();
  offset_ += sizeof h + caplen;
  return true;
}

PcapWriter::PcapWriter(const std::string& path) : path_(path) {
  f_.reset(std::fopen(path.c_str(), "wb"));
  if (!f_) fail(std::string("cannot create: ") + std::strerror(errno));
  std::setvbuf(f_.get(), nullptr, _IOFBF, kIoBuffer);
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
  throw PcapError(path_ + ": " + what);
}

void PcapWriter::write(uint64_t ts_ns, const uint8_t* data, uint32_t len, uint32_t origlen) {
  if (!f_) fail("write after close");
  if (len > kPcapMaxSnaplen)
    fail("record of " + std::to_string(len) + " bytes > snaplen " +
         std::to_string(kPcapMaxSnaplen));
  uint8_t h[kPcapRecordHeaderLen];
  store_le32(h, static_cast<uint32_t>(ts_ns / 1000000000u));
  store_le32(h + 4, static_cast<uint32_t>(ts_ns % 1000000000u));
  store_le32(h + 8, len);
  store_le32(h + 12, origlen ? origlen : len);
  if (std::fwrite(h, 1, sizeof h, f_.get()) != sizeof h ||
      std::fwrite(data, 1, len, f_.get()) != len)
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
