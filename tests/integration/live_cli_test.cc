// rocelb-dp run as a user starts it: live on net_pcap vdevs (any PMD works
// the same way), stopped by SIGTERM, final counters printed, no mbuf left.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "dataplane/wire/conweave_shim.h"
#include "dataplane/wire/packet_builder.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "live_run.h"
#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;

// Writes in<P>.pcap for the 8 ports of the default switch, 100 RoCEv2 frames
// on the ports that send (port 0 to remote hosts behind the uplinks, any
// other to host 2), and returns the --set options giving every port a
// net_pcap device reading it and writing out<P>.pcap.
std::string pcap_ports(const fs::path& dir, const std::vector<int>& senders) {
  std::string sets;
  for (int p = 0; p < 8; ++p) {
    const std::string in = (dir / ("in" + std::to_string(p) + ".pcap")).string();
    PcapWriter w(in);
    const bool sends = std::find(senders.begin(), senders.end(), p) != senders.end();
    for (int i = 0; i < 100 && sends; ++i) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, static_cast<uint8_t>(p)};
      s.src_ip = ipv4_bytes(10, 0, static_cast<uint8_t>(p), 2);
      s.dst_ip = p == 0 ? ipv4_bytes(10, 2, 0, 9) : ipv4_bytes(10, 0, 2, 2);
      s.dscp = 26;
      s.sport = static_cast<uint16_t>(49152 + i);
      s.payload_len = 512;
      const auto f = build_frame(s);
      w.write(1'767'225'600'000'000'000ull + i * 1000, f.data(), static_cast<uint32_t>(f.size()));
    }
    w.close();
    sets += " --set 'ports[" + std::to_string(p) + "].device=net_pcap" + std::to_string(p) +
            ",rx_pcap=" + in +
            ",tx_pcap=" + (dir / ("out" + std::to_string(p) + ".pcap")).string() + "'";
  }
  return sets;
}

TEST(LiveCli, ForwardsOnPcapVdevsAndStopsCleanlyOnSigterm) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-live-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // Port 0 sends to remote hosts (ECMP), port 1 to host 2 (connected).
  const std::string sets = pcap_ports(dir, {0, 1});
  const auto counters = dir / "counters.json";
  test::LiveRun run(dir, sets + " --counters-out " + counters.string());
  ASSERT_TRUE(run.wait_ready()) << run.err();
  EXPECT_TRUE(run.wait_until([&] { return run.total_counter("tx_packets") == 200; }));
  const auto r = run.stop();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_EQ(j["totals"]["rx_packets"], 200);
  EXPECT_EQ(j["totals"]["tx_packets"], 200);
  EXPECT_EQ(j["totals"]["conserved"], true);
  auto frames = [&](int p) {
    PcapReader rd((dir / ("out" + std::to_string(p) + ".pcap")).string());
    PcapRecord rec;
    int n = 0;
    while (rd.next(rec)) ++n;
    return n;
  };
  EXPECT_EQ(frames(2), 100);
  EXPECT_EQ(frames(4) + frames(5) + frames(6) + frames(7), 100);
  EXPECT_EQ(frames(0) + frames(1) + frames(3), 0);
  fs::remove_all(dir);
}

// Mode conweave live, one worker: what port 0 sends to remote hosts leaves
// the uplinks with ConWeave's header (IPv4 protocol 253, 16 bytes more), the
// first packet of each flow an RTT request; nothing is left held or lost.
TEST(LiveCli, ConWeaveMarksWhatLeavesTheUplinks) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-live-cw-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string sets = pcap_ports(dir, {0});
  const auto counters = dir / "counters.json";
  test::LiveRun run(
      dir, sets + " --set groups.uplinks.mode=conweave --counters-out " + counters.string());
  ASSERT_TRUE(run.wait_ready()) << run.err();
  EXPECT_TRUE(run.wait_until([&] { return run.total_counter("tx_packets") == 100; }));
  const auto r = run.stop();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_EQ(j["totals"]["conserved"], true);
  EXPECT_EQ(j["groups"][0]["conweave_epochs"], 100);  // 100 flows, one packet each
  int marked = 0, requests = 0;
  for (int p = 4; p < 8; ++p) {
    PcapReader rd((dir / ("out" + std::to_string(p) + ".pcap")).string());
    for (PcapRecord rec; rd.next(rec);) {
      ParsedPacket pp;
      ASSERT_EQ(parse_frame(rec.data, rec.caplen, rec.origlen, pp), ParseResult::ok);
      ASSERT_EQ(pp.proto, kIpProtoConWeave);
      ConWeaveShim sh;
      ASSERT_TRUE(read_conweave_shim(rec.data + pp.l4_offset, sh));
      EXPECT_EQ(sh.path, p - 4);
      requests += sh.kind == ConWeaveKind::kInit;
      ++marked;
    }
  }
  EXPECT_EQ(marked, 100);
  EXPECT_EQ(requests, 100);
  fs::remove_all(dir);
}

// A net_ring port sends to itself: what port 3 transmits comes back in on
// it (and is dropped there: the host's MAC is not the switch's). Frames
// still in that ring when the switch stops are not a leak: the stop frees
// them, the run exits 0 with every mbuf back and balanced counters.
TEST(LiveCli, LoopbackRingPortLeavesNoMbufAtStop) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-live-ring-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string in = (dir / "in0.pcap").string();
  {
    PcapWriter w(in);
    for (int i = 0; i < 64; ++i) {
      FrameSpec s;
      s.dst_mac = {0x02, 0, 0, 0, 0, 0};
      s.src_ip = ipv4_bytes(10, 0, 0, 2);
      s.dst_ip = ipv4_bytes(10, 0, 3, 2);
      s.sport = static_cast<uint16_t>(49152 + i);
      s.payload_len = 256;
      const auto f = build_frame(s);
      w.write(1'767'225'600'000'000'000ull + i * 1000, f.data(), static_cast<uint32_t>(f.size()));
    }
    w.close();
  }
  std::string sets = " --set 'ports[0].device=net_pcap0,rx_pcap=" + in + ",infinite_rx=1'";
  for (int p = 1; p < 8; ++p)
    sets += p == 3 ? " --set ports[3].device=net_ring3"
                   : " --set 'ports[" + std::to_string(p) + "].device=net_null" +
                         std::to_string(p) + ",no-rx=1'";
  const auto counters = dir / "counters.json";
  test::LiveRun run(dir, sets + " --counters-out " + counters.string());
  ASSERT_TRUE(run.wait_ready()) << run.err();
  // Stopped while the ring has traffic in it: frames have come back already.
  EXPECT_TRUE(run.wait_until([&] { return run.port_counter(3, "rx_packets") > 1000; }));
  const auto r = run.stop();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_GT(j["ports"][3]["tx_packets"].get<uint64_t>(), 0u);
  EXPECT_GT(j["ports"][3]["rx_packets"].get<uint64_t>(), 0u);  // it came back
  EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
  fs::remove_all(dir);
}

// SIGTERM while EAL and the ports are still coming up is a stop like any
// other: kept until the switch is up, then honoured with the final counters
// and exit 0 (the default action killed the switch with 143 before).
TEST(LiveCli, SigtermDuringStartUpStopsCleanly) {
  const fs::path dir =
      fs::temp_directory_path() / ("rocelb-live-early-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string sets;
  for (int p = 0; p < 8; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
  const auto counters = dir / "counters.json";
  // A large pool keeps the start-up long enough to be caught in it.
  test::LiveRun run(dir, " --mbufs 262143" + sets + " --counters-out " + counters.string());
  ASSERT_TRUE(run.wait_until([&] { return run.err().find("EAL:") != std::string::npos; }, 120, 5))
      << run.err();
  const auto r = run.stop();  // one SIGTERM (a second would kill it)
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("stop asked for during start-up: stopping"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("forwarding on"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_EQ(j["totals"]["conserved"], true);
  fs::remove_all(dir);
}

TEST(LiveCli, PortWithoutDeviceIsAUsageError) {
  const fs::path dir =
      fs::temp_directory_path() / ("rocelb-live-nodev-" + std::to_string(getpid()));
  fs::create_directories(dir);
  const auto r = test::run_command(test::bin("dataplane/rocelb-dp") + " run", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("ports[0].device: missing"), std::string::npos) << r.err;
  fs::remove_all(dir);
}

// --mbufs: below its floor a usage error; a pool that the ports' RX rings
// would take whole is refused at start with what to raise; a small pool
// that fits forwards everything and gives every mbuf back.
TEST(LiveCli, MbufsTooFewAreRefusedAndASmallPoolForwards) {
  const fs::path dir =
      fs::temp_directory_path() / ("rocelb-live-mbufs-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string dp = test::bin("dataplane/rocelb-dp");
  auto r = test::run_command(dp + " run --mbufs 1000", dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--mbufs 1000: must be at least 2047"), std::string::npos) << r.err;

  // Two tap ports: each fills its 1024 RX descriptors from the pool.
  if (geteuid() == 0) {
    std::string taps;
    for (int p = 0; p < 8; ++p)
      taps += " --set 'ports[" + std::to_string(p) + "].device=" +
              (p < 2 ? "net_tap" + std::to_string(p) + ",iface=rlmb" + std::to_string(p) + "_" +
                           std::to_string(getpid() % 100000)
                     : "net_null" + std::to_string(p)) +
              "'";
    r = test::run_command(
        dp + " run --mbufs 2047" + taps + " --set control.socket=" + (dir / "sock").string(), dir);
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_NE(r.err.find("mbufs free once the ports' RX rings are filled; at least 1024 must be: "
                         "raise --mbufs"),
              std::string::npos)
        << r.err;
  }

  const std::string sets = pcap_ports(dir, {0, 1});
  const auto counters = dir / "counters.json";
  test::LiveRun run(dir, " --mbufs 2047" + sets + " --counters-out " + counters.string());
  ASSERT_TRUE(run.wait_ready()) << run.err();
  EXPECT_TRUE(run.wait_until([&] { return run.total_counter("tx_packets") == 200; }));
  r = run.stop();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_EQ(j["totals"]["tx_packets"], 200);
  EXPECT_EQ(j["totals"]["conserved"], true);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// SIGHUP: the file is validated again and published; a broken file is
// refused with its error and the running config stays.
TEST(LiveCli, SighupReloadsAndRefusesABrokenFile) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-hup-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string base = test::read_file(test::src("configs/default.yaml"));
  const fs::path cfg = dir / "switch.yaml";
  auto write = [&](const std::string& text) {
    std::ofstream f(cfg);
    f << text;
  };
  write(base);
  std::string sets;
  for (int p = 0; p < 8; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
  test::LiveRun run(dir, " --config " + cfg.string() + sets);
  ASSERT_TRUE(run.wait_ready()) << run.err();
  auto err_has = [&](const std::string& s) { return run.err().find(s) != std::string::npos; };
  auto wait_for = [&](const std::string& s) { return run.wait_until([&] { return err_has(s); }); };

  std::string changed = base;
  const auto at = changed.find("mode: fixed");
  ASSERT_NE(at, std::string::npos);
  changed.replace(at, 11, "mode: flowlet_quality");
  write(changed);
  run.signal(SIGHUP);
  EXPECT_TRUE(wait_for("config reloaded (generation 2)")) << test::read_file(dir / "err");

  write(base + "\nnonsense_key: 1\n");
  run.signal(SIGHUP);
  EXPECT_TRUE(wait_for("reload refused, the running config stays")) << test::read_file(dir / "err");
  EXPECT_TRUE(err_has("nonsense_key: unknown key"));

  const auto r = run.stop();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string& out = r.out;
  EXPECT_NE(out.find("group uplinks (flowlet_quality)"), std::string::npos) << out;
  EXPECT_NE(out.find("mbufs still in use: 0"), std::string::npos) << out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb

namespace rocelb {
namespace {

// DPDK telemetry: dpdk-telemetry.py reads rocelb's counters like any DPDK
// application's while the switch runs.
TEST(LiveCli, DpdkTelemetryShowsRocelbCounters) {
  ASSERT_EQ(access("/usr/bin/dpdk-telemetry.py", X_OK), 0)
      << "dpdk-telemetry.py (package dpdk-dev) is missing";
  const fs::path dir = fs::temp_directory_path() / ("rocelb-tel-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string prefix = "rocelbtel" + std::to_string(getpid());
  std::string sets;
  for (int p = 0; p < 8; ++p)
    sets += " --set ports[" + std::to_string(p) + "].device=net_null" + std::to_string(p);
  test::LiveRun run(dir, sets + " -- --file-prefix " + prefix);
  ASSERT_TRUE(run.wait_ready()) << run.err();
  auto query = [&](const std::string& cmd) {
    return test::run_command("(echo '" + cmd + "' | dpdk-telemetry.py -f " + prefix + ")", dir).out;
  };
  const std::string ports = query("/rocelb/ports");
  const std::string port = query("/rocelb/port,4");
  const std::string groups = query("/rocelb/groups");
  const std::string pfc = query("/rocelb/pfc,3");
  const auto r = run.stop();
  EXPECT_NE(ports.find("[0, 1, 2, 3, 4, 5, 6, 7]"), std::string::npos) << ports;
  EXPECT_NE(port.find("\"rx_packets\": "), std::string::npos) << port;
  EXPECT_NE(port.find("\"drops/dst_mac_not_accepted\": "), std::string::npos) << port;
  EXPECT_NE(groups.find("\"uplinks/decisions\": "), std::string::npos) << groups;
  EXPECT_NE(pfc.find("\"pfc_rx_frames/p3\": "), std::string::npos) << pfc;
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("mbufs still in use: 0"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// --idle-sleep-max: forwarding is unchanged, and once the input is done the
// worker sleeps instead of spinning a core (CPU time well under the wall time).
TEST(LiveCli, IdleWorkerSleepsAndStillForwardsEverything) {
  const fs::path dir = fs::temp_directory_path() / ("rocelb-sleep-" + std::to_string(getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string sets = pcap_ports(dir, {1});  // 100 frames to host 2
  const auto counters = dir / "counters.json";
  // One forwarding lcore (-l 0-1: the main lcore serves the control socket).
  test::LiveRun run(
      dir, sets + " --counters-out " + counters.string() + " --idle-sleep-max 1ms -- -l 0-1");
  ASSERT_TRUE(run.wait_ready()) << run.err();
  ASSERT_TRUE(run.wait_until([&] { return run.total_counter("tx_packets") == 100; }));
  // Then 4 s with nothing to do.
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const auto r = run.stop();
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = nlohmann::json::parse(test::read_file(counters));
  EXPECT_EQ(j["totals"]["rx_packets"], 100);
  EXPECT_EQ(j["totals"]["tx_packets"], 100);
  EXPECT_EQ(j["totals"]["conserved"], true);
  uint64_t sleeps = 0, sleep_ns = 0;
  for (const auto& l : j["lcores"]) {
    sleeps += l["sleeps"].get<uint64_t>();
    sleep_ns += l["sleep_ns"].get<uint64_t>();
  }
  EXPECT_GT(sleeps, 100u);
  EXPECT_GT(sleep_ns, 3'000'000'000u);  // most of the 4 idle seconds
  EXPECT_LT(run.cpu_seconds(), 2.5) << "a worker spinning for 4 s would use about 4 s of CPU";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb
