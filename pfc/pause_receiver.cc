#include "pfc/pause_receiver.h"

#include <algorithm>

namespace rocelb {

uint64_t PauseReceiver::open_ns(const Prio& s, uint64_t now_ns) const {
  const uint64_t end = std::min(now_ns, s.until.load(kRelaxed));
  const uint64_t start = s.start.load(kRelaxed);
  return end > start ? end - start : 0;
}

void PauseReceiver::set_timer(int prio, uint16_t quanta, uint64_t now_ns, uint64_t speed_bps) {
  Prio& s = prio_[prio];
  if (!(ignored_.load(kRelaxed) & (1u << prio))) {
    // Close the honoured interval at min(now, until); a pause still running
    // continues from now without a gap.
    s.acc_ns.store(s.acc_ns.load(kRelaxed) + open_ns(s, now_ns), kRelaxed);
  }
  s.start.store(now_ns, kRelaxed);
  const uint64_t until = now_ns + pause_quanta_to_ns(quanta, speed_bps);
  s.until.store(until, kRelaxed);
  if (until > last_until_.load(kRelaxed)) last_until_.store(until, kRelaxed);
}

void PauseReceiver::on_pfc(uint8_t class_enable, const uint16_t quanta[kPfcPriorities],
                           uint64_t now_ns, uint64_t speed_bps) {
  for (int p = 0; p < kPfcPriorities; ++p) {
    if (!(class_enable & (1u << p))) continue;
    Prio& s = prio_[p];
    s.frames.store(s.frames.load(kRelaxed) + 1, kRelaxed);
    if (quanta[p] == 0) s.xon_frames.store(s.xon_frames.load(kRelaxed) + 1, kRelaxed);
    set_timer(p, quanta[p], now_ns, speed_bps);
  }
}

void PauseReceiver::on_pause(uint16_t quanta, uint64_t now_ns, uint64_t speed_bps) {
  for (int p = 0; p < kPfcPriorities; ++p) set_timer(p, quanta, now_ns, speed_bps);
}

uint8_t PauseReceiver::paused_mask(uint64_t now_ns) const {
  if (last_until_.load(kRelaxed) <= now_ns) return 0;
  uint8_t mask = 0;
  for (int p = 0; p < kPfcPriorities; ++p)
    if (prio_[p].until.load(kRelaxed) > now_ns) mask |= static_cast<uint8_t>(1u << p);
  return mask & static_cast<uint8_t>(~ignored_.load(kRelaxed));
}

uint64_t PauseReceiver::next_change_ns(uint64_t now_ns) const {
  if (last_until_.load(kRelaxed) <= now_ns) return UINT64_MAX;
  const uint8_t ignored = ignored_.load(kRelaxed);
  uint64_t next = UINT64_MAX;
  for (int p = 0; p < kPfcPriorities; ++p) {
    const uint64_t until = prio_[p].until.load(kRelaxed);
    if (!(ignored & (1u << p)) && until > now_ns) next = std::min(next, until);
  }
  return next;
}

void PauseReceiver::set_ignored(uint8_t mask, uint64_t now_ns) {
  const uint8_t old = ignored_.load(kRelaxed);
  for (int p = 0; p < kPfcPriorities; ++p) {
    const uint8_t bit = static_cast<uint8_t>(1u << p);
    Prio& s = prio_[p];
    if ((mask & bit) && !(old & bit)) {
      // Now ignored: the honoured pause ends here.
      s.acc_ns.store(s.acc_ns.load(kRelaxed) + open_ns(s, now_ns), kRelaxed);
      s.start.store(now_ns, kRelaxed);
    } else if (!(mask & bit) && (old & bit)) {
      // Honoured again: whatever remains of the peer's timer counts from now.
      s.start.store(now_ns, kRelaxed);
    }
  }
  ignored_.store(mask, kRelaxed);
}

uint64_t PauseReceiver::pause_ns(int prio, uint64_t now_ns) const {
  const Prio& s = prio_[prio];
  uint64_t ns = s.acc_ns.load(kRelaxed);
  if (!(ignored_.load(kRelaxed) & (1u << prio))) ns += open_ns(s, now_ns);
  return ns;
}

PfcRxCounters PauseReceiver::counters(int prio, uint64_t now_ns) const {
  PfcRxCounters c;
  c.pfc_rx_frames = prio_[prio].frames.load(kRelaxed);
  c.pfc_rx_xon_frames = prio_[prio].xon_frames.load(kRelaxed);
  c.pfc_rx_pause_us = pause_ns(prio, now_ns) / 1000;
  return c;
}

}  // namespace rocelb
