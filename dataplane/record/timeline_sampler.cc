#include "dataplane/record/timeline_sampler.h"

#include <cinttypes>

#include "dataplane/forward/switch_config.h"
#include "lb/lb_mode.h"

namespace rocelb {

namespace {

// The longest a row's fixed parts can be: t_ns and value (20 digits each),
// port, class, the commas and the newline.
constexpr uint64_t kRowBytes = 20 + 5 + 1 + 20 + 6;

// The rate of `bytes` sent in interval_ns, in bits per second (0 for no interval).
uint64_t bits_per_second(uint64_t bytes, uint64_t interval_ns) {
  return interval_ns ? static_cast<uint64_t>(static_cast<__uint128_t>(bytes) * 8'000'000'000ull /
                                             interval_ns)
                     : 0;
}

}  // namespace

TimelineSampler::TimelineSampler(std::FILE* f, uint64_t base_ns) : f_(f), base_ns_(base_ns) {
  std::fputs("t_ns,switch,port,class,metric,value\n", f_);
}

void TimelineSampler::add(SwitchRecorder& rec) {
  Switch s;
  s.rec = &rec;
  Dataplane& dp = rec.dataplane();
  const size_t slots = dp.port_slots();
  s.last_tx.assign(slots, 0);
  s.last_rx.assign(slots, 0);
  s.active_classes.assign(slots, 0);
  s.active_port.assign(slots, 0);
  for (const GroupConfig& g : dp.config().groups) s.quality.emplace_back(g.spec.knobs.quality);
  // Start from what the counters hold now (a Dataplane may have run before).
  const Snapshot snap = dp.snapshot();
  for (uint16_t p : dp.config().port_ids) {
    s.last_tx[p] = dp.tx(p).tx_bytes;
    s.last_rx[p] = snap.port[p][PortCounter::rx_bytes];
  }
  // Per port 5 rows, per queue 5, per priority 4 (metric names of at most
  // 16 bytes); per member 2 (group.<name>.load_bps).
  const uint64_t row = kRowBytes + rec.name().size();
  max_sample_bytes_ +=
      dp.config().port_ids.size() * (5 + 5 * kNumTrafficClasses + 4 * kPfcPriorities) * (row + 16);
  for (const GroupConfig& g : dp.config().groups)
    max_sample_bytes_ += g.members.size() * 2 * (row + g.name.size() + 16);
  switches_.push_back(std::move(s));
}

void TimelineSampler::row(uint64_t t_ns, const Switch& s, uint16_t port, int cls,
                          const char* metric, uint64_t value) {
  if (cls >= 0)
    std::fprintf(f_, "%" PRIu64 ",%s,%u,%d,%s,%" PRIu64 "\n", base_ns_ + t_ns,
                 s.rec->name().c_str(), port, cls, metric, value);
  else
    std::fprintf(f_, "%" PRIu64 ",%s,%u,,%s,%" PRIu64 "\n", base_ns_ + t_ns, s.rec->name().c_str(),
                 port, metric, value);
  ++rows_;
}

void TimelineSampler::row(uint64_t t_ns, const Switch& s, uint16_t port, const std::string& metric,
                          uint64_t value) {
  row(t_ns, s, port, -1, metric.c_str(), value);
}

void TimelineSampler::add_host(std::string name, const NicCounters& counters) {
  max_sample_bytes_ += 7 * (kRowBytes + name.size() + 32);  // nic.retransmitted_packets
  hosts_.push_back(Host{std::move(name), &counters, counters, false});
}

void TimelineSampler::sample(uint64_t t_ns, uint64_t interval_ns) {
  for (Switch& s : switches_) sample_switch(t_ns, interval_ns, s);
  for (Host& h : hosts_) sample_host(t_ns, interval_ns, h);
}

void TimelineSampler::sample_host(uint64_t t_ns, uint64_t interval_ns, Host& h) {
  const NicCounters& now = *h.now;
  auto delta = [&](uint64_t NicCounters::*f) { return now.*f - h.last.*f; };
  const uint64_t tx = delta(&NicCounters::tx_bytes), rx = delta(&NicCounters::rx_bytes);
  if (tx || rx) h.active = true;
  if (h.active) {
    auto out = [&](const char* metric, uint64_t v) {
      std::fprintf(f_, "%" PRIu64 ",%s,0,,%s,%" PRIu64 "\n", base_ns_ + t_ns, h.name.c_str(),
                   metric, v);
      ++rows_;
    };
    out("nic.tx_bytes", tx);
    out("nic.tx_bps", bits_per_second(tx, interval_ns));
    out("nic.rx_bytes", rx);
    out("nic.cnps_received", delta(&NicCounters::cnps_received));
    out("nic.rate_cuts", delta(&NicCounters::rate_cuts));
    out("nic.retransmitted_packets", delta(&NicCounters::retransmitted_packets));
    out("nic.timeouts", delta(&NicCounters::timeouts));
  }
  h.last = now;
}

void TimelineSampler::sample_switch(uint64_t t_ns, uint64_t interval_ns, Switch& s) {
  Dataplane& dp = s.rec->dataplane();
  const SwitchConfig& cfg = dp.config();
  IntervalCounts& c = s.rec->counts();
  const uint8_t lossless = cfg.qos.pfc.enable_mask;
  auto rate = [&](uint64_t bytes) { return bits_per_second(bytes, interval_ns); };
  for (uint16_t p : cfg.port_ids) {
    PortTx& t = dp.tx(p);
    uint64_t rx_now = 0;
    for (unsigned w = 0; w < dp.num_workers(); ++w)
      rx_now += dp.worker(w).port[p][PortCounter::rx_bytes];
    const uint64_t tx_now = t.tx_bytes;
    const uint64_t tx = tx_now - s.last_tx[p], rx = rx_now - s.last_rx[p];
    s.last_tx[p] = tx_now;
    s.last_rx[p] = rx_now;
    if (tx || rx || c.port_drops[p] || !t.empty()) s.active_port[p] = true;
    if (!s.active_port[p]) continue;
    row(t_ns, s, p, -1, "tx_bytes", tx);
    row(t_ns, s, p, -1, "rx_bytes", rx);
    row(t_ns, s, p, -1, "tx_bps", rate(tx));
    row(t_ns, s, p, -1, "rx_bps", rate(rx));
    row(t_ns, s, p, -1, "drops", c.port_drops[p]);
    c.port_drops[p] = 0;
    for (int q = 0; q < kNumTrafficClasses; ++q) {
      const EgressQueue& eq = t.queues[q];
      const uint64_t depth = eq.depth_bytes();
      const uint8_t bit = static_cast<uint8_t>(1u << q);
      if (depth || c.peak_bytes[p][q] || c.marks[p][q] || c.class_drops[p][q])
        s.active_classes[p] |= bit;
      if (s.active_classes[p] & bit) {
        row(t_ns, s, p, q, "queue_bytes", depth);
        row(t_ns, s, p, q, "queue_packets", eq.depth_packets());
        row(t_ns, s, p, q, "queue_peak_bytes", std::max(c.peak_bytes[p][q], depth));
        row(t_ns, s, p, q, "ecn_marks", c.marks[p][q]);
        row(t_ns, s, p, q, "drops", c.class_drops[p][q]);
      }
      // The next interval's peak starts from the depth it starts with.
      c.peak_bytes[p][q] = depth;
      c.marks[p][q] = 0;
      c.class_drops[p][q] = 0;
    }
    const uint8_t paused = t.pause.paused_mask(t_ns);
    const uint8_t asserted = dp.pfc().asserted_mask(p);
    for (int q = 0; q < kPfcPriorities; ++q) {
      const bool shown = ((lossless >> q) & 1) || ((paused | asserted) >> q & 1) ||
                         c.pfc_tx[p][q] || c.pfc_rx[p][q];
      if (shown) {
        row(t_ns, s, p, q, "pfc_paused", (paused >> q) & 1);
        row(t_ns, s, p, q, "pfc_xoff", (asserted >> q) & 1);
        row(t_ns, s, p, q, "pfc_tx_frames", c.pfc_tx[p][q]);
        row(t_ns, s, p, q, "pfc_rx_frames", c.pfc_rx[p][q]);
      }
      c.pfc_tx[p][q] = 0;
      c.pfc_rx[p][q] = 0;
    }
  }
  for (size_t gi = 0; gi < cfg.groups.size(); ++gi) {
    const GroupConfig& g = cfg.groups[gi];
    const std::string load = "group." + g.name + ".load_bps";
    const std::string band = "group." + g.name + ".band";
    for (size_t k = 0; k < g.members.size(); ++k) {
      const uint16_t port = g.members[k].port;
      const PortTx& t = dp.tx(port);
      MemberPath path = g.paths[k];
      path.load_bps = t.load_bps.load(std::memory_order_relaxed);
      row(t_ns, s, port, load, path.load_bps);
      if (!uses_quality(g.spec.mode)) continue;
      if (g.depth_whole_port) {
        path.queue_bytes = t.depth_bytes();
      } else {
        for (const EgressQueue& q : t.queues)
          path.queue_bytes = std::max(path.queue_bytes, q.depth_bytes());
      }
      row(t_ns, s, port, band, s.quality[gi].band(path));
    }
  }
}

}  // namespace rocelb
