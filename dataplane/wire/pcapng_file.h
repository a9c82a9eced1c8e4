// Writes pcapng (one section, one Ethernet interface, nanosecond
// timestamps) whose packets may carry a comment (opt_comment): Wireshark
// and tshark show it next to the bytes (`frame.comment`). Used for
// `--pcapng` outputs, where each comment says what the switch did with the
// packet. Same contract as PcapWriter: PcapError names the file and what
// failed; close() reports errors the destructor would lose.
// Knobs: the interface name (if_name). Counters: none.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rocelb {

class PcapngWriter {
 public:
  // Creates/truncates `path` and writes the section and interface blocks.
  PcapngWriter(const std::string& path, const std::string& interface_name);
  PcapngWriter(const PcapngWriter&) = delete;
  PcapngWriter& operator=(const PcapngWriter&) = delete;

  // One Enhanced Packet Block; an empty comment adds no option.
  void write(uint64_t ts_ns, const uint8_t* data, uint32_t len, std::string_view comment = {});
  void close();
  const std::string& path() const { return path_; }

 private:
  [[noreturn]] void fail(const std::string& what) const;
  void put(const void* p, size_t n);
  struct Closer {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };

  std::string path_;
  std::unique_ptr<char[]> iobuf_;  // the stream's buffer: outlives f_
  std::unique_ptr<std::FILE, Closer> f_;
  std::vector<uint8_t> block_;  // one block, assembled before it is written
};

}  // namespace rocelb
