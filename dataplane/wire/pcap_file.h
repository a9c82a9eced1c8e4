// Classic pcap files (not pcapng), read and written in pure C++.
// PcapReader takes microsecond (magic 0xa1b2c3d4) and nanosecond
// (0xa1b23c4d) files written in either byte order and hands out records with
// nanosecond timestamps, reusing one buffer (no allocation per record once the
// largest record has been seen). It opens its file once and reads it front to
// back, so pipes, FIFOs and stdin ("-") work; peek() shows the next record
// without taking it. A record holds 1 to snaplen bytes (a header snaplen of 0
// sets no limit) and never more than 262144: anything else is a broken file
// (a run of zeros after the header would otherwise read as endless empty
// frames). Both read and write through a 1 MiB buffer of their own (a
// replay streams hundreds of MB). PcapWriter writes nanosecond pcap, linktype 1 (Ethernet), snaplen
// 262144, little-endian, so output bytes do not depend on the machine; it
// refuses a time past 2106 (32-bit seconds) rather than wrap it. Every error
// (unreadable file, pcapng or other non-pcap, truncated header or record, a
// record's length out of range, write failure) is thrown as PcapError with
// one line naming the file and, where it applies, the byte offset. Checking
// that linktype() is Ethernet is the caller's job.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace rocelb {

inline constexpr uint32_t kLinktypeEthernet = 1;
inline constexpr uint32_t kPcapMaxSnaplen = 262144;
inline constexpr uint32_t kPcapMagicUsec = 0xa1b2c3d4;
inline constexpr uint32_t kPcapMagicNsec = 0xa1b23c4d;
inline constexpr uint32_t kPcapngMagic = 0x0a0d0d0a;  // section header block type
inline constexpr uint32_t kPcapGlobalHeaderLen = 24;
inline constexpr uint32_t kPcapRecordHeaderLen = 16;

// what(): "<file>: <detail>". The parts apart, for callers that name the
// file their own way.
class PcapError : public std::runtime_error {
 public:
  PcapError(const std::string& file, const std::string& detail)
      : std::runtime_error(file + ": " + detail), file_(file), detail_(detail) {}
  const std::string& file() const { return file_; }
  const std::string& detail() const { return detail_; }

 private:
  std::string file_;
  std::string detail_;
};

struct PcapRecord {
  uint64_t ts_ns = 0;             // since the epoch
  uint32_t caplen = 0;            // bytes in data
  uint32_t origlen = 0;           // length on the wire (may exceed caplen)
  const uint8_t* data = nullptr;  // valid until the next call to next() or peek()
  uint64_t offset = 0;            // byte offset of the record's header in the file
};

class PcapReader {
 public:
  // Opens `path` ("-": stdin) and reads the global header.
  explicit PcapReader(const std::string& path);
  PcapReader(const PcapReader&) = delete;
  PcapReader& operator=(const PcapReader&) = delete;

  // The next record, or false at a clean end of file.
  bool next(PcapRecord& rec);
  // The record next() returns next, or nullptr at a clean end of file.
  const PcapRecord* peek();

  uint32_t linktype() const { return linktype_; }  // low 16 bits of the header's field
  uint32_t snaplen() const { return snaplen_; }
  bool nanosecond() const { return nsec_; }
  bool big_endian() const { return big_endian_; }  // header and record fields
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  uint32_t get32(const uint8_t* p) const;
  bool read_record(PcapRecord& rec);
  void check_caplen(uint32_t caplen) const;
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::string path_;
  std::unique_ptr<char[]> iobuf_;  // the stream's buffer: outlives f_
  std::unique_ptr<std::FILE, Closer> f_;
  bool nsec_ = false;
  bool big_endian_ = false;
  uint32_t linktype_ = 0;
  uint32_t snaplen_ = 0;
  uint64_t offset_ = 0;  // byte offset of the next record header
  std::vector<uint8_t> buf_;
  bool peeked_ = false;  // peek() read peeked_rec_ ahead (has_peeked_: not at the end)
  bool has_peeked_ = false;
  PcapRecord peeked_rec_;
};

class PcapWriter {
 public:
  explicit PcapWriter(const std::string& path);  // creates/truncates, writes the header
  // The destructor closes the file but loses errors: call close().
  PcapWriter(const PcapWriter&) = delete;
  PcapWriter& operator=(const PcapWriter&) = delete;

  // One record of len captured bytes; origlen 0 means len.
  void write(uint64_t ts_ns, const uint8_t* data, uint32_t len, uint32_t origlen = 0);
  void flush();
  void close();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::string path_;
  std::unique_ptr<char[]> iobuf_;  // the stream's buffer: outlives f_
  std::unique_ptr<std::FILE, Closer> f_;
};

}  // namespace rocelb
