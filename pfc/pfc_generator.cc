#include "pfc/pfc_generator.h"

#include <algorithm>

#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

constexpr uint64_t kBitsPerNsDen = 8'000'000'000ull;  // bytes = bits/s × ns / 8e9

uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

PfcGenerator::PfcGenerator(const PfcParams& params, std::span<const uint64_t> port_speed_bps,
                           uint32_t max_frame_bytes)
    : max_frame_bytes_(max_frame_bytes),
      num_ports_(static_cast<uint16_t>(port_speed_bps.size())),
      ports_(std::make_unique<Port[]>(port_speed_bps.size())) {
  reconfigure(params, port_speed_bps);
}

void PfcGenerator::reconfigure(const PfcParams& params, std::span<const uint64_t> port_speed_bps) {
  params_ = params;
  for (size_t i = 0; i < port_speed_bps.size() && i < num_ports_; ++i) {
    ports_[i].headroom.store(params.headroom_bytes != 0
                                 ? params.headroom_bytes
                                 : headroom_for(port_speed_bps[i], params.cable_length_m,
                                                params.response_delay_ns, max_frame_bytes_),
                             kRelaxed);
  }
  live_.dynamic.store(params.dynamic, kRelaxed);
  live_.xoff.store(params.xoff_bytes, kRelaxed);
  live_.xon.store(params.xon_bytes, kRelaxed);
  live_.xon_offset.store(params.xon_offset_bytes, kRelaxed);
  live_.shared.store(params.shared_buffer_bytes, kRelaxed);
  live_.dynamic_th.store(params.dynamic_th, kRelaxed);
  live_.pause_quanta.store(params.pause_quanta, kRelaxed);
  lossless_.store(params.enable_mask, kRelaxed);
}

uint64_t PfcGenerator::total_held_bytes() const {
  const uint8_t mask = lossless_.load(kRelaxed);
  uint64_t total = 0;
  for (int p = 0; p < kPfcPriorities; ++p)
    if ((mask >> p) & 1) total += prio_held_[p].load(kRelaxed);
  return total;
}

uint64_t PfcGenerator::headroom_for(uint64_t speed_bps, uint32_t cable_length_m,
                                    uint64_t response_delay_ns, uint32_t max_frame_bytes) {
  const unsigned __int128 ns =
      static_cast<unsigned __int128>(2 * kCableNsPerMeter) * cable_length_m + response_delay_ns;
  const unsigned __int128 in_flight = (ns * speed_bps + kBitsPerNsDen - 1) / kBitsPerNsDen;
  const uint64_t frames =
      2 * (uint64_t{max_frame_bytes} + kWireOverheadBytes) + kPfcFrameWireBytes + max_frame_bytes;
  return add_sat(static_cast<uint64_t>(std::min<unsigned __int128>(in_flight, UINT64_MAX)), frames);
}

uint64_t PfcGenerator::xoff_for(uint64_t total) const {
  if (!live_.dynamic.load(kRelaxed)) return live_.xoff.load(kRelaxed);
  const uint64_t shared = live_.shared.load(kRelaxed);
  const uint64_t free = shared > total ? shared - total : 0;
  const int th = live_.dynamic_th.load(kRelaxed);
  if (th < 0) return free >> std::min(-th, 63);
  const int shift = std::min(th, 63);
  return free > (UINT64_MAX >> shift) ? UINT64_MAX : free << shift;
}

uint64_t PfcGenerator::xon_for(uint64_t xoff) const {
  const uint64_t xon = live_.xon.load(kRelaxed);
  if (!live_.dynamic.load(kRelaxed)) return xon;
  const uint64_t off = live_.xon_offset.load(kRelaxed);
  return std::max(xoff > off ? xoff - off : 0, xon);
}

Admit PfcGenerator::admit(uint16_t port, uint8_t prio, uint32_t bytes) {
  if (port >= num_ports_ || !lossless(prio)) return Admit::kNotLossless;
  Port& st = ports_[port];
  const uint64_t xoff = std::max(xoff_for(total_held_bytes()), st.xoff_latch[prio].load(kRelaxed));
  const uint64_t limit = add_sat(xoff, st.headroom.load(kRelaxed));
  const uint64_t held = st.held[prio].load(kRelaxed);
  if (held + bytes <= limit) return Admit::kAdmitted;
  st.lossless_dropped[prio].fetch_add(1, kRelaxed);
  return Admit::kDropped;
}

void PfcGenerator::end_xoff(Port& st, int prio, uint64_t now_ns) {
  const uint64_t since = st.xoff_since[prio].load(kRelaxed);
  st.xoff_acc_ns[prio].store(
      st.xoff_acc_ns[prio].load(kRelaxed) + (now_ns > since ? now_ns - since : 0), kRelaxed);
  st.xoff_latch[prio].store(0, kRelaxed);
  st.refresh_at[prio].store(UINT64_MAX, kRelaxed);
}

bool PfcGenerator::poll(uint16_t port, uint64_t now_ns, uint64_t speed_bps, PfcFrameRequest& out) {
  if (port >= num_ports_) return false;
  Port& st = ports_[port];
  const uint8_t suppressed = st.suppressed.load(kRelaxed);
  uint8_t asserted = st.asserted.load(kRelaxed);
  const uint64_t xoff = xoff_for(total_held_bytes());
  const uint64_t xon = xon_for(xoff);
  const uint16_t quanta = live_.pause_quanta.load(kRelaxed);
  const uint8_t lossless = lossless_.load(kRelaxed);
  const uint64_t pause_ns = pause_quanta_to_ns(quanta, speed_bps);
  // Refresh at half the pause the peer honours; with no pause time (speed
  // unknown) there is nothing to refresh.
  const uint64_t refresh_in = pause_ns / 2;

  uint8_t enable = 0;
  uint8_t xon_sent = 0;
  PfcFrameRequest req;
  for (int p = 0; p < kPfcPriorities; ++p) {
    const uint8_t bit = static_cast<uint8_t>(1u << p);
    if (!(lossless & bit)) {
      if (asserted & bit) {  // made lossy while asserted: release the peer now
        enable |= bit;
        xon_sent |= bit;
        req.quanta[p] = 0;
        asserted &= static_cast<uint8_t>(~bit);
        end_xoff(st, p, now_ns);
      }
      continue;
    }
    if (suppressed & bit) {
      if (asserted & bit) {  // stop asserting, silently
        end_xoff(st, p, now_ns);
        asserted &= static_cast<uint8_t>(~bit);
      }
      continue;
    }
    const uint64_t held = st.held[p].load(kRelaxed);
    if (!(asserted & bit)) {
      if (held > xoff && quanta != 0) {
        enable |= bit;
        req.quanta[p] = quanta;
        asserted |= bit;
        st.xoff_since[p].store(now_ns, kRelaxed);
        st.xoff_latch[p].store(xoff, kRelaxed);
        st.refresh_at[p].store(refresh_in ? add_sat(now_ns, refresh_in) : UINT64_MAX, kRelaxed);
      }
    } else if (held < xon || held == 0) {
      enable |= bit;
      xon_sent |= bit;
      req.quanta[p] = 0;
      asserted &= static_cast<uint8_t>(~bit);
      end_xoff(st, p, now_ns);
    } else if (now_ns >= st.refresh_at[p].load(kRelaxed)) {
      enable |= bit;
      req.quanta[p] = quanta;
      st.refresh_at[p].store(refresh_in ? add_sat(now_ns, refresh_in) : UINT64_MAX, kRelaxed);
    }
  }
  st.asserted.store(asserted, kRelaxed);
  if (!enable) return false;
  for (int p = 0; p < kPfcPriorities; ++p) {
    if (!(enable & (1u << p))) continue;
    st.tx_frames[p].store(st.tx_frames[p].load(kRelaxed) + 1, kRelaxed);
    if (xon_sent & (1u << p)) st.tx_xon[p].store(st.tx_xon[p].load(kRelaxed) + 1, kRelaxed);
  }
  req.class_enable = enable;
  out = req;
  return true;
}

uint64_t PfcGenerator::next_poll_ns(uint16_t port, uint64_t now_ns) const {
  if (port >= num_ports_) return UINT64_MAX;
  const Port& st = ports_[port];
  const uint8_t asserted = st.asserted.load(kRelaxed);
  const uint8_t suppressed = st.suppressed.load(kRelaxed);
  // An XOFF asserted for a priority made lossy: its XON is due now.
  if (asserted & ~lossless_.load(kRelaxed)) return now_ns;
  uint64_t next = UINT64_MAX;
  for (int p = 0; p < kPfcPriorities; ++p) {
    if (!(asserted & (1u << p))) continue;
    // A suppressed XOFF still to be dropped: poll now (no frame goes out).
    if (suppressed & (1u << p)) return now_ns;
    next = std::min(next, std::max(now_ns, st.refresh_at[p].load(kRelaxed)));
  }
  return next;
}

uint64_t PfcGenerator::xoff_asserted_ns(uint16_t port, uint8_t prio, uint64_t now_ns) const {
  const Port& st = ports_[port];
  uint64_t ns = st.xoff_acc_ns[prio].load(kRelaxed);
  if (st.asserted.load(kRelaxed) & (1u << prio)) {
    const uint64_t since = st.xoff_since[prio].load(kRelaxed);
    if (now_ns > since) ns += now_ns - since;
  }
  return ns;
}

PfcTxCounters PfcGenerator::counters(uint16_t port, uint8_t prio, uint64_t now_ns) const {
  const Port& st = ports_[port];
  PfcTxCounters c;
  c.pfc_tx_frames = st.tx_frames[prio].load(kRelaxed);
  c.pfc_tx_xon_frames = st.tx_xon[prio].load(kRelaxed);
  c.xoff_asserted_us = xoff_asserted_ns(port, prio, now_ns) / 1000;
  c.lossless_dropped = st.lossless_dropped[prio].load(kRelaxed);
  return c;
}

}  // namespace rocelb
