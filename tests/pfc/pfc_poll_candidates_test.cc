// PfcGenerator::ports_to_poll: a port it leaves out would have found
// nothing to do in poll(): no frame, no change of state. Checked on random
// walks of held bytes, storms and time under static and dynamic thresholds.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "pfc/pfc_generator.h"

namespace rocelb {
namespace {

constexpr uint16_t kPorts = 8;
constexpr uint64_t k100G = 100'000'000'000ull;

struct PortState {
  uint8_t asserted;
  uint64_t next_poll;
  std::array<PfcTxCounters, kPfcPriorities> c;
  bool operator==(const PortState&) const = default;
};

PortState state_of(const PfcGenerator& g, const PfcConfig& cfg, uint16_t port, uint64_t now) {
  PortState s{g.asserted_mask(port), g.next_poll_ns(cfg, port, now), {}};
  for (uint8_t p = 0; p < kPfcPriorities; ++p) s.c[p] = g.counters(port, p, now);
  return s;
}

void walk(const PfcParams& params, uint64_t seed, bool over_xoff) {
  const std::vector<uint64_t> speeds(kPorts, k100G);
  const PfcConfig cfg = PfcConfig::build(params, speeds);
  PfcGenerator g(kPorts);
  std::mt19937_64 rng(seed);
  std::array<std::array<uint64_t, kPfcPriorities>, kPorts> held{};
  uint64_t now = 0;
  int left_out = 0, polled = 0;
  for (int step = 0; step < 20000; ++step) {
    now += rng() % 20000;
    const uint16_t port = static_cast<uint16_t>(rng() % kPorts);
    const uint8_t prio = static_cast<uint8_t>(rng() % 2 ? 3 : rng() % kPfcPriorities);
    const uint64_t bytes = 1 + rng() % 60000;
    if (rng() % 2) {
      g.add(port, prio, bytes);
      held[port][prio] += bytes;
    } else {
      const uint64_t b = std::min(bytes, held[port][prio]);
      g.release(port, prio, b);
      held[port][prio] -= b;
    }
    if (rng() % 500 == 0) g.storm_begin(3);
    if (rng() % 500 == 0 && g.suppressed_mask()) g.storm_end(3);
    // !over_xoff: the caller asks only for the asserting ports and polls
    // the ports an event touched itself.
    const PortSet due = g.ports_to_poll(cfg, PortSet::first(kPorts), over_xoff);
    for (uint16_t p = 0; p < kPorts; ++p) {
      if (due.has(p)) {
        PfcFrameRequest req;
        g.poll(cfg, p, now, req);
        ++polled;
        continue;
      }
      const bool over = [&] {
        for (uint8_t q = 0; q < kPfcPriorities; ++q)
          if (cfg.lossless(q) && g.held_bytes(p, q) > g.xoff_threshold(cfg)) return true;
        return false;
      }();
      if (over && !over_xoff) {  // a port the caller polls because the event touched it
        PfcFrameRequest req;
        g.poll(cfg, p, now, req);
        ++polled;
        continue;
      }
      const PortState before = state_of(g, cfg, p, now);
      PfcFrameRequest req;
      ASSERT_FALSE(g.poll(cfg, p, now, req)) << "port " << p << " step " << step;
      ASSERT_EQ(state_of(g, cfg, p, now), before) << "port " << p << " step " << step;
      ++left_out;
    }
  }
  EXPECT_GT(left_out, 1000);
  EXPECT_GT(polled, 1000);
}

TEST(PfcPollCandidates, StaticThresholdsLeaveOutOnlyPortsWithNothingToDo) {
  PfcParams p;
  p.enable_mask = 1u << 3;
  p.pause_quanta = 65535;
  p.xoff_bytes = 200'000;
  p.xon_bytes = 100'000;
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    walk(p, seed, true);
    walk(p, seed, false);
  }
}

TEST(PfcPollCandidates, DynamicThresholdsLeaveOutOnlyPortsWithNothingToDo) {
  PfcParams p;
  p.enable_mask = 1u << 3;
  p.pause_quanta = 65535;
  p.dynamic = true;
  p.dynamic_th = -2;
  p.shared_buffer_bytes = 2'000'000;
  p.xon_offset_bytes = 20'000;
  for (uint64_t seed = 1; seed <= 3; ++seed) walk(p, seed, true);
}

TEST(PfcPollCandidates, NothingLosslessNothingAssertedNothingToPoll) {
  const std::vector<uint64_t> speeds(kPorts, k100G);
  PfcParams p;
  p.enable_mask = 0;
  const PfcConfig cfg = PfcConfig::build(p, speeds);
  PfcGenerator g(kPorts);
  g.add(2, 3, 1'000'000);
  EXPECT_TRUE(g.ports_to_poll(cfg, PortSet::first(8), true).empty());
}

}  // namespace
}  // namespace rocelb
