// `conweave`: the source ToR's epochs, RTT deadline, TAIL and reroute
// (ConWeaveSource through LbEngine), and the destination ToR's reorder
// queue (ConWeaveDest): held until the TAIL, released in order right
// behind it, or at the predicted deadline.
#include <gtest/gtest.h>

#include <vector>

#include "lb/conweave_dest.h"
#include "tests/lb/lb_test_util.h"

namespace rocelb {
namespace {

using test::idle_paths;
using test::spec_of;

constexpr uint64_t kUs = 1000;

LbGroupSpec cw_spec(uint32_t members) {
  LbGroupSpec s = spec_of(LbMode::kConWeave, members);
  s.knobs.conweave.tx_expiry_ns = 300 * kUs;
  s.knobs.conweave.base_rtt_ns = 4 * kUs;
  s.knobs.conweave.reply_timeout_extra_ns = 4 * kUs;
  s.knobs.conweave.path_pause_ns = 16 * kUs;
  return s;
}

TEST(ConWeaveSource, FirstPacketStartsEpochOneAndAsksForAReply) {
  LbEngine e(cw_spec(4), 0);
  auto paths = idle_paths(4);
  ConWeaveMark m;
  const uint32_t first = e.select_conweave(7, 1000, 100 * kUs, paths.data(), m, nullptr);
  EXPECT_EQ(m.kind, ConWeaveKind::kInit);
  EXPECT_EQ(m.epoch, 1);
  EXPECT_EQ(m.phase, 0);
  EXPECT_EQ(m.tail_ns, 0u);
  // Within the deadline, the flow stays and packets are plain data.
  for (int i = 1; i < 5; ++i) {
    ASSERT_EQ(e.select_conweave(7, 1000, 100 * kUs + i * kUs, paths.data(), m, nullptr), first);
    ASSERT_EQ(m.kind, ConWeaveKind::kData);
    ASSERT_EQ(m.epoch, 1);
  }
  EXPECT_EQ(e.counters().conweave_epochs, 1u);
}

TEST(ConWeaveSource, TimelyReplyStabilizesAndTheNextPacketStartsANewEpoch) {
  LbEngine e(cw_spec(4), 0);
  auto paths = idle_paths(4);
  ConWeaveMark m;
  const uint32_t first = e.select_conweave(7, 1000, 0, paths.data(), m, nullptr);
  e.conweave_reply(7, ConWeaveKind::kReplyInit, 1, 0, 6 * kUs);  // before 8 us
  EXPECT_EQ(e.counters().conweave_replies_timely, 1u);
  EXPECT_EQ(e.select_conweave(7, 1000, 7 * kUs, paths.data(), m, nullptr), first);
  EXPECT_EQ(m.kind, ConWeaveKind::kInit);  // a new epoch on the same path
  EXPECT_EQ(m.epoch, 2);
  EXPECT_EQ(e.counters().conweave_reroutes, 0u);
}

TEST(ConWeaveSource, MissedDeadlineSendsTailThenMovesInPhaseOne) {
  // Over many flows: one whose deadline passes sends its TAIL on the old
  // path with its own time as the tail time; later packets are phase 1 on
  // the new path, the same epoch.
  LbEngine e(cw_spec(8), 0);
  auto paths = idle_paths(8);
  int moved = 0;
  for (uint32_t flow = 1; flow <= 64; ++flow) {
    ConWeaveMark m;
    const uint64_t t0 = flow * 1000 * kUs;
    const uint32_t old = e.select_conweave(flow, 1000, t0, paths.data(), m, nullptr);
    const uint32_t tail = e.select_conweave(flow, 1000, t0 + 9 * kUs, paths.data(), m, nullptr);
    ASSERT_EQ(tail, old);
    ASSERT_EQ(m.kind, ConWeaveKind::kTail);
    ASSERT_EQ(m.phase, 0);
    ASSERT_EQ(m.epoch, 1);
    ASSERT_EQ(m.tail_ns, static_cast<uint32_t>(t0 + 9 * kUs));
    const uint32_t next = e.select_conweave(flow, 1000, t0 + 10 * kUs, paths.data(), m, nullptr);
    ASSERT_EQ(m.kind, ConWeaveKind::kData);
    ASSERT_EQ(m.phase, 1);
    ASSERT_EQ(m.epoch, 1);
    ASSERT_EQ(m.tail_ns, static_cast<uint32_t>(t0 + 9 * kUs));
    moved += next != old;
    // The clear ends the reroute: the next packet starts epoch 2 on `next`.
    e.conweave_reply(flow, ConWeaveKind::kReplyTail, 1, 1, t0 + 12 * kUs);
    ASSERT_EQ(e.select_conweave(flow, 1000, t0 + 13 * kUs, paths.data(), m, nullptr), next);
    ASSERT_EQ(m.kind, ConWeaveKind::kInit);
    ASSERT_EQ(m.epoch, 2);
  }
  EXPECT_EQ(e.counters().conweave_tails, 64u);
  EXPECT_EQ(e.counters().conweave_clears, 64u);
  EXPECT_EQ(e.counters().conweave_reroutes, static_cast<uint64_t>(moved));
  EXPECT_GT(moved, 40);  // 7 in 8 draws land elsewhere
}

TEST(ConWeaveSource, LateOrStaleRepliesChangeNothing) {
  LbEngine e(cw_spec(2), 0);
  auto paths = idle_paths(2);
  ConWeaveMark m;
  e.select_conweave(5, 1000, 0, paths.data(), m, nullptr);
  e.conweave_reply(5, ConWeaveKind::kReplyInit, 1, 0, 9 * kUs);  // after the 8 us deadline
  e.conweave_reply(5, ConWeaveKind::kReplyInit, 7, 0, 1 * kUs);  // another epoch
  e.conweave_reply(6, ConWeaveKind::kReplyInit, 1, 0, 1 * kUs);  // another flow
  EXPECT_EQ(e.counters().conweave_stale_replies, 3u);
  e.select_conweave(5, 1000, 10 * kUs, paths.data(), m, nullptr);
  EXPECT_EQ(m.kind, ConWeaveKind::kTail);
}

TEST(ConWeaveSource, IdleFlowExpiresIntoANewEpoch) {
  LbEngine e(cw_spec(4), 0);
  auto paths = idle_paths(4);
  ConWeaveMark m;
  e.select_conweave(9, 1000, 0, paths.data(), m, nullptr);
  e.select_conweave(9, 1000, 301 * kUs, paths.data(), m, nullptr);
  EXPECT_EQ(m.kind, ConWeaveKind::kInit);
  EXPECT_EQ(m.epoch, 2);
}

TEST(ConWeaveSource, NotifiedMemberIsAvoidedForPathPause) {
  LbEngine e(cw_spec(2), 0);
  auto paths = idle_paths(2);
  e.conweave_notify(0, 0);
  EXPECT_EQ(e.conweave()->avoided_until(0), 16 * kUs);
  // Every new flow within the pause lands on member 1 (a draw of 0 is
  // good only if the other draw is also 0: then both are bad, the first
  // is taken: rarely).
  int on1 = 0;
  for (uint32_t f = 1; f <= 200; ++f) {
    ConWeaveMark m;
    on1 += e.select_conweave(f, 1000, 1 * kUs, paths.data(), m, nullptr) == 1;
  }
  EXPECT_GT(on1, 130);
  EXPECT_EQ(e.counters().conweave_notifies, 1u);
}

TEST(ConWeaveSource, NoMemberUpIsNoMember) {
  LbEngine e(cw_spec(2), 0);
  auto paths = idle_paths(2);
  paths[0].up = paths[1].up = false;
  ConWeaveMark m;
  EXPECT_EQ(e.select_conweave(1, 1000, 0, paths.data(), m, nullptr), kNoMember);
  EXPECT_EQ(e.counters().no_member, 1u);
}

// --- the destination ToR ---

ConWeaveKnobs dest_knobs() {
  ConWeaveKnobs k;
  k.voq_flush_extra_ns = 16 * kUs;
  k.voq_default_wait_ns = 200 * kUs;
  return k;
}

ConWeaveDest::Packet pkt(ConWeaveKind kind, uint8_t phase, uint16_t epoch, uint32_t tx,
                         uint32_t tail) {
  ConWeaveDest::Packet p;
  p.flow = 42;
  p.kind = kind;
  p.phase = phase;
  p.epoch = epoch;
  p.tx_ns = tx;
  p.tail_ns = tail;
  p.out_port = 3;
  return p;
}

TEST(ConWeaveDest, RepliesToInitAndTailAndNotifiesOnCe) {
  ConWeaveDest d(64, 16);
  const ConWeaveKnobs k = dest_knobs();
  auto v = d.on_data(pkt(ConWeaveKind::kInit, 0, 1, 0, 0), 10 * kUs, k);
  EXPECT_EQ(v.reply, ConWeaveKind::kReplyInit);
  EXPECT_EQ(v.reply_epoch, 1);
  EXPECT_EQ(v.reply_phase, 0);
  EXPECT_FALSE(v.hold);
  auto p = pkt(ConWeaveKind::kData, 0, 1, 1000, 0);
  p.ce = true;
  v = d.on_data(p, 11 * kUs, k);
  EXPECT_EQ(v.reply, ConWeaveKind::kData);
  EXPECT_TRUE(v.notify);
  v = d.on_data(pkt(ConWeaveKind::kTail, 0, 1, 9000, 9000), 19 * kUs, k);
  EXPECT_EQ(v.reply, ConWeaveKind::kReplyTail);
  EXPECT_EQ(v.reply_phase, 1);
}

TEST(ConWeaveDest, ReroutedPacketsWaitForTheTailThenLeaveBehindItInOrder) {
  ConWeaveDest d(64, 16);
  const ConWeaveKnobs k = dest_knobs();
  int handles[4] = {0, 1, 2, 3};
  d.on_data(pkt(ConWeaveKind::kInit, 0, 1, 0, 0), 10 * kUs, k);
  // Two phase-1 packets overtake the TAIL (sent at 9 us at the source).
  for (int i = 0; i < 2; ++i) {
    auto v = d.on_data(pkt(ConWeaveKind::kData, 1, 1, 10'000 + i, 9000), (12 + i) * kUs, k);
    ASSERT_TRUE(v.hold);
    ASSERT_TRUE(d.hold(42, &handles[i], static_cast<uint16_t>(i)));
  }
  EXPECT_EQ(d.held_now(), 2u);
  // Predicted: phase 0 arrived at 10 us, the source's gap 9 us, + 16 us.
  EXPECT_EQ(d.next_deadline(3), (10 + 9 + 16) * kUs);
  EXPECT_EQ(d.next_deadline(4), ConWeaveDest::kNever);
  std::vector<int> out;
  auto release = [&](uint16_t port, void* h, uint16_t) {
    EXPECT_EQ(port, 3);
    out.push_back(*static_cast<int*>(h));
  };
  EXPECT_EQ(d.flush_due(20 * kUs, -1, release), 0u);
  // The TAIL passes at once and moves the deadline 1 ns on.
  auto v = d.on_data(pkt(ConWeaveKind::kTail, 0, 1, 9000, 9000), 21 * kUs, k);
  EXPECT_FALSE(v.hold);
  EXPECT_EQ(d.next_deadline(3), 21 * kUs + 1);
  EXPECT_EQ(d.flush_due(21 * kUs + 1, 3, release), 2u);
  EXPECT_EQ(out, (std::vector<int>{0, 1}));
  EXPECT_EQ(d.counters().flush_by_tail, 1u);
  EXPECT_EQ(d.held_now(), 0u);
  // Phase 1 is in order now.
  v = d.on_data(pkt(ConWeaveKind::kData, 1, 1, 10'010, 9000), 22 * kUs, k);
  EXPECT_FALSE(v.hold);
}

TEST(ConWeaveDest, LostTailIsCoveredByTheDeadline) {
  ConWeaveDest d(64, 16);
  const ConWeaveKnobs k = dest_knobs();
  int h = 0;
  // No phase-0 packet was seen: the default wait applies.
  auto v = d.on_data(pkt(ConWeaveKind::kData, 1, 1, 5000, 4000), 50 * kUs, k);
  ASSERT_TRUE(v.hold);
  ASSERT_TRUE(d.hold(42, &h, 0));
  EXPECT_EQ(d.next_deadline(), (50 + 200 + 16) * kUs);
  int n = 0;
  EXPECT_EQ(d.flush_due(266 * kUs, -1, [&](uint16_t, void*, uint16_t) { ++n; }), 1u);
  EXPECT_EQ(d.counters().flush_by_timeout, 1u);
}

TEST(ConWeaveDest, OlderEpochPassesWithoutReply) {
  ConWeaveDest d(64, 16);
  const ConWeaveKnobs k = dest_knobs();
  d.on_data(pkt(ConWeaveKind::kInit, 0, 3, 0, 0), 1 * kUs, k);
  auto v = d.on_data(pkt(ConWeaveKind::kInit, 0, 2, 0, 0), 2 * kUs, k);
  EXPECT_EQ(v.reply, ConWeaveKind::kData);
  EXPECT_FALSE(v.hold);
  // 16-bit epochs wrap as serial numbers.
  for (uint16_t e : {20000, 40000, 60000, 65535})
    d.on_data(pkt(ConWeaveKind::kInit, 0, e, 0, 0), 3 * kUs, k);
  v = d.on_data(pkt(ConWeaveKind::kInit, 0, 0, 0, 0), 4 * kUs, k);
  EXPECT_EQ(v.reply, ConWeaveKind::kReplyInit);
}

TEST(ConWeaveDest, FullPoolIsCounted) {
  ConWeaveDest d(64, 1);
  const ConWeaveKnobs k = dest_knobs();
  int h[2] = {};
  ASSERT_TRUE(d.on_data(pkt(ConWeaveKind::kData, 1, 1, 5000, 4000), 1 * kUs, k).hold);
  EXPECT_TRUE(d.hold(42, &h[0], 0));
  ASSERT_TRUE(d.on_data(pkt(ConWeaveKind::kData, 1, 1, 5001, 4000), 2 * kUs, k).hold);
  EXPECT_FALSE(d.hold(42, &h[1], 0));
  EXPECT_EQ(d.counters().hold_full, 1u);
}

}  // namespace
}  // namespace rocelb
