// PfcGenerator: static and dynamic thresholds with their hysteresis (XOFF
// once, refresh at half the pause while above XON, XON once below), headroom
// sizing and admission, suppression by the watchdog's storms, and exact
// counters. The knobs come in a PfcConfig with every call, as the dataplane
// passes its epoch's; Gen below keeps one next to the generator.
#include "pfc/pfc_generator.h"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "dataplane/wire/mac_control.h"
#include "pfc/pfc_frame.h"

#include <span>

namespace rocelb {
namespace {

constexpr uint64_t k100G = 100'000'000'000ull;
constexpr uint64_t k25G = 25'000'000'000ull;
constexpr uint64_t kFullPause100G = 335'540;
constexpr uint64_t kRefresh100G = kFullPause100G / 2;  // 167770
constexpr uint8_t kP3 = 1u << 3;
const std::vector<uint64_t> kTwoPorts = {k100G, k100G};

PfcParams static_params(uint64_t xoff, uint64_t xon) {
  PfcParams p;
  p.enable_mask = kP3;
  p.pause_quanta = 65535;
  p.xoff_bytes = xoff;
  p.xon_bytes = xon;
  return p;
}

PfcParams dynamic_params(int8_t th, uint64_t shared, uint64_t xon_offset) {
  PfcParams p;
  p.enable_mask = kP3;
  p.dynamic = true;
  p.dynamic_th = th;
  p.shared_buffer_bytes = shared;
  p.xon_offset_bytes = xon_offset;
  return p;
}

enum class Admit { kAdmitted, kNotLossless, kDropped };

// A generator and the config the dataplane would pass it (its epoch's).
// reconfigure() is a new epoch: a new PfcConfig, the same generator state.
struct Gen {
  Gen(const PfcParams& p, std::span<const uint64_t> speeds,
      uint32_t max_frame = PfcConfig::kDefaultMaxFrameBytes)
      : cfg(PfcConfig::build(p, speeds, max_frame)), g(static_cast<uint16_t>(speeds.size())) {}
  void reconfigure(const PfcParams& p, std::span<const uint64_t> speeds) {
    cfg = PfcConfig::build(p, speeds);
  }
  void add(uint16_t port, uint8_t prio, uint64_t b) { g.add(port, prio, b); }
  void release(uint16_t port, uint8_t prio, uint64_t b) { g.release(port, prio, b); }
  // What the enqueue stage does with admit_limit for one packet.
  Admit admit(uint16_t port, uint8_t prio, uint32_t bytes) {
    if (port >= g.num_ports() || !cfg.lossless(prio)) return Admit::kNotLossless;
    if (g.held_bytes(port, prio) + bytes <= g.admit_limit(cfg, port, prio)) return Admit::kAdmitted;
    g.count_lossless_drops(port, prio, 1);
    return Admit::kDropped;
  }
  bool lossless(uint8_t prio) const { return cfg.lossless(prio); }
  uint64_t headroom_bytes(uint16_t port) const { return cfg.headroom_bytes[port]; }
  uint64_t next_poll_ns(uint16_t port, uint64_t now) const {
    return g.next_poll_ns(cfg, port, now);
  }
  uint64_t held_bytes(uint16_t port, uint8_t prio) const { return g.held_bytes(port, prio); }
  uint64_t total_held_bytes() const { return g.total_held_bytes(cfg); }
  uint64_t xoff_threshold() const { return g.xoff_threshold(cfg); }
  uint64_t xon_threshold() const { return g.xon_threshold(cfg); }
  uint8_t asserted_mask(uint16_t port) const { return g.asserted_mask(port); }
  uint64_t xoff_asserted_ns(uint16_t port, uint8_t prio, uint64_t now) const {
    return g.xoff_asserted_ns(port, prio, now);
  }
  PfcTxCounters counters(uint16_t port, uint8_t prio, uint64_t now) const {
    return g.counters(port, prio, now);
  }

  PfcConfig cfg;
  PfcGenerator g;
};

// Polls and returns the frame, or an empty request (class_enable 0).
PfcFrameRequest poll(Gen& g, uint16_t port, uint64_t now) {
  PfcFrameRequest r;
  if (!g.g.poll(g.cfg, port, now, r)) return PfcFrameRequest{};
  EXPECT_NE(r.class_enable, 0);
  return r;
}

TEST(PfcGenerator, HeadroomFormula) {
  // 100 m at 100 Gb/s, 1 µs response: (2 × 500 + 1000) ns × 12.5 B/ns = 25000,
  // + 2 × (9216 + 20) + 84 + 9216.
  EXPECT_EQ(PfcConfig::headroom_for(k100G, 100, 1000, 9216), 25'000u + 18'472 + 84 + 9'216);
  // 3 m at 25 Gb/s, 500 ns, 1518-byte frames: 530 ns × 3.125 B/ns = 1656.25 -> 1657.
  EXPECT_EQ(PfcConfig::headroom_for(k25G, 3, 500, 1518), 1'657u + 3'076 + 84 + 1'518);
  EXPECT_EQ(PfcConfig::headroom_for(0, 100, 1000, 1500), 3'040u + 84 + 1'500);
  // The generator uses it per port when headroom is auto, the configured value otherwise.
  PfcParams p = static_params(100'000, 50'000);
  const std::vector<uint64_t> speeds = {k100G, k25G};
  Gen auto_hr(p, speeds);
  EXPECT_EQ(auto_hr.headroom_bytes(0), PfcConfig::headroom_for(k100G, 100, 1000, 9216));
  EXPECT_EQ(auto_hr.headroom_bytes(1), PfcConfig::headroom_for(k25G, 100, 1000, 9216));
  Gen small_frames(p, speeds, 1518);
  EXPECT_EQ(small_frames.headroom_bytes(0), PfcConfig::headroom_for(k100G, 100, 1000, 1518));
  p.headroom_bytes = 40'000;
  Gen fixed_hr(p, speeds);
  EXPECT_EQ(fixed_hr.headroom_bytes(0), 40'000u);
  EXPECT_EQ(fixed_hr.headroom_bytes(1), 40'000u);
}

TEST(PfcGenerator, StaticHysteresis) {
  Gen g(static_params(100'000, 50'000), kTwoPorts);
  const uint64_t t0 = 1'000'000;
  EXPECT_EQ(g.next_poll_ns(0, t0), UINT64_MAX);
  g.add(0, 3, 100'000);
  EXPECT_EQ(poll(g, 0, t0).class_enable, 0);  // at xoff, not above
  g.add(0, 3, 1);
  PfcFrameRequest r = poll(g, 0, t0);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta, (std::array<uint16_t, 8>{0, 0, 0, 65535, 0, 0, 0, 0}));
  EXPECT_EQ(g.asserted_mask(0), kP3);
  // XOFF once: nothing more until the refresh is due.
  EXPECT_EQ(poll(g, 0, t0 + 1).class_enable, 0);
  g.add(0, 3, 10'000);
  EXPECT_EQ(poll(g, 0, t0 + 2).class_enable, 0);
  EXPECT_EQ(g.next_poll_ns(0, t0), t0 + kRefresh100G);
  EXPECT_EQ(poll(g, 0, t0 + kRefresh100G - 1).class_enable, 0);
  // Refresh at half the pause, while above XON.
  r = poll(g, 0, t0 + kRefresh100G);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta[3], 65535);
  const uint64_t t1 = t0 + kRefresh100G;
  EXPECT_EQ(g.next_poll_ns(0, t1), t1 + kRefresh100G);
  // Down to xon: still asserted (XON only below it).
  g.release(0, 3, 110'001 - 50'000);
  EXPECT_EQ(g.held_bytes(0, 3), 50'000u);
  EXPECT_EQ(poll(g, 0, t1 + 10).class_enable, 0);
  g.release(0, 3, 1);
  const uint64_t t2 = t1 + 20;
  r = poll(g, 0, t2);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta, (std::array<uint16_t, 8>{}));  // XON: time 0
  EXPECT_EQ(g.asserted_mask(0), 0);
  EXPECT_EQ(poll(g, 0, t2 + 1).class_enable, 0);  // XON once
  EXPECT_EQ(poll(g, 0, t2 + kFullPause100G).class_enable, 0);
  EXPECT_EQ(g.next_poll_ns(0, t2), UINT64_MAX);

  PfcTxCounters c = g.counters(0, 3, t2 + 5'000'000);
  EXPECT_EQ(c.pfc_tx_frames, 3u);  // XOFF, refresh, XON
  EXPECT_EQ(c.pfc_tx_xon_frames, 1u);
  EXPECT_EQ(g.xoff_asserted_ns(0, 3, t2 + 5'000'000), t2 - t0);
  EXPECT_EQ(c.xoff_asserted_us, (t2 - t0) / 1000);
  EXPECT_EQ(c.lossless_dropped, 0u);
  // Port 1 and the other priorities saw nothing.
  EXPECT_EQ(g.counters(1, 3, t2), PfcTxCounters{});
  EXPECT_EQ(g.counters(0, 4, t2), PfcTxCounters{});
  EXPECT_EQ(poll(g, 1, t2).class_enable, 0);

  // A second episode: XOFF time accumulates, exact while still asserted.
  g.release(0, 3, 49'999);
  g.add(0, 3, 60'000);
  const uint64_t t3 = t2 + 1'000'000;
  EXPECT_EQ(poll(g, 0, t3).class_enable, 0);
  g.add(0, 3, 50'000);
  EXPECT_EQ(poll(g, 0, t3).class_enable, kP3);
  EXPECT_EQ(g.xoff_asserted_ns(0, 3, t3 + 1'234), t2 - t0 + 1'234);
  EXPECT_EQ(g.counters(0, 3, t3).pfc_tx_frames, 4u);
}

TEST(PfcGenerator, RefreshKeepsThePeerPausedUntilXon) {
  // Many refresh periods above XON: a refresh every P/2, so the peer's pause
  // (P from each frame) never lapses.
  Gen g(static_params(10'000, 5'000), kTwoPorts);
  g.add(0, 3, 20'000);
  uint64_t peer_paused_until = 0;
  uint64_t frames = 0;
  for (uint64_t t = 0; t < 10'000'000; t += 1'000) {  // a poll every µs for 10 ms
    PfcFrameRequest r = poll(g, 0, t);
    if (r.class_enable) {
      ++frames;
      EXPECT_EQ(r.quanta[3], 65535);
      if (t > 0) {
        EXPECT_LT(t, peer_paused_until) << "pause lapsed before refresh";
      }
      peer_paused_until = t + pause_quanta_to_ns(r.quanta[3], k100G);
    }
  }
  // XOFF at 0, then every 168 µs (the µs poll grid rounds 167.77 up).
  EXPECT_EQ(frames, 1 + (10'000'000 - 1) / 168'000);
  EXPECT_EQ(g.counters(0, 3, 10'000'000).pfc_tx_xon_frames, 0u);
  EXPECT_EQ(g.xoff_asserted_ns(0, 3, 10'000'000), 10'000'000u);
}

// qos.pfc.refresh on_arrival (HPCC's and ConWeave's ns-3): a pause of P
// (977 quanta: 5 us at 100G) is sent on crossing XOFF and again only when
// a packet arrives while over it; with no arrival it lapses, and no XON
// follows a lapsed pause. Below XON while asserted: XON.
TEST(PfcGenerator, OnArrivalRefreshIsResentPerArrivalAndLapses) {
  PfcParams p = static_params(10'000, 5'000);
  p.pause_quanta = 977;
  p.refresh_on_arrival = true;
  Gen g(p, kTwoPorts);
  const uint64_t pause = pause_quanta_to_ns(977, k100G);  // 5,002 ns
  g.add(0, 3, 20'000);
  PfcFrameRequest r = poll(g, 0, 1'000);
  ASSERT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta[3], 977);
  EXPECT_EQ(g.next_poll_ns(0, 1'000), 1'000 + pause);  // when it lapses
  // No arrival: nothing at the timer's half-way point, nothing at the lapse
  // (it just ends), and nothing after.
  EXPECT_EQ(poll(g, 0, 1'000 + pause / 2).class_enable, 0);
  EXPECT_EQ(poll(g, 0, 1'000 + pause).class_enable, 0);
  EXPECT_EQ(g.asserted_mask(0), 0);
  EXPECT_EQ(poll(g, 0, 2'000 + pause).class_enable, 0);
  // A packet arrives over XOFF: paused again; another one: again.
  g.add(0, 3, 1'000);
  r = poll(g, 0, 10'000);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta[3], 977);
  g.add(0, 3, 1'000);
  EXPECT_EQ(poll(g, 0, 11'000).class_enable, kP3);
  EXPECT_EQ(g.next_poll_ns(0, 11'000), 11'000 + pause);
  // A departure only: no frame.
  g.release(0, 3, 500);
  EXPECT_EQ(poll(g, 0, 12'000).class_enable, 0);
  // Below XON while asserted: XON.
  g.release(0, 3, 18'000);
  r = poll(g, 0, 13'000);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta[3], 0);
  const PfcTxCounters c = g.counters(0, 3, 20'000);
  EXPECT_EQ(c.pfc_tx_frames, 4u);
  EXPECT_EQ(c.pfc_tx_xon_frames, 1u);
  // A pause that lapsed sends no XON when the queue drains.
  g.add(0, 3, 20'000);
  ASSERT_EQ(poll(g, 0, 30'000).class_enable, kP3);
  EXPECT_EQ(poll(g, 0, 30'000 + pause).class_enable, 0);  // lapsed
  g.release(0, 3, 20'000);
  EXPECT_EQ(poll(g, 0, 40'000).class_enable, 0);
  EXPECT_EQ(g.counters(0, 3, 40'000).pfc_tx_xon_frames, 1u);
}

TEST(PfcGenerator, LossyPrioritiesAreNeverPausedOrCounted) {
  Gen g(static_params(1'000, 500), kTwoPorts);
  for (uint8_t p = 0; p < 8; ++p) {
    if (p == 3) continue;
    EXPECT_FALSE(g.lossless(p));
    g.add(0, p, 1'000'000);
    EXPECT_EQ(g.held_bytes(0, p), 1'000'000u);  // held, for a later pfc_enable change
    EXPECT_EQ(g.admit(0, p, 1'000'000), Admit::kNotLossless);
  }
  EXPECT_TRUE(g.lossless(3));
  EXPECT_FALSE(g.lossless(8));
  EXPECT_EQ(g.total_held_bytes(), 0u);  // only lossless priorities count
  EXPECT_EQ(poll(g, 0, 0).class_enable, 0);
  for (uint8_t p = 0; p < 8; ++p) EXPECT_EQ(g.counters(0, p, 1'000), PfcTxCounters{});
  // Out-of-range ports change nothing.
  g.add(7, 3, 1'000);
  EXPECT_EQ(g.admit(7, 3, 1'000), Admit::kNotLossless);
  PfcFrameRequest r;
  EXPECT_FALSE(g.g.poll(g.cfg, 7, 0, r));
  EXPECT_EQ(g.total_held_bytes(), 0u);
}

TEST(PfcGenerator, DynamicThreshold) {
  // The same with held bytes kept by locked adds and by a single writer's
  // plain stores (a switch of one worker).
  for (const bool one_writer : {false, true}) {
    SCOPED_TRACE(one_writer ? "one writer" : "locked adds");
    // alpha = 2^0 = 1: XOFF when held > shared − total.
    Gen g(dynamic_params(0, 1'000'000, 20'000), kTwoPorts);
    g.g.set_one_writer(one_writer);
    EXPECT_EQ(g.xoff_threshold(), 1'000'000u);
    EXPECT_EQ(g.xon_threshold(), 980'000u);
    g.add(0, 3, 400'000);
    EXPECT_EQ(g.xoff_threshold(), 600'000u);
    EXPECT_EQ(poll(g, 0, 0).class_enable, 0);
    g.add(0, 3, 100'000);  // held 500000, T 500000: not above
    EXPECT_EQ(poll(g, 0, 0).class_enable, 0);
    g.add(0, 3, 1);  // held 500001 > T 499999
    EXPECT_EQ(poll(g, 0, 10).class_enable, kP3);
    // Another port fills: the threshold falls for everyone.
    g.add(1, 3, 200'000);  // total 700001, T 299999
    EXPECT_EQ(g.xoff_threshold(), 299'999u);
    EXPECT_EQ(poll(g, 1, 20).class_enable, 0);  // 200000 <= T
    // Port 0 resumes when held < T − 20000, T = 800000 − held: held < 390000.
    g.release(0, 3, 500'001 - 390'000);
    EXPECT_EQ(g.xon_threshold(), 390'000u);
    EXPECT_EQ(poll(g, 0, 30).class_enable, 0);
    g.release(0, 3, 1);
    PfcFrameRequest r = poll(g, 0, 40);
    EXPECT_EQ(r.class_enable, kP3);
    EXPECT_EQ(r.quanta[3], 0);
    EXPECT_EQ(g.counters(0, 3, 40).pfc_tx_xon_frames, 1u);
    EXPECT_EQ(g.xoff_asserted_ns(0, 3, 1'000), 30u);
  }
}

TEST(PfcGenerator, DynamicAlphas) {
  for (int th = -7; th <= 3; ++th) {
    Gen g(dynamic_params(static_cast<int8_t>(th), 1'280'000, 0), kTwoPorts);
    g.add(1, 3, 256'000);  // free 1024000
    const uint64_t want = th >= 0 ? 1'024'000ull << th : 1'024'000ull >> -th;
    EXPECT_EQ(g.xoff_threshold(), want) << th;
  }
  // The buffer over-full (headroom in use): no free space, T = 0.
  Gen g(dynamic_params(1, 100'000, 10'000), kTwoPorts);
  g.add(0, 3, 150'000);
  EXPECT_EQ(g.xoff_threshold(), 0u);
  EXPECT_EQ(g.xon_threshold(), 0u);
  // xon_bytes is a floor under T − xon_offset.
  PfcParams p = dynamic_params(0, 1'000'000, 500'000);
  p.xon_bytes = 100'000;
  Gen f(p, kTwoPorts);
  f.add(0, 3, 600'000);  // T 400000, T − offset < 0 -> floor
  EXPECT_EQ(f.xon_threshold(), 100'000u);
}

TEST(PfcGenerator, XonWhenNothingIsHeld) {
  // T − xon_offset is 0 while the buffer is full of another port's bytes:
  // a PG holding nothing still resumes its peer.
  Gen g(dynamic_params(0, 100'000, 50'000), kTwoPorts);
  g.add(0, 3, 60'000);  // T 40000
  EXPECT_EQ(poll(g, 0, 0).class_enable, kP3);
  g.add(1, 3, 40'000);  // T 0
  g.release(0, 3, 60'000);
  EXPECT_EQ(g.xon_threshold(), 10'000u);
  g.add(1, 3, 60'000);  // total 100000: T 0
  EXPECT_EQ(g.xon_threshold(), 0u);
  PfcFrameRequest r = poll(g, 0, 5);
  EXPECT_EQ(r.class_enable, kP3);
  EXPECT_EQ(r.quanta[3], 0);
}

TEST(PfcGenerator, HeadroomAdmission) {
  PfcParams p = static_params(100'000, 50'000);
  p.headroom_bytes = 20'000;
  Gen g(p, kTwoPorts);
  // Up to xoff + headroom fits, one byte more does not.
  g.add(0, 3, 119'000);
  EXPECT_EQ(g.admit(0, 3, 1'000), Admit::kAdmitted);
  EXPECT_EQ(g.admit(0, 3, 1'001), Admit::kDropped);
  EXPECT_EQ(g.admit(0, 3, 9'000), Admit::kDropped);
  EXPECT_EQ(g.counters(0, 3, 0).lossless_dropped, 2u);
  EXPECT_EQ(g.held_bytes(0, 3), 119'000u);  // admit alone holds nothing
  // Another port has its own headroom.
  EXPECT_EQ(g.admit(1, 3, 9'000), Admit::kAdmitted);
  EXPECT_EQ(g.counters(1, 3, 0).lossless_dropped, 0u);
  g.release(0, 3, 10'000);
  EXPECT_EQ(g.admit(0, 3, 9'000), Admit::kAdmitted);
  EXPECT_EQ(g.counters(0, 3, 0).lossless_dropped, 2u);
}

TEST(PfcGenerator, DynamicHeadroomKeepsTheThresholdItPausedAt) {
  PfcParams p = dynamic_params(0, 1'000'000, 0);
  p.headroom_bytes = 50'000;
  Gen g(p, kTwoPorts);
  g.add(0, 3, 500'001);  // T 499999 -> XOFF at it
  EXPECT_EQ(poll(g, 0, 0).class_enable, kP3);
  g.add(1, 3, 300'000);  // T falls to 199999 while port 0's bytes are in flight
  EXPECT_EQ(g.xoff_threshold(), 199'999u);
  // Port 0 still has 499999 + 50000 − 500001 bytes of headroom.
  EXPECT_EQ(g.admit(0, 3, 49'998), Admit::kAdmitted);
  EXPECT_EQ(g.admit(0, 3, 49'999), Admit::kDropped);
  // Port 1 is not paused: its limit is T now + headroom.
  EXPECT_EQ(g.admit(1, 3, 1), Admit::kDropped);
}

TEST(PfcGenerator, IncastIntoHeadroomNeverDrops) {
  // A peer sending at line rate into a PG that crossed XOFF, stopping
  // response_delay + cable after the PFC frame leaves (and finishing its
  // frame): what arrives fits the computed headroom.
  PfcParams p = static_params(200'000, 100'000);
  Gen g(p, kTwoPorts, 1'518);
  const uint64_t frame = 1'518;
  const uint64_t frame_ns = (frame + 20) * 8 * 1'000'000'000 / k100G;  // 123 ns
  uint64_t t = 0;
  uint64_t stop_at = UINT64_MAX;
  int admitted = 0;
  for (; t < stop_at; t += frame_ns) {
    ASSERT_EQ(g.admit(0, 3, frame), Admit::kAdmitted) << "t=" << t;
    g.add(0, 3, frame);
    ++admitted;
    PfcFrameRequest r;
    // The PFC frame waits for the max frame the switch is sending on that
    // port, then takes its own 84 bytes of wire time, then the cable.
    if (g.g.poll(g.cfg, 0, t, r))
      stop_at = t + frame_ns + 7 + 2 * 5 * p.cable_length_m + p.response_delay_ns;
  }
  EXPECT_GT(g.held_bytes(0, 3), 200'000u);
  EXPECT_LE(g.held_bytes(0, 3), 200'000 + g.headroom_bytes(0));
  EXPECT_EQ(g.counters(0, 3, t).lossless_dropped, 0u);
}

TEST(PfcGenerator, StormSuppressesPfcOnEveryPort) {
  Gen g(static_params(10'000, 5'000), kTwoPorts);
  g.add(0, 3, 20'000);
  EXPECT_EQ(poll(g, 0, 1'000).class_enable, kP3);
  g.g.storm_begin(3);  // some port's queue of priority 3 is in a drop-action storm
  EXPECT_EQ(g.g.suppressed_mask(), kP3);
  EXPECT_EQ(g.next_poll_ns(0, 2'000), 2'000u);   // an XOFF to drop
  EXPECT_EQ(poll(g, 0, 2'000).class_enable, 0);  // silently: no XON
  EXPECT_EQ(g.asserted_mask(0), 0);
  EXPECT_EQ(g.next_poll_ns(0, 2'000), UINT64_MAX);
  // No refresh, no new XOFF while suppressed; asserted time stopped at 2000.
  EXPECT_EQ(poll(g, 0, 1'000'000).class_enable, 0);
  EXPECT_EQ(g.xoff_asserted_ns(0, 3, 5'000'000), 1'000u);
  // Port 1 sends no PFC for priority 3 either: the storm must not spread.
  g.add(1, 3, 20'000);
  EXPECT_EQ(poll(g, 1, 1'000'000).class_enable, 0);
  // Lifted: the PG is still above XOFF, so XOFF goes out again.
  g.g.storm_end(3);
  EXPECT_EQ(g.g.suppressed_mask(), 0);
  EXPECT_EQ(poll(g, 0, 6'000'000).class_enable, kP3);
  PfcTxCounters c = g.counters(0, 3, 6'001'000);
  EXPECT_EQ(c.pfc_tx_frames, 2u);
  EXPECT_EQ(c.pfc_tx_xon_frames, 0u);
  EXPECT_EQ(c.xoff_asserted_us, 2u);  // 1 µs + 1 µs
}

// Two ports storm on one priority; the first to recover must not lift the
// suppression the other still needs.
TEST(PfcGenerator, OneStormEndingKeepsAnotherSuppressed) {
  Gen g(static_params(10'000, 5'000), kTwoPorts);
  g.g.storm_begin(3);
  g.g.storm_begin(3);
  g.g.storm_end(3);
  EXPECT_EQ(g.g.suppressed_mask(), kP3);
  g.add(0, 3, 20'000);
  EXPECT_EQ(poll(g, 0, 1'000).class_enable, 0);
  g.g.storm_end(3);
  EXPECT_EQ(g.g.suppressed_mask(), 0);
  EXPECT_EQ(poll(g, 0, 2'000).class_enable, kP3);
}

TEST(PfcGenerator, SeveralPrioritiesShareAFrame) {
  PfcParams p = static_params(10'000, 5'000);
  p.enable_mask = 0x18;  // 3 and 4
  Gen g(p, kTwoPorts);
  g.add(0, 3, 20'000);
  g.add(0, 4, 20'000);
  PfcFrameRequest r = poll(g, 0, 0);
  EXPECT_EQ(r.class_enable, 0x18);
  EXPECT_EQ(r.quanta, (std::array<uint16_t, 8>{0, 0, 0, 65535, 65535, 0, 0, 0}));
  // 3 drops below XON at the refresh time: XON for 3 and refresh for 4 together.
  g.release(0, 3, 20'000);
  r = poll(g, 0, kRefresh100G);
  EXPECT_EQ(r.class_enable, 0x18);
  EXPECT_EQ(r.quanta, (std::array<uint16_t, 8>{0, 0, 0, 0, 65535, 0, 0, 0}));
  EXPECT_EQ(g.counters(0, 3, 0).pfc_tx_frames, 2u);
  EXPECT_EQ(g.counters(0, 4, 0).pfc_tx_frames, 2u);
  EXPECT_EQ(g.counters(0, 3, 0).pfc_tx_xon_frames, 1u);
  EXPECT_EQ(g.counters(0, 4, 0).pfc_tx_xon_frames, 0u);
  // The frame encodes as PFC with those bits and times.
  PfcFrame f;
  f.class_enable = r.class_enable;
  f.quanta = r.quanta;
  std::array<uint8_t, kPfcFrameLen> buf{};
  ASSERT_EQ(encode_pfc(f, buf.data(), buf.size()), kPfcFrameLen);
  PfcFrame back;
  ASSERT_EQ(decode_pfc(buf.data(), buf.size(), back), PfcDecodeResult::kOk);
  EXPECT_EQ(back.class_enable, 0x18);
  EXPECT_EQ(back.quanta[4], 65535);
}

TEST(PfcGenerator, RefreshFollowsSpeedAndUnknownSpeedNeverRefreshes) {
  const std::vector<uint64_t> speeds = {k25G, 0};
  Gen g(static_params(10'000, 5'000), speeds);
  g.add(0, 3, 20'000);
  g.add(1, 3, 20'000);
  EXPECT_EQ(poll(g, 0, 0).class_enable, kP3);
  EXPECT_EQ(g.next_poll_ns(0, 0), pause_quanta_to_ns(65535, k25G) / 2);
  EXPECT_EQ(poll(g, 1, 0).class_enable, kP3);
  EXPECT_EQ(g.next_poll_ns(1, 0), UINT64_MAX);
}

TEST(PfcGenerator, ConcurrentAddAndRelease) {
  Gen g(static_params(1'000'000, 500'000), kTwoPorts);
  auto work = [&g](uint16_t port) {
    for (int i = 0; i < 100'000; ++i) {
      g.add(port, 3, 1'000);
      g.release(port, 3, 1'000);
    }
  };
  std::thread a(work, 0), b(work, 1), c(work, 0);
  a.join();
  b.join();
  c.join();
  EXPECT_EQ(g.held_bytes(0, 3), 0u);
  EXPECT_EQ(g.held_bytes(1, 3), 0u);
  EXPECT_EQ(g.total_held_bytes(), 0u);
}

TEST(PfcGenerator, CounterTable) {
  std::vector<std::string> names;
  for (const auto& c : kPfcTxCounters) {
    names.emplace_back(c.name);
    EXPECT_FALSE(c.help.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"pfc_tx_frames", "pfc_tx_xon_frames",
                                             "xoff_asserted_us", "lossless_dropped"}));
}

TEST(PfcGenerator, ReconfigureMakesAPriorityLosslessFromWhatIsQueued) {
  Gen g(static_params(1'000, 500), kTwoPorts);
  g.add(0, 4, 5'000);  // lossy now, but queued
  EXPECT_EQ(poll(g, 0, 0).class_enable, 0);
  PfcParams p = static_params(1'000, 500);
  p.enable_mask = (1u << 3) | (1u << 4);
  g.reconfigure(p, kTwoPorts);
  EXPECT_TRUE(g.lossless(4));
  EXPECT_EQ(g.total_held_bytes(), 5'000u);
  const PfcFrameRequest r = poll(g, 0, 10);
  EXPECT_EQ(r.class_enable, 1u << 4);  // XOFF at once: 5000 > 1000
  EXPECT_EQ(r.quanta[4], p.pause_quanta);
  g.release(0, 4, 5'000);  // leaves: XON, and nothing underflows
  EXPECT_EQ(poll(g, 0, 20).quanta[4], 0);
  EXPECT_EQ(g.held_bytes(0, 4), 0u);
}

TEST(PfcGenerator, ReconfigureToLossyWhileAssertedSendsXon) {
  Gen g(static_params(1'000, 500), kTwoPorts);
  g.add(1, 3, 2'000);
  ASSERT_EQ(poll(g, 1, 0).class_enable, 1u << 3);
  ASSERT_EQ(g.asserted_mask(1), 1u << 3);
  PfcParams p = static_params(1'000, 500);
  p.enable_mask = 0;  // PFC off
  g.reconfigure(p, kTwoPorts);
  EXPECT_EQ(g.next_poll_ns(1, 50), 50u);  // due now
  const PfcFrameRequest r = poll(g, 1, 50);
  EXPECT_EQ(r.class_enable, 1u << 3);
  EXPECT_EQ(r.quanta[3], 0);  // XON
  EXPECT_EQ(g.asserted_mask(1), 0);
  EXPECT_EQ(g.counters(1, 3, 100).xoff_asserted_us * 1000, 0u);  // 50 ns, under 1 us
  g.release(1, 3, 2'000);
  EXPECT_EQ(poll(g, 1, 100).class_enable, 0);
}

TEST(PfcGenerator, ReconfigureMovesThresholds) {
  Gen g(static_params(10'000, 5'000), kTwoPorts);
  g.add(0, 3, 6'000);
  EXPECT_EQ(poll(g, 0, 0).class_enable, 0);  // under 10 KB
  g.reconfigure(static_params(4'000, 2'000), kTwoPorts);
  EXPECT_EQ(g.xoff_threshold(), 4'000u);
  EXPECT_EQ(poll(g, 0, 10).class_enable, 1u << 3);  // over 4 KB now
}

}  // namespace
}  // namespace rocelb
