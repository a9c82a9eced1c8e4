// The real thing on Linux: `rocelb-dp run --config configs/live-vdev.yaml`
// with its ports on tap interfaces, two of them moved into network
// namespaces that act as hosts 0 and 3 (host MACs, 10.0.N.2/24,
// fd00:0:N::2/64, default routes via the switch). The hosts resolve their
// gateway with ARP and IPv6 neighbor discovery, ping each other through the
// switch (TTL / hop limit 63 in the replies) and ping the gateway itself over
// IPv4 and IPv6; then SIGTERM stops the switch, which exits 0 with no mbuf in
// use and conserved counters. Needs root and `ip netns` (skipped otherwise).
// The tap interfaces and namespaces get per-run names (the test's pid), so
// runs do not collide with each other or with a switch started by hand; the
// namespaces are deleted even when the test fails.
#include <gtest/gtest.h>
#include <net/if.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "run_command.h"

namespace rocelb {
namespace {
namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

// rocelb-dp in the background: started through /bin/sh (which execs it, so
// the pid is the switch's), stopped by a signal; killed if still running
// when this object goes away.
class Background {
 public:
  explicit Background(const std::string& cmd) {
    pid_ = fork();
    if (pid_ == 0) {
      execl("/bin/sh", "sh", "-c", ("exec " + cmd).c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
  }
  ~Background() {
    if (!running()) return;
    kill(pid_, SIGTERM);
    if (wait_exit(milliseconds(5000))) return;
    kill(pid_, SIGKILL);
    wait_exit(milliseconds(5000));
  }
  Background(const Background&) = delete;
  Background& operator=(const Background&) = delete;

  bool started() const { return pid_ > 0; }
  bool running() {
    if (pid_ <= 0) return false;
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      status_ = st;
      pid_ = -1;
      return false;
    }
    return true;
  }
  // True once the process has exited (within timeout); exit_code() then
  // tells how.
  bool wait_exit(milliseconds timeout) {
    const auto end = Clock::now() + timeout;
    while (running()) {
      if (Clock::now() > end) return false;
      std::this_thread::sleep_for(milliseconds(20));
    }
    return true;
  }
  bool signal(int sig) { return pid_ > 0 && kill(pid_, sig) == 0; }
  int exit_code() const {
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }

 private:
  pid_t pid_ = -1;
  int status_ = 0;
};

// Network namespaces deleted on the way out, whatever happened.
struct Namespaces {
  std::vector<std::string> names;
  ~Namespaces() { clear(); }
  void clear() {
    for (const auto& n : names) {
      const std::string cmd = "ip netns del " + n + " >/dev/null 2>&1";
      EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    }
    names.clear();
  }
};

struct Host {
  int port;           // switch port and subnet number N
  std::string iface;  // the port's tap interface
  std::string ns;     // the namespace it moves into
};

// Runs a shell command inside namespace ns.
test::CommandResult in_ns(const std::string& ns, const std::string& cmd, const fs::path& scratch) {
  return test::run_command("ip netns exec " + ns + " " + cmd, scratch);
}

TEST(LiveNetns, HostsPingEachOtherAndTheGatewayOverIpv4AndIpv6) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root (tap interfaces, network namespaces)";
  const std::string tag = std::to_string(getpid());
  const fs::path dir = fs::temp_directory_path() / ("rocelb-netns-" + tag);
  fs::remove_all(dir);
  fs::create_directories(dir);
  if (test::run_command("ip netns list", dir).exit_code != 0)
    GTEST_SKIP() << "`ip netns` is not available";

  Namespaces namespaces;
  // Unique tap names (at most 15 characters) instead of the config's rl0..rl7.
  std::string sets;
  std::vector<std::string> ifaces;
  for (int p = 0; p < 8; ++p) {
    ifaces.push_back("rl" + tag + "p" + std::to_string(p));
    sets += " --set 'ports[" + std::to_string(p) + "].device=net_tap" + std::to_string(p) +
            ",iface=" + ifaces.back() + "'";
  }
  const fs::path out = dir / "switch.stdout";
  const fs::path err = dir / "switch.stderr";
  const fs::path counters = dir / "counters.json";
  Background sw(test::bin("dataplane/rocelb-dp") + " run --config " +
                test::src("configs/live-vdev.yaml") + sets +
                " --set control.socket=" + (dir / "sock").string() + " --counters-out " +
                counters.string() + " >" + out.string() + " 2>" + err.string() + " </dev/null");
  ASSERT_TRUE(sw.started());

  // Ready once the ports are started (the message follows) and the tap
  // interfaces exist.
  auto ready = [&] {
    if (test::read_file(err).find("forwarding on") == std::string::npos) return false;
    for (const auto& i : ifaces)
      if (if_nametoindex(i.c_str()) == 0) return false;
    return true;
  };
  const auto deadline = Clock::now() + std::chrono::seconds(15);
  while (!ready()) {
    ASSERT_TRUE(sw.running()) << "rocelb-dp exited early (" << sw.exit_code() << "):\n"
                              << test::read_file(out) << test::read_file(err);
    ASSERT_LT(Clock::now(), deadline) << "tap interfaces did not appear:\n" << test::read_file(err);
    std::this_thread::sleep_for(milliseconds(50));
  }

  const std::vector<Host> hosts = {{0, ifaces[0], "rocelb-" + tag + "-h0"},
                                   {3, ifaces[3], "rocelb-" + tag + "-h3"}};
  for (const Host& h : hosts) {
    const std::string n = std::to_string(h.port);
    ASSERT_EQ(test::run_command("ip netns add " + h.ns, dir).exit_code, 0) << h.ns;
    namespaces.names.push_back(h.ns);
    const std::string ip = "ip -n " + h.ns + " ";
    for (const std::string& cmd : {
             "ip link set " + h.iface + " netns " + h.ns,
             ip + "link set " + h.iface + " address 02:00:00:00:01:0" + n,
             ip + "addr add 10.0." + n + ".2/24 dev " + h.iface,
             ip + "addr add fd00:0:" + n + "::2/64 dev " + h.iface + " nodad",
             ip + "link set lo up",
             ip + "link set " + h.iface + " up",
             ip + "route add default via 10.0." + n + ".1",
             ip + "-6 route add default via fd00:0:" + n + "::1",
         }) {
      const auto r = test::run_command(cmd, dir);
      ASSERT_EQ(r.exit_code, 0) << cmd << "\n" << r.out << r.err;
    }
  }

  // Every echo must come back (-c with -w: all replies within the deadline).
  auto ping = [&](const std::string& ns, const std::string& to, const std::string& ttl) {
    SCOPED_TRACE(ns + " → " + to);
    const auto r = in_ns(ns, "ping -n -c 3 -i 0.2 -w 5 " + to, dir);
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("ttl=" + ttl + " "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3 received"), std::string::npos) << r.out;
  };
  const std::string h0 = hosts[0].ns;
  ping(h0, "10.0.3.2", "63");
  ping(h0, "fd00:0:3::2", "63");
  ping(h0, "10.0.0.1", "64");
  ping(h0, "fd00:0:0::1", "64");
  // The other end resolved its gateway too, and the neighbor entries came
  // from advertisements with the router flag.
  const auto neigh = in_ns(hosts[1].ns, "ip -6 neigh show fd00:0:3::1", dir);
  EXPECT_NE(neigh.out.find("lladdr 02:00:00:00:00:03 router"), std::string::npos) << neigh.out;

  ASSERT_TRUE(sw.signal(SIGTERM));
  ASSERT_TRUE(sw.wait_exit(milliseconds(10000))) << "rocelb-dp did not stop on SIGTERM";
  const std::string so = test::read_file(out);
  EXPECT_EQ(sw.exit_code(), 0) << so << test::read_file(err);
  EXPECT_NE(so.find("mbufs still in use: 0"), std::string::npos) << so << test::read_file(err);

  const auto j = nlohmann::json::parse(test::read_file(counters), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "counters.json unreadable";
  EXPECT_EQ(j["totals"]["conserved"], true) << j["totals"].dump();
  for (const auto& p : j["ports"]) {
    if (p["id"] != 0) continue;
    // Echo replies for 3 + 3 gateway pings, at least one advertisement.
    EXPECT_GE(p["generated_icmp_replies"].get<uint64_t>(), 7u) << p.dump();
    EXPECT_GE(p["consumed_icmp"].get<uint64_t>(), 7u) << p.dump();
    EXPECT_GE(p["generated_arp_replies"].get<uint64_t>(), 1u) << p.dump();
  }
  namespaces.clear();
  if (!HasFailure()) fs::remove_all(dir);
}

}  // namespace
}  // namespace rocelb
