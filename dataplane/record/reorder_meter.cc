#include "dataplane/record/reorder_meter.h"

#include <cstring>

namespace rocelb {

size_t ReorderMeter::QpKeyHash::operator()(const QpKey& k) const {
  // Four 64-bit words of addresses and the QP, multiply-xor mixed.
  uint64_t w[4];
  std::memcpy(w, k.ips.data(), sizeof w);
  uint64_t h = 0x9e3779b97f4a7c15ull ^ k.qp;
  for (uint64_t v : w) {
    const unsigned __int128 r = static_cast<unsigned __int128>(h ^ v) * 0xff51afd7ed558ccdull;
    h = static_cast<uint64_t>(r) ^ static_cast<uint64_t>(r >> 64);
  }
  return static_cast<size_t>(h);
}

void ReorderMeter::observe(const ParsedPacket& p) {
  if (!p.has_bth || p.is_cnp) return;  // CNPs carry no data PSN
  ++packets_;
  QpKey key;
  std::memcpy(key.ips.data(), p.src_ip, 16);
  std::memcpy(key.ips.data() + 16, p.dst_ip, 16);
  // An RC QP's responses (RDMA READ response, ACK, atomic ACK: opcodes
  // 0x0D..0x12) carry the requester's PSNs: a sequence of their own beside
  // the requests the same side sends on that QP.
  const uint8_t op = p.bth_opcode & 0x1f;
  const bool response = (p.bth_opcode >> 5) == 0 && op >= 0x0d && op <= 0x12;
  key.qp = p.bth_dest_qp | (response ? 1u << 24 : 0u);
  auto [it, fresh] = highest_.try_emplace(key, p.bth_psn);
  if (fresh) return;
  const uint32_t ahead = (p.bth_psn - it->second) & 0xffffff;
  if (ahead == 0) return;    // same PSN again: a retransmission
  if (ahead < (1u << 23)) {  // newer
    it->second = p.bth_psn;
    return;
  }
  const uint64_t gap = (it->second - p.bth_psn) & 0xffffff;
  ++reordered_;
  if (gap > max_gap_) max_gap_ = gap;
}

}  // namespace rocelb
