// PFC live with two workers, both directions:
//  - generated: a lossless burst into a port received by one worker, to a
//    slow port transmitted by the other, crosses XOFF; the ingress port's TX
//    owner sends a priority-3 XOFF, and an XON once the slow port has
//    drained, and every held byte comes back;
//  - received: a PFC frame that arrives on a port's RX queue polled by the
//    worker that does not transmit the port stops that port's class 3 (its
//    queue builds, other classes still flow) until an XON arrives the same
//    way.
#include <gtest/gtest.h>

#include "dataplane/wire/mac_control.h"
#include "mw_support.h"
#include "pfc/pfc_frame.h"

namespace rocelb {
namespace {

using mw::MultiWorkerTest;

struct Collected {
  std::vector<PfcFrame> pfc;  // PFC frames, in order
  std::vector<uint32_t> psn;  // data frames' PSN, in order
  std::vector<uint8_t> dscp;  // data frames' DSCP, in order
  uint64_t other = 0;         // anything else
};

class LivePfc : public MultiWorkerTest {
 protected:
  // Takes what every port sent into out[port].
  void collect() {
    rte_mbuf* m[64];
    for (int p = 0; p < kPorts; ++p) {
      const unsigned n = take_tx(p, m, 64);
      for (unsigned i = 0; i < n; ++i) {
        const uint8_t* d = rte_pktmbuf_mtod(m[i], const uint8_t*);
        PfcFrame f;
        ParsedPacket pp;
        if (decode_pfc(d, m[i]->data_len, f) == PfcDecodeResult::kOk) {
          out_[p].pfc.push_back(f);
        } else if (parse_frame(d, m[i]->data_len, m[i]->pkt_len, pp) == ParseResult::ok &&
                   pp.is_rocev2) {
          out_[p].psn.push_back(pp.bth_psn);
          out_[p].dscp.push_back(pp.dscp);
        } else {
          ++out_[p].other;
        }
        mbuf_free(m[i]);
      }
    }
  }
  uint64_t lcore_rx(unsigned w) const { return live_->dataplane().worker(w).lcore.rx_packets; }

  std::array<Collected, kPorts> out_;
};

bool in_order(const std::vector<uint32_t>& psn) {
  for (size_t i = 0; i < psn.size(); ++i)
    if (psn[i] != i) return false;
  return true;
}

TEST_F(LivePfc, PfcGeneratedAcrossWorkersPausesAndResumesTheSender) {
  std::vector<std::string> sets;
  for (int p = 0; p < kPorts; ++p) ASSERT_NO_THROW(sets.push_back(ring_port(p)));
  // Hosts 2 and 3 behind 100 Mb/s links; XOFF at 16 KB held, XON under 8 KB,
  // headroom enough for the whole burst (nothing dropped for headroom).
  sets.insert(sets.end(), {"ports[2].speed=100M", "ports[3].speed=100M", "qos.pfc.xoff=16KB",
                           "qos.pfc.xon=8KB", "qos.pfc.headroom=1MB"});
  ASSERT_NO_FATAL_FAILURE(start_switch(sets));
  Dataplane& dp = live_->dataplane();

  // host0 -> host3 and host1 -> host2: 128 lossless frames of 1058 bytes
  // each (135 KB, 8x XOFF), one port after the other, so that the worker
  // that received each is known.
  constexpr uint32_t kFrames = 128;
  const std::array<std::pair<int, int>, 2> pairs = {{{0, 3}, {1, 2}}};
  for (const auto& [in, to] : pairs) {
    const uint64_t before[2] = {lcore_rx(0), lcore_rx(1)};
    for (uint32_t i = 0; i < kFrames; ++i)
      ASSERT_TRUE(inject(
          in, mw::roce_frame(static_cast<uint8_t>(in),
                             ipv4_bytes(10, 0, static_cast<uint8_t>(to), 2), 49152, i, 1000)));
    ASSERT_TRUE(
        mw::wait_for([&] { return lcore_rx(0) + lcore_rx(1) == before[0] + before[1] + kFrames; },
                     std::chrono::seconds(20), [&] { collect(); }));
    const unsigned rx_worker = lcore_rx(0) > before[0] ? 0 : 1;
    EXPECT_EQ(lcore_rx(rx_worker), (rx_worker == 0 ? before[0] : before[1]) + kFrames);
    EXPECT_NE(rx_worker, dp.tx_owner(static_cast<uint16_t>(to)))
        << "port " << in << " must be received by the worker that does not transmit port " << to;
  }
  auto released = [&](int in) {
    return !out_[in].pfc.empty() && out_[in].pfc.back().quanta[3] == 0 &&
           dp.pfc().asserted_mask(static_cast<uint16_t>(in)) == 0 &&
           dp.pfc().held_bytes(static_cast<uint16_t>(in), 3) == 0;
  };
  EXPECT_TRUE(mw::wait_for(
      [&] {
        return out_[3].psn.size() == kFrames && out_[2].psn.size() == kFrames && released(0) &&
               released(1);
      },
      std::chrono::seconds(30), [&] { collect(); }));
  stop_switch();
  collect();

  const Json j = counters();
  for (const auto& [in, to] : pairs) {
    SCOPED_TRACE("host" + std::to_string(in) + " -> host" + std::to_string(to));
    EXPECT_EQ(out_[to].psn.size(), kFrames);
    EXPECT_TRUE(in_order(out_[to].psn));
    EXPECT_TRUE(out_[in].psn.empty());
    EXPECT_EQ(out_[in].other + out_[to].other + out_[to].pfc.size(), 0u);
    const std::vector<PfcFrame>& f = out_[in].pfc;
    ASSERT_GE(f.size(), 2u) << "no XOFF then XON on the ingress port";
    EXPECT_EQ(f.front().class_enable, 0x08);
    EXPECT_EQ(f.front().quanta[3], 65535) << "the first PFC frame is an XOFF";
    EXPECT_EQ(f.back().class_enable, 0x08);
    EXPECT_EQ(f.back().quanta[3], 0) << "the last PFC frame is an XON";
    uint64_t xon = 0;
    for (const PfcFrame& x : f) {
      EXPECT_EQ(x.class_enable, 0x08) << "priority 3 only";
      xon += x.quanta[3] == 0;
    }
    const Json& pj = mw::port_json(j, in);
    EXPECT_EQ(pj["generated_pfc_frames"], f.size());
    EXPECT_GE(pj["pfc"]["pfc_tx_frames"][3].get<uint64_t>(), f.size());
    EXPECT_EQ(pj["pfc"]["pfc_tx_xon_frames"][3], xon);
    EXPECT_GT(pj["pfc"]["xoff_asserted_us"][3].get<uint64_t>(), 0u);
    EXPECT_EQ(pj["pfc"]["lossless_dropped"][3], 0);
    EXPECT_EQ(pj["rx_packets"], kFrames);
    EXPECT_EQ(mw::port_json(j, to)["tx_packets"], kFrames);
  }
  EXPECT_EQ(j["totals"]["dropped_packets"], 0);
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(j["totals"]["generated_packets"], out_[0].pfc.size() + out_[1].pfc.size());
  mw::expect_queues_empty(dp);
  mw::expect_nothing_held(dp);
  EXPECT_EQ(live_->shutdown(), 0u);
}

TEST_F(LivePfc, PfcReceivedByTheOtherWorkerStopsAndResumesTheClass) {
  // Port 0 is a net_null device with RSS: it takes an RX queue on each
  // worker, so every later single-queue port is received by the worker that
  // does not transmit it.
  std::vector<std::string> sets;
  ASSERT_NO_THROW(sets.push_back("ports[0].device=" + probe_vdev("net_null", 0, "no-rx=1")));
  for (int p = 1; p < kPorts; ++p) ASSERT_NO_THROW(sets.push_back(ring_port(p)));
  // Host 1 behind a 1 Mb/s link: a full pause (65535 quanta) lasts 33.5 s,
  // far longer than the test waits. No watchdog: the paused queue must stay.
  sets.insert(sets.end(), {"ports[1].speed=1M", "qos.pfc_watchdog.enabled=false"});
  ASSERT_NO_FATAL_FAILURE(start_switch(sets));
  Dataplane& dp = live_->dataplane();
  const unsigned owner = dp.tx_owner(1);
  const PauseReceiver& pr = dp.tx(1).pause;

  // XOFF for priority 3 from host 1's NIC.
  ASSERT_TRUE(inject(1, mw::pfc_frame(1, 65535)));
  ASSERT_TRUE(mw::wait_for([&] { return pr.rx_frames(3) == 1; }, std::chrono::seconds(20)));
  // The receiving worker counts its burst at the end of its loop, after the
  // owner may already have applied the pause: wait for the count too.
  EXPECT_TRUE(mw::wait_for([&] { return lcore_rx(1 - owner) == 1; }, std::chrono::seconds(20)))
      << "worker " << 1 - owner << " received " << lcore_rx(1 - owner);
  EXPECT_EQ(lcore_rx(owner), 0u) << "the port's own TX owner received the PFC frame";

  // host3 -> host1: 32 lossless frames (class 3) and 16 of class 0.
  constexpr uint32_t kLossless = 32, kLossy = 16;
  for (uint32_t i = 0; i < kLossless; ++i)
    ASSERT_TRUE(inject(3, mw::roce_frame(3, ipv4_bytes(10, 0, 1, 2), 49152, i, 64)));
  for (uint32_t i = 0; i < kLossy; ++i)
    ASSERT_TRUE(inject(3, mw::roce_frame(3, ipv4_bytes(10, 0, 1, 2), 49153, i, 64, 0)));
  const EgressQueue& q3 = dp.tx(1).queues[3];
  ASSERT_TRUE(
      mw::wait_for([&] { return out_[1].psn.size() >= kLossy && q3.depth_packets() == kLossless; },
                   std::chrono::seconds(20), [&] { collect(); }))
      << "out of port 1: " << out_[1].psn.size() << ", class 3 queued " << q3.depth_packets();
  collect();
  // Class 0 went out; class 3 is held in its queue while paused.
  EXPECT_EQ(out_[1].psn.size(), kLossy);
  EXPECT_TRUE(std::all_of(out_[1].dscp.begin(), out_[1].dscp.end(), [](uint8_t d) {
    return d == 0;
  })) << "a class-3 frame left port 1 while it was paused";
  EXPECT_EQ(q3.depth_packets(), kLossless);
  EXPECT_NE(pr.paused_mask(live_->now_ns()) & 0x08, 0);

  // XON the same way: the class drains, in order.
  ASSERT_TRUE(inject(1, mw::pfc_frame(1, 0)));
  EXPECT_TRUE(mw::wait_for([&] { return out_[1].psn.size() == kLossy + kLossless; },
                           std::chrono::seconds(20), [&] { collect(); }));
  stop_switch();
  collect();

  std::vector<uint32_t> lossless;
  for (size_t i = 0; i < out_[1].psn.size(); ++i)
    if (out_[1].dscp[i] == 26) lossless.push_back(out_[1].psn[i]);
  EXPECT_EQ(lossless.size(), kLossless);
  EXPECT_TRUE(in_order(lossless));
  EXPECT_EQ(lcore_rx(owner), 0u);
  EXPECT_EQ(lcore_rx(1 - owner), 2u + kLossless + kLossy);

  const Json j = counters();
  const Json& p1 = mw::port_json(j, 1);
  EXPECT_EQ(p1["rx_pfc_frames"], 2);
  EXPECT_EQ(p1["consumed_pfc"], 2);
  EXPECT_EQ(p1["pfc"]["pfc_rx_frames"][3], 2);
  EXPECT_EQ(p1["pfc"]["pfc_rx_xon_frames"][3], 1);
  EXPECT_GT(p1["pfc"]["pfc_rx_pause_us"][3].get<uint64_t>(), 0u);
  EXPECT_EQ(p1["drops"]["pause_inbox_full"], 0);
  EXPECT_EQ(p1["tx_packets"], kLossless + kLossy);
  EXPECT_EQ(j["totals"]["dropped_packets"], 0);
  EXPECT_EQ(j["totals"]["generated_packets"], 0);
  EXPECT_EQ(j["totals"]["conserved"], true);
  mw::expect_queues_empty(dp);
  mw::expect_nothing_held(dp);
  EXPECT_EQ(live_->shutdown(), 0u);
}

}  // namespace
}  // namespace rocelb
