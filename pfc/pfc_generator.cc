#include "pfc/pfc_generator.h"

#include <algorithm>

namespace rocelb {
namespace {

uint64_t add_sat(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

}  // namespace

PfcGenerator::PfcGenerator(uint16_t num_ports)
    : num_ports_(num_ports),
      ports_(std::make_unique<Port[]>(num_ports)),
      all_(PortSet::first(num_ports)) {}

uint8_t PfcGenerator::suppressed_mask() const {
  static_assert(kMaxPorts < 65536, "storm counts are 16 bits per priority");
  static_assert(kPfcPriorities == 8, "two words of four counts");
  const uint64_t s[2] = {storms_[0].load(kRelaxed), storms_[1].load(kRelaxed)};
  if ((s[0] | s[1]) == 0) return 0;
  uint8_t m = 0;
  for (int p = 0; p < kPfcPriorities; ++p)
    if ((s[p >> 2] >> (16 * (p & 3))) & 0xffff) m |= static_cast<uint8_t>(1u << p);
  return m;
}

uint64_t PfcGenerator::total_held_bytes(const PfcConfig& cfg) const {
  uint64_t total = 0;
  for (uint32_t m = cfg.enable_mask; m != 0; m &= m - 1)
    total += prio_held_[__builtin_ctz(m)].load(kRelaxed);
  return total;
}

uint64_t PfcGenerator::xoff_for(const PfcConfig& cfg, uint64_t total) {
  if (!cfg.dynamic) return cfg.xoff_bytes;
  const uint64_t free = cfg.shared_buffer_bytes > total ? cfg.shared_buffer_bytes - total : 0;
  const int th = cfg.dynamic_th;
  if (th < 0) return free >> std::min(-th, 63);
  const int shift = std::min(th, 63);
  return free > (UINT64_MAX >> shift) ? UINT64_MAX : free << shift;
}

uint64_t PfcGenerator::xon_for(const PfcConfig& cfg, uint64_t xoff) {
  if (!cfg.dynamic) return cfg.xon_bytes;
  const uint64_t off = cfg.xon_offset_bytes;
  return std::max(xoff > off ? xoff - off : 0, cfg.xon_bytes);
}

uint64_t PfcGenerator::admit_limit(const PfcConfig& cfg, uint16_t port, uint8_t prio,
                                   uint64_t total) const {
  if (port >= num_ports_ || !cfg.lossless(prio)) return UINT64_MAX;
  const Port& st = ports_[port];
  const uint64_t xoff = std::max(xoff_for(cfg, total), st.xoff_latch[prio].load(kRelaxed));
  return add_sat(xoff, cfg.headroom_bytes[port]);
}

void PfcGenerator::end_xoff(Port& st, int prio, uint64_t now_ns) {
  const uint64_t since = st.xoff_since[prio].load(kRelaxed);
  st.xoff_acc_ns[prio].store(
      st.xoff_acc_ns[prio].load(kRelaxed) + (now_ns > since ? now_ns - since : 0), kRelaxed);
  st.xoff_latch[prio].store(0, kRelaxed);
  st.refresh_at[prio].store(UINT64_MAX, kRelaxed);
}

bool PfcGenerator::poll(const PfcConfig& cfg, uint16_t port, uint64_t now_ns,
                        PfcFrameRequest& out) {
  if (port >= num_ports_) return false;
  if (cfg.refresh_on_arrival != count_arrivals_.load(kRelaxed))
    count_arrivals_.store(cfg.refresh_on_arrival, kRelaxed);
  Port& st = ports_[port];
  uint8_t asserted = st.asserted.load(kRelaxed);
  const uint8_t was_asserted = asserted;
  const uint8_t lossless = cfg.enable_mask;
  // Nothing asserted and nothing lossless: no frame can be due.
  if (asserted == 0 && lossless == 0) return false;
  // The common case, once per port and loop: nothing asserted, static
  // thresholds, every lossless PG at or under XOFF.
  if (asserted == 0 && !cfg.dynamic) {
    bool over = false;
    for (uint32_t todo = lossless; todo != 0; todo &= todo - 1)
      over |= st.held[__builtin_ctz(todo)].load(kRelaxed) > cfg.xoff_bytes;
    if (!over) return false;
  }
  const uint8_t suppressed = suppressed_mask();
  const uint64_t xoff = xoff_for(cfg, total_held_bytes(cfg));
  const uint64_t xon = xon_for(cfg, xoff);
  const uint16_t quanta = cfg.pause_quanta;
  const uint64_t refresh_in = cfg.refresh_ns[port];

  uint8_t enable = 0;
  uint8_t xon_sent = 0;
  PfcFrameRequest req;
  // Only lossless priorities and those still asserted can need a frame.
  for (uint32_t todo = lossless | asserted; todo != 0; todo &= todo - 1) {
    const int p = __builtin_ctz(todo);
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
    const bool over = held > xoff && quanta != 0;
    // on_arrival: a pause lapses at its time, and is sent again only for a
    // packet that arrived (after a lapse, too); else a timer refreshes it.
    bool arrived = false;
    uint8_t lapsed = 0;
    uint64_t next_refresh = refresh_in ? add_sat(now_ns, refresh_in) : UINT64_MAX;
    if (cfg.refresh_on_arrival) {
      const uint64_t n = st.arrived[p].load(kRelaxed);
      arrived = n != st.arrived_seen[p].load(kRelaxed);
      st.arrived_seen[p].store(n, kRelaxed);
      next_refresh = add_sat(now_ns, cfg.pause_ns[port]);
      lapsed = st.lapsed.load(kRelaxed);
      if ((asserted & bit) && now_ns >= st.refresh_at[p].load(kRelaxed)) {
        asserted &= static_cast<uint8_t>(~bit);  // the peer resumes on its own
        // The threshold it paused at stays the PG's admission limit while it
        // holds more than XOFF: what arrives after the lapse still has the
        // headroom the pause reserved.
        const uint64_t latch = st.xoff_latch[p].load(kRelaxed);
        end_xoff(st, p, now_ns);
        st.xoff_latch[p].store(latch, kRelaxed);
        lapsed |= bit;
      }
      if (held <= xoff && (lapsed & bit)) {
        lapsed &= static_cast<uint8_t>(~bit);
        st.xoff_latch[p].store(0, kRelaxed);
      }
    }
    if (!(asserted & bit)) {
      if (over && (!(lapsed & bit) || arrived)) {
        enable |= bit;
        req.quanta[p] = quanta;
        asserted |= bit;
        lapsed &= static_cast<uint8_t>(~bit);
        st.xoff_since[p].store(now_ns, kRelaxed);
        st.xoff_latch[p].store(xoff, kRelaxed);
        st.refresh_at[p].store(next_refresh, kRelaxed);
      }
    } else if (held < xon || held == 0) {
      enable |= bit;
      xon_sent |= bit;
      req.quanta[p] = 0;
      asserted &= static_cast<uint8_t>(~bit);
      end_xoff(st, p, now_ns);
    } else if (cfg.refresh_on_arrival ? over && arrived
                                      : now_ns >= st.refresh_at[p].load(kRelaxed)) {
      enable |= bit;
      req.quanta[p] = quanta;
      st.refresh_at[p].store(next_refresh, kRelaxed);
    }
    if (cfg.refresh_on_arrival) st.lapsed.store(lapsed, kRelaxed);
  }
  st.asserted.store(asserted, kRelaxed);
  if ((was_asserted == 0) != (asserted == 0)) {
    asserting_ports_.set(port, asserted != 0);
    if (asserted)
      asserting_count_.fetch_add(1, kRelaxed);
    else
      asserting_count_.fetch_sub(1, kRelaxed);
  }
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

uint64_t PfcGenerator::next_poll_ns(const PfcConfig& cfg, uint16_t port, uint64_t now_ns) const {
  if (port >= num_ports_) return UINT64_MAX;
  const Port& st = ports_[port];
  const uint8_t asserted = st.asserted.load(kRelaxed);
  if (asserted == 0) return UINT64_MAX;
  // An XOFF asserted for a priority made lossy: its XON is due now.
  if (asserted & ~cfg.enable_mask) return now_ns;
  const uint8_t suppressed = suppressed_mask();
  uint64_t next = UINT64_MAX;
  for (int p = 0; p < kPfcPriorities; ++p) {
    if (!(asserted & (1u << p))) continue;
    // A suppressed XOFF still to be dropped: poll now (no frame goes out).
    if (suppressed & (1u << p)) return now_ns;
    next = std::min(next, std::max(now_ns, st.refresh_at[p].load(kRelaxed)));
  }
  return next;
}

bool PfcGenerator::may_poll(const PfcConfig& cfg, bool over_xoff) const {
  if (asserting_count_.load(kRelaxed) != 0) return true;
  if (!over_xoff || cfg.enable_mask == 0) return false;
  const uint64_t total = total_held_bytes(cfg);
  return total > xoff_for(cfg, total);
}

PortSet PfcGenerator::ports_to_poll(const PfcConfig& cfg, const PortSet& ports,
                                    bool over_xoff) const {
  PortSet out;
  if (asserting_count_.load(kRelaxed) != 0) out = ports & all_ & asserting_ports_.load();
  const uint8_t lossless = cfg.enable_mask;
  if (!over_xoff || lossless == 0) return out;
  // No port holds more than the lossless total: under the threshold, none
  // can cross it.
  const uint64_t total = total_held_bytes(cfg);
  const uint64_t xoff = xoff_for(cfg, total);
  if (total <= xoff) return out;
  (ports & all_).without(out).for_each([&](uint16_t port) {
    const Port& st = ports_[port];
    for (uint32_t p = lossless; p != 0; p &= p - 1)
      if (st.held[__builtin_ctz(p)].load(kRelaxed) > xoff) {
        out.add(port);
        break;
      }
  });
  return out;
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
