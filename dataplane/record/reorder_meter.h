// Reordering as a RoCE NIC would see it, measured where frames leave the
// switch (replay, in departure order): per queue pair — source IP,
// destination IP, destination QP — a RoCE packet that leaves with a PSN
// lower than one already sent for that QP is out of order (24-bit PSN
// arithmetic: "lower" means up to 2^23 behind). A repeated PSN is a
// retransmission, not reordering. An RC QP's responses (READ responses,
// ACKs) are a PSN sequence apart from its requests. This is the price per-packet load
// balancing pays at the receiving NIC.
//
// Counters: qps (seen), reordered_packets, max_psn_gap (largest distance
// behind the highest PSN sent for its QP).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "dataplane/wire/parsed_packet.h"

namespace rocelb {

class ReorderMeter {
 public:
  // Observes one departing frame (anything that is not RoCE is ignored).
  void observe(const ParsedPacket& p);

  uint64_t qps() const { return highest_.size(); }
  uint64_t reordered_packets() const { return reordered_; }
  uint64_t max_psn_gap() const { return max_gap_; }
  uint64_t roce_packets() const { return packets_; }

 private:
  struct QpKey {
    std::array<uint8_t, 32> ips{};
    uint32_t qp = 0;
    bool operator==(const QpKey&) const = default;
  };
  struct QpKeyHash {
    size_t operator()(const QpKey& k) const;
  };
  std::unordered_map<QpKey, uint32_t, QpKeyHash> highest_;  // highest PSN sent per QP
  uint64_t reordered_ = 0;
  uint64_t max_gap_ = 0;
  uint64_t packets_ = 0;
};

}  // namespace rocelb
