// One capture output of a run in virtual time: a pcap file, or with
// `--pcapng` a pcapng file whose packets carry the switch's annotation
// (switch_recorder.h). Replay writes one per port, fabric one per
// --capture. Knobs: the format. Counters: none (write() returns the bytes
// each record took, for --max-output).
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "dataplane/wire/pcap_file.h"
#include "dataplane/wire/pcapng_file.h"

namespace rocelb {

class FrameSink {
 public:
  static std::string file_name(const std::string& stem, bool pcapng) {
    return stem + (pcapng ? ".pcapng" : ".pcap");
  }
  void open(const std::string& path, bool pcapng, const std::string& interface_name) {
    if (pcapng)
      pcapng_ = std::make_unique<PcapngWriter>(path, interface_name);
    else
      pcap_ = std::make_unique<PcapWriter>(path);
  }
  bool is_open() const { return pcap_ || pcapng_; }
  bool pcapng() const { return pcapng_ != nullptr; }
  // Returns the bytes the record took in the file.
  uint64_t write(uint64_t ts_ns, const uint8_t* data, uint32_t len, const std::string& comment) {
    if (pcapng_)
      pcapng_->write(ts_ns, data, len, comment);
    else
      pcap_->write(ts_ns, data, len);
    return record_bytes(len, comment.size(), pcapng_ != nullptr);
  }
  // What one record of `len` bytes (with a comment of comment_len bytes,
  // pcapng only) takes: a pcap record header, or a pcapng Enhanced Packet
  // Block with its options, padded to 4 bytes.
  static uint64_t record_bytes(uint32_t len, size_t comment_len, bool pcapng) {
    if (!pcapng) return 16 + uint64_t{len};
    const auto pad4 = [](uint64_t n) { return (n + 3) / 4 * 4; };
    return 32 + pad4(len) + (comment_len ? 8 + pad4(std::min<size_t>(comment_len, 0xFFFB)) : 0);
  }
  // At most what a file's headers take (pcap: 24 bytes; pcapng: a section
  // and an interface block with the port's name).
  static constexpr uint64_t kMaxHeaderBytes = 512;
  void close() {
    if (pcapng_) pcapng_->close();
    if (pcap_) pcap_->close();
  }

 private:
  std::unique_ptr<PcapWriter> pcap_;
  std::unique_ptr<PcapngWriter> pcapng_;
};

}  // namespace rocelb
