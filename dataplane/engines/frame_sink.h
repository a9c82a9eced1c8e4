// One capture output of a run in virtual time: a pcap file, or with
// `--pcapng` a pcapng file whose packets carry the switch's annotation
// (switch_recorder.h). Replay writes one per port, fabric one per
// --capture. Knobs: the format. Counters: none.
#pragma once

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
  void write(uint64_t ts_ns, const uint8_t* data, uint32_t len, const std::string& comment) {
    if (pcapng_)
      pcapng_->write(ts_ns, data, len, comment);
    else
      pcap_->write(ts_ns, data, len);
  }
  void close() {
    if (pcapng_) pcapng_->close();
    if (pcap_) pcap_->close();
  }

 private:
  std::unique_ptr<PcapWriter> pcap_;
  std::unique_ptr<PcapngWriter> pcapng_;
};

}  // namespace rocelb
