#include "dataplane/wire/pcapng_file.h"

#include <cerrno>
#include <cstring>

#include "dataplane/wire/byte_order.h"
#include "dataplane/wire/pcap_file.h"

namespace rocelb {
namespace {

constexpr uint32_t kSectionHeader = 0x0A0D0D0A;
constexpr uint32_t kInterfaceDescription = 1;
constexpr uint32_t kEnhancedPacket = 6;
constexpr uint32_t kByteOrderMagic = 0x1A2B3C4D;
constexpr uint16_t kOptEnd = 0, kOptComment = 1, kOptIfName = 2, kOptIfTsresol = 9,
                   kOptShbUserAppl = 4;
constexpr size_t kIoBuffer = 1 << 20;

inline size_t pad4(size_t n) {
  return (n + 3) & ~size_t{3};
}

// Block assembly, little-endian (the byte-order magic says so).
void u16(std::vector<uint8_t>& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v));
  b.push_back(static_cast<uint8_t>(v >> 8));
}
void u32(std::vector<uint8_t>& b, uint32_t v) {
  u16(b, static_cast<uint16_t>(v));
  u16(b, static_cast<uint16_t>(v >> 16));
}
void bytes(std::vector<uint8_t>& b, const void* p, size_t n) {
  const auto* c = static_cast<const uint8_t*>(p);
  b.insert(b.end(), c, c + n);
  b.resize(pad4(b.size()), 0);
}
void option(std::vector<uint8_t>& b, uint16_t code, const void* p, size_t n) {
  u16(b, code);
  u16(b, static_cast<uint16_t>(n));
  bytes(b, p, n);
}
void begin(std::vector<uint8_t>& b, uint32_t type) {
  b.clear();
  u32(b, type);
  u32(b, 0);  // total length, filled by finish()
}
void finish(std::vector<uint8_t>& b) {
  const uint32_t total = static_cast<uint32_t>(b.size() + 4);
  store_le32(b.data() + 4, total);
  u32(b, total);
}

}  // namespace

PcapngWriter::PcapngWriter(const std::string& path, const std::string& interface_name)
    : path_(path) {
  f_.reset(std::fopen(path.c_str(), "wb"));
  if (!f_) fail(std::string("cannot create: ") + std::strerror(errno));
  iobuf_ = std::make_unique<char[]>(kIoBuffer);  // setvbuf ignores a size without a buffer
  std::setvbuf(f_.get(), iobuf_.get(), _IOFBF, kIoBuffer);
  begin(block_, kSectionHeader);
  u32(block_, kByteOrderMagic);
  u16(block_, 1);  // version 1.0
  u16(block_, 0);
  u32(block_, 0xFFFFFFFF);  // section length unknown (-1)
  u32(block_, 0xFFFFFFFF);
  const char app[] = "rocelb";
  option(block_, kOptShbUserAppl, app, sizeof app - 1);
  option(block_, kOptEnd, nullptr, 0);
  finish(block_);
  put(block_.data(), block_.size());

  begin(block_, kInterfaceDescription);
  u16(block_, static_cast<uint16_t>(kLinktypeEthernet));
  u16(block_, 0);
  u32(block_, kPcapMaxSnaplen);
  option(block_, kOptIfName, interface_name.data(), interface_name.size());
  const uint8_t tsresol = 9;  // 10^-9 s
  option(block_, kOptIfTsresol, &tsresol, 1);
  option(block_, kOptEnd, nullptr, 0);
  finish(block_);
  put(block_.data(), block_.size());
}

void PcapngWriter::fail(const std::string& what) const {
  throw PcapError(path_, what);
}

void PcapngWriter::put(const void* p, size_t n) {
  if (fwrite_unlocked(p, 1, n, f_.get()) != n)  // one thread per writer
    fail(std::string("write error: ") + std::strerror(errno));
}

void PcapngWriter::write(uint64_t ts_ns, const uint8_t* data, uint32_t len,
                         std::string_view comment) {
  if (!f_) fail("write after close");
  if (len > kPcapMaxSnaplen)
    fail("record of " + std::to_string(len) + " bytes > snaplen " +
         std::to_string(kPcapMaxSnaplen));
  if (comment.size() > 0xFFFF - 4) comment = comment.substr(0, 0xFFFF - 4);
  begin(block_, kEnhancedPacket);
  u32(block_, 0);  // interface 0
  u32(block_, static_cast<uint32_t>(ts_ns >> 32));
  u32(block_, static_cast<uint32_t>(ts_ns));
  u32(block_, len);
  u32(block_, len);
  bytes(block_, data, len);
  if (!comment.empty()) {
    option(block_, kOptComment, comment.data(), comment.size());
    option(block_, kOptEnd, nullptr, 0);
  }
  finish(block_);
  put(block_.data(), block_.size());
}

void PcapngWriter::close() {
  if (!f_) return;
  if (std::fclose(f_.release()) != 0)
    fail(std::string("write error on close: ") + std::strerror(errno));
}

}  // namespace rocelb
