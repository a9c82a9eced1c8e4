// The reproduction, in process: two worker lcores, one net_pcap port
// replaying RoCEv2 (DSCP 26, lossless class 3) as fast as it can into
// otherwise idle net_null ports, PFC thresholds (500 MB / 400 MB) and queue
// limits (1 GB) far above what the mbuf pool can ever hold. Before the fix
// the PFC held-bytes counter of the source port wrapped when the TX owner of
// an uplink on the other worker released bytes the RX worker had not added
// yet, and the switch paused its own source hundreds of times; it must
// never send a PFC frame here, and its held bytes must always be what is
// really queued.
//
// Held bytes and queue depths are counted in before the hand-off; only a
// thread other than the one adding can see a release that raced ahead. So
// while the switch runs, the test thread (alone on its CPU) reads every
// held-bytes counter and queue depth without pause, and a second test puts the source on a port
// whose PFC state is polled by the other worker (the TX owner of half the uplinks), with a thread
// waking every 20 us on the workers' CPU so that a worker is preempted at many more points of its
// loop (an interleaving the two workers' CPU sharing would otherwise make rare).
#include <gtest/gtest.h>

#include "dataplane/wire/pcap_file.h"
#include "mw_support.h"

namespace rocelb {
namespace {

// 128 RoCE flows from host `in_port` to remote hosts (ECMP over the four
// uplinks), frames of 122, 314 and 1058 bytes.
void write_roce_pcap(const std::string& path, uint8_t in_port) {
  PcapWriter w(path);
  for (int i = 0; i < 128; ++i) {
    static constexpr uint32_t kPayload[] = {64, 256, 1000};
    const auto f =
        mw::roce_frame(in_port, ipv4_bytes(10, 2, static_cast<uint8_t>(i % 16), 9),
                       static_cast<uint16_t>(49152 + i), static_cast<uint32_t>(i), kPayload[i % 3]);
    w.write(1'767'225'600'000'000'000ull + uint64_t(i) * 1000, f.data(),
            static_cast<uint32_t>(f.size()));
  }
  w.close();
}

class NoSpuriousPfc : public mw::MultiWorkerTest {
 protected:
  // Replays RoCE into `source` for four seconds, the other ports idle
  // net_null devices (port 0 one with an RX queue on each worker when the
  // source is another port), and checks everything.
  void run(uint16_t source, bool preempt) {
    const std::string pcap = (dir_ / "roce.pcap").string();
    write_roce_pcap(pcap, static_cast<uint8_t>(source));
    std::vector<std::string> sets;
    for (int p = 0; p < kPorts; ++p) {
      const std::string device =
          p == source ? probe_vdev("net_pcap", p, "rx_pcap=" + pcap + ",infinite_rx=1")
                      : probe_vdev("net_null", p, "no-rx=1");
      sets.push_back("ports[" + std::to_string(p) + "].device=" + device);
    }
    sets.insert(sets.end(), {"qos.pfc.xoff=500MB", "qos.pfc.xon=400MB", "qos.queue_limit=1GB"});
    LiveOptions opt;
    // Egress rings longer than the pool: a queue of an uplink whose worker
    // is descheduled may hold every mbuf without a ring-full drop.
    opt.ring_capacity = 32768;
    ASSERT_NO_FATAL_FAILURE(start_switch(sets, opt));
    Dataplane& dp = live_->dataplane();

    std::atomic<bool> stop_noise{false};
    std::thread noise;
    if (preempt)
      noise = std::thread([&] {
        mw::pin_to_worker_cpu();
        while (!stop_noise.load()) std::this_thread::sleep_for(std::chrono::microseconds(20));
      });
    // Four seconds of line-rate replay. Meanwhile nothing may be asserted
    // and no held-bytes counter or queue depth may ever exceed what the pool
    // can hold (a release or dequeue ahead of its count-in reads near 2^64).
    uint64_t max_held = 0, max_depth = 0, samples = 0, wrapped = 0, wrapped_depth = 0;
    uint8_t asserted = 0;
    constexpr uint64_t kWrapped = uint64_t{1} << 40;
    const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(4);
    while (std::chrono::steady_clock::now() < end) {
      for (uint16_t port : dp.config().port_ids) {
        asserted |= dp.pfc().asserted_mask(port);
        for (int p = 0; p < kPfcPriorities; ++p) {
          const uint64_t h = dp.pfc().held_bytes(port, static_cast<uint8_t>(p));
          wrapped += h >= kWrapped;
          max_held = std::max(max_held, h);
          const uint64_t d = dp.tx(port).queues[p].depth_bytes();
          wrapped_depth += d >= kWrapped;
          max_depth = std::max(max_depth, d);
        }
      }
      ++samples;
    }
    stop_noise.store(true);
    if (noise.joinable()) noise.join();
    stop_switch();
    EXPECT_EQ(asserted, 0) << "XOFF asserted towards some port during the run";
    EXPECT_EQ(wrapped, 0u) << "samples of a held-bytes counter above 2^40 (max " << max_held
                           << "): a release ran ahead of its add";
    EXPECT_EQ(wrapped_depth, 0u) << "samples of a queue depth above 2^40 (max " << max_depth
                                 << "): a dequeue ran ahead of the count-in";

    const Json j = counters();
    const uint64_t rx = j["totals"]["rx_packets"];
    EXPECT_GT(rx, mw::kTsan ? 1'000u : 100'000u) << "the source hardly ran";
    EXPECT_EQ(j["totals"]["dropped_packets"], 0) << j["ports"].dump();
    EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
    EXPECT_EQ(j["totals"]["generated_packets"], 0);
    for (uint16_t port : dp.config().port_ids) {
      const Json& p = mw::port_json(j, port);
      EXPECT_EQ(p["generated_pfc_frames"], 0) << "port " << port;
      for (int prio = 0; prio < kPfcPriorities; ++prio) {
        EXPECT_EQ(p["pfc"]["pfc_tx_frames"][prio], 0) << "port " << port << " priority " << prio;
        EXPECT_EQ(p["pfc"]["lossless_dropped"][prio], 0) << "port " << port << " priority " << prio;
      }
      EXPECT_EQ(dp.pfc().asserted_mask(port), 0) << "port " << port;
    }

    // Traffic really crossed workers: one worker received everything (the
    // source is a single-queue device), and uplinks transmitted by the other
    // worker sent their share, as did those of the receiving worker.
    ASSERT_TRUE(j.contains("lcores"));
    ASSERT_EQ(j["lcores"].size(), 2u);
    const uint64_t rx0 = j["lcores"][0]["rx_packets"], rx1 = j["lcores"][1]["rx_packets"];
    ASSERT_TRUE((rx0 > 0) != (rx1 > 0)) << "rx per worker: " << rx0 << ", " << rx1;
    const unsigned rx_worker = rx0 > 0 ? 0 : 1;
    if (source != 0) {
      EXPECT_NE(dp.tx_owner(source), rx_worker)
          << "the source's PFC state must be polled by the worker that does not receive it";
    }
    int crossed = 0, local = 0;
    for (uint16_t port = 4; port < 8; ++port) {
      const uint64_t tx = mw::port_json(j, port)["tx_packets"];
      EXPECT_GT(tx, 0u) << "uplink " << port << " sent nothing";
      (dp.tx_owner(port) == rx_worker ? local : crossed) += tx > 0;
    }
    EXPECT_EQ(crossed, 2) << "uplinks transmitted by the other worker";
    EXPECT_EQ(local, 2) << "uplinks transmitted by the receiving worker";
    EXPECT_GT(j["lcores"][1 - rx_worker]["tx_packets"].get<uint64_t>(), 0u);

    // Stopped, nothing moves: the held bytes are exactly what is queued;
    // once that is sent they are 0 everywhere.
    mw::expect_held_matches_queues(dp);
    mw::drain_as_owner(dp, live_->now_ns());
    mw::expect_queues_empty(dp);
    mw::expect_nothing_held(dp);
    RecordProperty("rx_packets", std::to_string(rx));
    RecordProperty("held_samples", std::to_string(samples));
    EXPECT_EQ(live_->shutdown(), 0u);
  }
};

// The layout: the source on port 0 (received and PFC-polled by the
// same worker), uplinks 5 and 7 transmitted by the other.
TEST_F(NoSpuriousPfc, OneRoceSourceIntoIdlePortsOfBothWorkers) {
  run(0, false);
}

// The source on port 1, received by one worker, transmitted (its PFC state
// polled) by the other, which also releases the bytes of uplinks 5 and 7;
// the workers preempted often.
TEST_F(NoSpuriousPfc, SourcePolledByTheOtherWorkerUnderPreemption) {
  run(1, true);
}

}  // namespace
}  // namespace rocelb
