// rocelb-dp: the switch. `replay` runs pcaps through it in virtual time;
// `fabric` runs a leaf-spine of them with the hosts' RoCE NICs in virtual
// time; `run` forwards live on DPDK ports until SIGINT/SIGTERM.
#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <thread>

#include "common/cli_app.h"
#include "common/cli_uint.h"
#include "control/config_loader.h"
#include "control/control_server.h"
#include "control/human_units.h"
#include "control/units.h"
#include "dataplane/mgmt/control_service.h"
#include "dataplane/mgmt/memory_runtime.h"
#include "dataplane/mgmt/telemetry.h"
#include "dataplane/record/output_dir.h"
#include "dataplane/record/run_interrupt.h"
#include "dataplane/run/dpdk_log_limiter.h"
#include "dataplane/run/eal.h"
#include "dataplane/run/fabric_memory.h"
#include "dataplane/run/fabric_run.h"
#include "dataplane/run/live_run.h"
#include "dataplane/run/replay_run.h"
#include "dataplane/sim/topology_explicit.h"
#include "dataplane/xdp/xdp_steering.h"

namespace {

using namespace rocelb;

constexpr int kExitUsage = 2;
// rocelb-dp run --mbufs: below this the per-lcore caches (256 each) would
// hold most of the pool.
constexpr unsigned kMinPoolMbufs = 2047;

std::atomic<bool> g_stop{false};
std::atomic<bool> g_reload{false};
LiveRun* g_live = nullptr;

void on_hangup(int) {
  g_reload.store(true);
}

// Installed before EAL starts: a stop asked for while the ports come up is
// kept and honoured once they are up (final counters, exit 0). A second
// signal before then takes the default action, so a hung device probe can
// still be interrupted.
void on_signal(int sig) {
  if (g_stop.exchange(true) && !g_live) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  if (g_live) g_live->request_stop();
}

ConfigParams load(const std::string& path, const std::vector<std::string>& sets) {
  const RunningConfigText t = startup_config_text(path, sets);
  return load_config_text(t.text, t.source, t.overrides);
}

bool parse_input(const std::string& spec, ReplayInput& in, std::string& why) {
  const auto eq = spec.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == spec.size()) {
    why = "--in " + spec + ": expected PORT=PCAP";
    return false;
  }
  const std::string port = spec.substr(0, eq);
  if (port.find_first_not_of("0123456789") != std::string::npos || port.size() > 5 ||
      std::stoul(port) > 65535) {
    why = "--in " + spec + ": port \"" + port + "\" is not a port id";
    return false;
  }
  in.port = static_cast<uint16_t>(std::stoul(port));
  in.path = spec.substr(eq + 1);
  return true;
}

// --timeline, --events, --events-filter, --pcapng and --max-output, as both
// replay and fabric take them.
struct RecordArgs {
  std::string timeline, filter, max_output;
  bool events = false, pcapng = false;
  void add_to(CLI::App* cmd, const char* outputs) {
    cmd->add_option("--timeline", timeline,
                    "INTERVAL (e.g. 10us, at least 1us): write timeline.csv, queues, rates, PFC "
                    "and members every INTERVAL of virtual time");
    cmd->add_option("--max-output", max_output,
                    "SIZE: the most the run writes into --out-dir, all files together (4GiB); "
                    "recordings stop there, the run's own outputs are never cut");
    cmd->add_flag("--events", events,
                  "write events.jsonl: one line per packet event (arrive, enqueue, mark, drop, "
                  "dequeue, PFC, load-balancing decision)");
    cmd->add_option("--events-filter", filter,
                    "keep only matching events: port=N,class=N,qp=N,src=IP,dst=IP,sport=N,dport=N");
    cmd->add_flag("--pcapng", pcapng, outputs);
  }
  // False (and `why`) on a bad value.
  bool parse(RecordOptions& out, std::string& why) const {
    if (!timeline.empty()) {
      std::string w;
      if (!parse_duration_ns(timeline, out.timeline_ns, &w) || out.timeline_ns == 0) {
        why = "--timeline " + timeline + ": " + (w.empty() ? "must be > 0" : w);
        return false;
      }
      if (out.timeline_ns < kMinTimelineNs) {
        why = "--timeline " + timeline +
              ": at least 1us (a finer timeline is rows of nothing; --events has every packet)";
        return false;
      }
    }
    if (!max_output.empty()) {
      std::string w;
      if (!parse_bytes(max_output, out.max_output, &w) || out.max_output == 0) {
        why = "--max-output " + max_output + ": " + (w.empty() ? "must be > 0" : w);
        return false;
      }
    }
    if (!filter.empty() && !events) {
      why = "--events-filter needs --events";
      return false;
    }
    try {
      if (!filter.empty()) out.filter = EventFilter::parse(filter);
    } catch (const std::invalid_argument& e) {
      why = e.what();
      return false;
    }
    out.events = events;
    out.pcapng = pcapng;
    return true;
  }
};

// --max-output reached mid-run: the run went on and its own outputs are
// whole; the recordings (`files`) end at t_ns (run.json says so too).
void report_recording_stopped(uint64_t t_ns, uint64_t cap, const std::string& files) {
  std::cerr << "rocelb-dp: recording stopped at " << human_duration_ns(static_cast<double>(t_ns))
            << " of virtual time: the outputs reached --max-output " << format_bytes(cap) << "; "
            << files << " end there (the run went on to its end: its other outputs are whole)\n";
}

// The recordings a run makes, for that line: "timeline.csv, events.jsonl and links.csv".
std::string recording_files(const RecordOptions& r, bool trace, bool links, bool captures) {
  std::vector<std::string> f;
  if (r.timeline_ns) f.push_back("timeline.csv");
  if (r.events) f.push_back("events.jsonl");
  if (trace) f.push_back("trace.jsonl");
  if (captures) f.push_back("the captures");
  if (links) f.push_back("links.csv");
  std::string s;
  for (size_t i = 0; i < f.size(); ++i)
    s += (i == 0 ? "" : i + 1 == f.size() ? " and " : ", ") + f[i];
  return s;
}

// One line for a run that failed. A run stopped by SIGINT or SIGTERM says
// only that (finish_run): what failed then is the stop's doing, e.g. a read
// from a FIFO cut short.
void report_error(const std::exception& e) {
  if (!run_interrupt_signal()) std::cerr << "rocelb-dp: " << e.what() << "\n";
}

// replay and fabric: a run that a signal stopped (run_interrupt.h) left
// nothing behind; it says so and exits 128 + the signal, as a shell does.
int finish_run(int rc) {
  if (rc == 0 || !run_interrupt_signal()) return rc;
  std::cerr << "rocelb-dp: interrupted by " << run_interrupt_name()
            << ": the run stopped and wrote nothing (the output folder is as it was)\n";
  return 128 + run_interrupt_signal();
}

int cmd_replay(const std::string& config, const std::vector<std::string>& sets,
               const std::vector<std::string>& ins, const std::vector<std::string>& events,
               const std::string& out_dir, bool quiet, bool trace, const RecordArgs& ra) {
  RecordOptions record;
  std::string bad;
  if (!ra.parse(record, bad)) {
    std::cerr << "rocelb-dp: " << bad << "\n";
    return kExitUsage;
  }
  std::vector<ReplayInput> inputs;
  for (const auto& s : ins) {
    ReplayInput in;
    std::string why;
    if (!parse_input(s, in, why)) {
      std::cerr << "rocelb-dp: " << why << "\n";
      return kExitUsage;
    }
    inputs.push_back(in);
  }
  ConfigParams params;
  try {
    params = load(config, sets);
  } catch (const ConfigError& e) {
    std::cerr << "rocelb-dp: " << e.what() << "\n";
    return kExitUsage;
  }
  for (const auto& in : inputs)
    if (!params.find_port(in.port)) {
      std::cerr << "rocelb-dp: --in " << in.port << "=" << in.path << ": port " << in.port
                << " is not in the config\n";
      return kExitUsage;
    }
  try {
    eal_start(eal_args_for_replay(1024));
    ReplayRun replay(SwitchConfig::build(params), 65535);
    replay.set_link_events(parse_link_events(events, replay.dataplane().config()));
    const ReplayStats st = replay.run(inputs, out_dir, trace, record);
    if (st.recording_stopped)
      report_recording_stopped(st.recording_stopped_ns, record.max_output,
                               recording_files(record, trace, false, false));
    if (!quiet) {
      std::cout << counters_table(replay.counters());
      std::cout << "virtual time " << (st.last_ns - st.first_ns) / 1000.0 << " us, outputs in "
                << out_dir << "\n";
    }
  } catch (const ReplayError& e) {
    report_error(e);
    return kExitUsage;
  } catch (const ConfigError& e) {  // a policy refused while the switch is built
    report_error(e);
    return kExitUsage;
  } catch (const std::exception& e) {
    report_error(e);
    return 1;
  }
  return 0;
}

struct FabricArgs {
  std::string topology, workload, out_dir, until, window = "100us", export_dir, max_memory;
  std::vector<std::string> sets, captures;
  uint64_t seed = 1;
  uint32_t threads = 1;
  uint32_t pool_mbufs = 0;  // 0: fabric_pool_mbufs' default
  bool quiet = false;
  bool fct_txt = false;
  std::string ideal = "rocelb";
  RecordArgs record;
};

void print_fabric_result(const FabricResult& r, const std::string& out_dir) {
  std::ifstream f(out_dir + "/summary.json");
  const Json s = Json::parse(f, nullptr, false);
  std::printf("flows finished %llu of %llu; virtual time %.3f ms in %.1f s wall (%.0f events/s)\n",
              (unsigned long long)r.flows_finished, (unsigned long long)r.flows, r.sim_ns / 1e6,
              r.wall_s, r.wall_s > 0 ? r.events / r.wall_s : 0.0);
  if (!s.is_discarded() && s.contains("slowdown")) {
    std::printf("%-8s %8s %10s %8s %8s\n", "flows", "count", "avg", "p50", "p99");
    for (const char* g : {"small", "medium", "large", "all"}) {
      const Json& b = s["slowdown"]["by_size"][g];
      std::printf("%-8s %8llu %10.3f %8.3f %8.3f\n", g,
                  (unsigned long long)b["count"].get<uint64_t>(), b["average"].get<double>(),
                  b["p50"].get<double>(), b["p99"].get<double>());
    }
  }
  std::printf("outputs in %s%s\n", out_dir.c_str(),
              r.conserved ? "" : " — a switch's counters do NOT balance");
}

// --export DIR: the topology in the explicit form, to edit; nothing runs.
int cmd_fabric_export(const FabricArgs& a) {
  try {
    const Topology topo = load_topology_file(a.topology, a.sets);
    const auto files = export_explicit_topology(topo);
    std::vector<std::string> names;
    for (const auto& f : files) names.push_back(f.first);
    OutputDir out(a.export_dir);
    out.check(names);
    for (const auto& [name, text] : files) {
      std::ofstream f(out.staged(name));
      f << text;
      f.close();
      if (!f) throw OutputDirError("cannot write " + out.staged(name));
    }
    out.commit(names);
    if (!a.quiet)
      std::printf("%zu files in %s: fabric.yaml and one config per switch\n", files.size(),
                  a.export_dir.c_str());
    return 0;
  } catch (const TopologyError& e) {
    std::cerr << "rocelb-dp: " << e.what() << "\n";
  } catch (const OutputDirError& e) {
    std::cerr << "rocelb-dp: " << e.what() << "\n";
  }
  return kExitUsage;
}

// --until, --link-window, the recording options and --max-memory into
// `opt` and `max_memory`; false (the reason printed) when one is bad.
bool fabric_options(const FabricArgs& a, FabricRunOptions& opt, uint64_t& max_memory) {
  std::string why;
  if (!a.until.empty() && (!parse_duration_ns(a.until, opt.until_ns, &why) || opt.until_ns == 0)) {
    std::cerr << "rocelb-dp: --until " << a.until << ": " << (why.empty() ? "must be > 0" : why)
              << "\n";
    return false;
  }
  if (!parse_duration_ns(a.window, opt.link_window_ns, &why) || opt.link_window_ns == 0) {
    std::cerr << "rocelb-dp: --link-window " << a.window << ": "
              << (why.empty() ? "must be > 0" : why) << "\n";
    return false;
  }
  if (opt.link_window_ns < kMinLinkWindowNs) {
    std::cerr << "rocelb-dp: --link-window " << a.window << ": at least 1us\n";
    return false;
  }
  if (!a.record.parse(opt.record, why)) {
    std::cerr << "rocelb-dp: " << why << "\n";
    return false;
  }
  max_memory = physical_memory_bytes();
  if (!a.max_memory.empty() && (!parse_bytes(a.max_memory, max_memory, &why) || max_memory == 0)) {
    std::cerr << "rocelb-dp: --max-memory " << a.max_memory << ": "
              << (why.empty() ? "must be > 0" : why) << "\n";
    return false;
  }
  opt.out_dir = a.out_dir;
  opt.captures = a.captures;
  opt.threads = a.threads;
  opt.fct_txt = a.fct_txt;
  opt.ns3_ideal = a.ideal == "ns3";
  // summary.json's run.command: what a shell can run again, each word quoted
  // where it must be (a --set of a whole map holds spaces and braces).
  auto word = [](const std::string& w) {
    if (!w.empty() && w.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                          "0123456789_./=:,@%+-") == std::string::npos)
      return w;
    std::string q = "'";
    for (const char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  opt.command_line = "rocelb-dp fabric --topology " + word(a.topology) + " --workload " +
                     word(a.workload) + " --seed " + std::to_string(a.seed);
  for (const auto& s : a.sets) opt.command_line += " --set " + word(s);
  if (opt.ns3_ideal) opt.command_line += " --ideal ns3";
  return true;
}

int cmd_fabric(const FabricArgs& a) {
  if (!a.export_dir.empty()) return cmd_fabric_export(a);
  if (a.workload.empty() || a.out_dir.empty()) {
    std::cerr << "rocelb-dp: fabric needs --workload and --out-dir (or --export DIR)\n";
    return kExitUsage;
  }
  FabricRunOptions opt;
  uint64_t max_memory = 0;
  if (!fabric_options(a, opt, max_memory)) return kExitUsage;
  const RecordOptions& record = opt.record;
  try {
    Topology topo = load_topology_file(a.topology, a.sets);
    Workload wl = load_workload_file(a.workload, topo, a.seed);
    for (const std::string& c : a.captures) capture_target(topo, c);  // before anything starts
    // Every switch's tables and rings and the packet pool, before EAL: a
    // fabric too big for the memory allowed is refused now, not mid-start.
    FabricMemory mem = estimate_fabric_memory(topo, &wl, a.pool_mbufs);
    // With --threads each thread has a pool of its own (fabric_shard.h).
    const uint64_t shards =
        std::min<uint64_t>(a.threads, std::max<size_t>(topo.switches.size(), 1));
    mem.total += mem.packet_pool * (shards - 1);
    mem.packet_pool *= shards;
    if (mem.total > max_memory) {
      std::cerr << "rocelb-dp: " << a.topology
                << ": the fabric's switches and packet pool need about " << mem.describe()
                << ", more than --max-memory " << human_bytes(static_cast<double>(max_memory))
                << (a.max_memory.empty() ? " (this machine's memory)" : "")
                << ": fewer switches or ports, or a larger --max-memory\n";
      return kExitUsage;
    }
    // What it would write, against --max-output, before anything starts.
    if (const auto problem = fabric_output_problem(topo, wl, opt)) {
      std::cerr << "rocelb-dp: " << *problem << "\n";
      return kExitUsage;
    }
    eal_start(eal_args_for_replay(fabric_eal_memory_mb(mem.total)));
    NicParams nic = topo.nic;
    FabricRun fabric(std::move(topo), nic, std::move(wl), a.seed, a.pool_mbufs);
    const FabricResult r = fabric.run(opt);
    if (r.recording_stopped)
      report_recording_stopped(r.recording_stopped_ns, record.max_output,
                               recording_files(record, false, true, !a.captures.empty()));
    if (!a.quiet) print_fabric_result(r, a.out_dir);
    return r.conserved ? 0 : 1;
  } catch (const TopologyError& e) {
    report_error(e);
  } catch (const WorkloadError& e) {
    report_error(e);
  } catch (const FabricError& e) {
    report_error(e);
  } catch (const ConfigError& e) {  // a switch's policy refused while the fabric is built
    report_error(e);
  } catch (const std::exception& e) {
    report_error(e);
    return 1;
  }
  return kExitUsage;
}

// The link state the control thread last reported, per port.
bool& link_seen_up(uint16_t id) {
  static std::array<bool, kMaxPorts> seen = [] {
    std::array<bool, kMaxPorts> a;
    a.fill(true);
    return a;
  }();
  return seen[id];
}

// The control thread: serves the socket and reloads on SIGHUP until stop.
// Every pass also reads the links of the ports that follow their device's
// (ports[].link_detect), so a link change is seen within 50 ms.
void control_loop(ControlServer& server, ControlService& service, LiveRun& live) {
  while (!g_stop.load()) {
    server.poll(50);
    if (live.poll_links()) {
      const Dataplane& dp = live.dataplane();
      for (uint16_t id : dp.config().port_ids)
        if (live.follows_link(id) && dp.link_up(id) != link_seen_up(id)) {
          link_seen_up(id) = dp.link_up(id);
          std::cerr << "rocelb-dp: port " << id << " (" << dp.config().ports[id].name << "): link "
                    << (dp.link_up(id) ? "up" : "down") << "\n";
        }
    }
    if (g_reload.exchange(false)) std::cerr << "rocelb-dp: " << service.reload_file() << "\n";
    flush_dpdk_log_limiter();  // how many times a repeated DPDK line came
  }
}

// --mbufs, --idle-sleep-max and --idle-polls into `live`; false (the reason
// printed) when one is out of range.
bool live_options(unsigned mbufs, const std::string& idle_sleep_max, unsigned idle_polls,
                  LiveOptions& live) {
  if (mbufs < kMinPoolMbufs) {
    std::cerr << "rocelb-dp: --mbufs " << mbufs << ": must be at least " << kMinPoolMbufs << "\n";
    return false;
  }
  live.set_mbufs(mbufs);
  if (!idle_sleep_max.empty()) {
    std::string why;
    if (!parse_duration_ns(idle_sleep_max, live.idle_sleep_max_ns, &why) ||
        live.idle_sleep_max_ns > 1'000'000'000) {
      std::cerr << "rocelb-dp: --idle-sleep-max " << idle_sleep_max << ": "
                << (why.empty() ? "at most 1s" : why) << "\n";
      return false;
    }
  }
  if (idle_polls == 0) {
    std::cerr << "rocelb-dp: --idle-polls 0: must be at least 1\n";
    return false;
  }
  live.idle_polls = idle_polls;
  return true;
}

// The startup config (the file and --set) of a live switch, every port with
// a device; false (the reason printed) otherwise.
bool live_config(const std::string& config, const std::vector<std::string>& sets,
                 RunningConfigText& text, ConfigParams& params) {
  try {
    text = startup_config_text(config, sets);
    params = load_config_text(text.text, text.source, sets);
  } catch (const ConfigError& e) {
    std::cerr << "rocelb-dp: " << e.what() << "\n";
    return false;
  }
  for (const auto& p : params.ports)
    if (p.device.empty()) {
      std::cerr << "rocelb-dp: " << params.source << ": ports[" << p.id
                << "].device: missing: live mode needs a DPDK device for every port\n";
      return false;
    }
  return true;
}

// The switch forwards until SIGINT or SIGTERM (or a stop asked for while
// its ports came up); the control thread serves the socket meanwhile and
// has ended when this returns.
void forward_until_stopped(LiveRun& sw, ControlServer& server, ControlService& service,
                           size_t ports) {
  std::signal(SIGHUP, on_hangup);
  if (g_stop.load()) {  // the signal came while the ports came up
    sw.request_stop();
    std::cerr << "rocelb-dp: stop asked for during start-up: stopping\n";
  } else {
    std::cerr << "rocelb-dp: forwarding on " << ports << " ports";
    std::cerr << (sw.runs_on_main() ? " (main lcore)" : "") << "; control socket " << server.path()
              << "; SIGHUP reloads the config, SIGINT or SIGTERM stops\n";
  }
  std::thread control([&] { control_loop(server, service, sw); });
  struct Join {  // the control thread ends before what it serves goes, whatever happens
    std::thread& t;
    ~Join() {
      g_stop.store(true);
      if (t.joinable()) t.join();
    }
  } join{control};
  sw.start();
  if (!sw.runs_on_main()) {
    while (!g_stop.load()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
    sw.request_stop();
    sw.wait();
  }
  g_stop.store(true);
  control.join();
  g_live = nullptr;
}

// The stopped switch's final counters (and --counters-out) and the mbufs
// still in use. Stopped first: the frames a device never took and those
// still queued are counted (tx_failed, flushed) before the figures are
// read. 0 when nothing leaked and the counters balance.
int report_stopped(LiveRun& sw, const std::string& counters_out) {
  const unsigned leaked = sw.shutdown();
  const Json counters = sw.counters();
  std::cout << counters_table(counters);
  if (!counters_out.empty()) {
    std::ofstream f(counters_out);
    f << counters.dump(2) << "\n";
  }
  std::cout << "stopped; mbufs still in use: " << leaked;
  if (sw.held_by_devices())
    std::cout << " (and " << sw.held_by_devices()
              << " in the af_xdp ports' pools, which their PMD keeps)";
  std::cout << "\n";
  // A stopped switch has nothing in flight: any imbalance is a packet lost
  // without a count, which the exit status says too.
  const bool balanced = counters["totals"]["conserved"].get<bool>();
  if (!balanced) std::cerr << "rocelb-dp: the final counters do not balance (totals above)\n";
  return leaked == 0 && balanced ? 0 : 1;
}

int cmd_run(const std::string& config, const std::vector<std::string>& sets,
            const std::vector<std::string>& eal_user, const std::string& counters_out,
            const std::string& idle_sleep_max, unsigned idle_polls, unsigned mbufs) {
  LiveOptions live;
  if (!live_options(mbufs, idle_sleep_max, idle_polls, live)) return kExitUsage;
  ConfigParams params;
  RunningConfigText text;
  if (!live_config(config, sets, text, params)) return kExitUsage;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  try {
    // AF_XDP ports with xdp_steering: checked, and their program readied for
    // the PMD, before EAL probes any device.
    XdpSteering xdp(params);
    ConfigParams eal_params = params;
    for (PortParams& p : eal_params.ports) p.device += xdp.devargs(p.id);
    eal_start(eal_args_for_live(eal_params, eal_user, no_huge_memory_mb(params, live)));
    // Again with the workers EAL gave: limits.max_memory counts their tables.
    params = load_config_text(text.text, text.source, sets, live_memory_runtime(live));
    LiveRun sw(SwitchConfig::build(params), live);
    xdp.configure();
    sw.set_xdp(&xdp);
    ControlService service(sw, std::move(text));
    ControlServer server(control_server_options(params.control),
                         [&service](const ParsedRequest& r, const ControlPeer& peer) {
                           return service.handle(r, peer);
                         });
    service.attach_server(server);  // it follows `set control.*`
    g_live = &sw;
    telemetry_attach(&sw);  // /rocelb/... commands for dpdk-telemetry.py
    struct Detach {         // before the switch goes, whatever happens
      ~Detach() { telemetry_attach(nullptr); }
    } detach;
    forward_until_stopped(sw, server, service, params.ports.size());
    return report_stopped(sw, counters_out);
  } catch (const ConfigError& e) {  // limits.max_memory with the workers EAL gave
    std::cerr << "rocelb-dp: " << e.what() << "\n";
    return kExitUsage;
  } catch (const XdpError& e) {
    std::cerr << "rocelb-dp: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    g_live = nullptr;
    std::cerr << "rocelb-dp: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"rocelb-dp: a RoCEv2 switch on DPDK (replay in virtual time, or live)"};
  app.require_subcommand(1);
  add_version_flag(app);
  std::string config;
  std::vector<std::string> sets;

  auto* replay = app.add_subcommand("replay", "run pcaps through the switch in virtual time");
  std::vector<std::string> ins, events;
  std::string out_dir;
  bool quiet = false;
  replay->add_option("--config", config, "config file (default: the embedded default.yaml)");
  replay->add_option("--in", ins, "PORT=PCAP: frames arriving on PORT (- is stdin)")->required();
  replay->add_option("--out-dir", out_dir, "where port<ID>.pcap and counters.json go")->required();
  replay->add_option("--set", sets, "KEY.PATH=VALUE: override one config key (repeatable)");
  replay->add_option("--event", events,
                     "TIME:PORT:down|up: take PORT's link down or up at TIME of virtual time "
                     "(2ms:port4:down; repeatable)");
  replay->add_flag("--quiet", quiet, "print nothing on success");
  bool trace = false;
  replay->add_flag("--trace", trace,
                   "write trace.jsonl: one JSON line per load-balancing decision");
  RecordArgs record;
  record.add_to(replay,
                "write port<ID>.pcapng (instead of .pcap) with a comment per packet "
                "saying what the switch did");

  auto* fabric = app.add_subcommand(
      "fabric", "a leaf-spine of switches and RoCE NICs in virtual time: flow completion times");
  FabricArgs fa;
  fabric->add_option("--topology", fa.topology, "fabric file (configs/fabrics/)")->required();
  fabric->add_option("--workload", fa.workload, "workload file (configs/workloads/)");
  fabric->add_option("--out-dir", fa.out_dir,
                     "where flows.csv, summary.json, links.csv and counters go");
  fabric->add_option("--export", fa.export_dir,
                     "write the topology in the explicit form (fabric.yaml and one config per "
                     "switch) to this folder, to edit; runs nothing");
  fabric->add_option("--set", fa.sets,
                     "[SWITCH:]KEY.PATH=VALUE: every switch's (or one's) config; nic.KEY=VALUE: "
                     "the NICs' (repeatable)");
  fabric->add_option("--seed", fa.seed, "seed of the workload, the hashes and the ports (1)")
      ->transform(uint_range(0, UINT64_MAX));
  fabric->add_option("--until", fa.until,
                     "stop at this virtual time (default: when every flow finished, at most 1s "
                     "after the last start)");
  fabric->add_option("--capture", fa.captures,
                     "SWITCH:PORT, HOST or HOST.PLANE (a host's port on that plane): write what it "
                     "sends to capture-*.pcap (repeatable)");
  fabric->add_option("--link-window", fa.window, "links.csv window (100us)");
  fabric
      ->add_option("--threads", fa.threads,
                   "N: split the fabric over N threads (at most one per switch); the outputs "
                   "are the same bytes for any N (1)")
      ->transform(uint_range(1, 1024));
  fabric
      ->add_option("--pool-mbufs", fa.pool_mbufs,
                   "N: the most packet buffers the fabric's pool may make (each thread's, with "
                   "--threads); when they are all in use a switch drops what arrives, reason "
                   "no_buffer (default: 32,768 a switch, 65,535 to 4,194,303)")
      ->transform(uint_range(1024, kMaxFabricPoolMbufs));
  fabric->add_option("--max-memory", fa.max_memory,
                     "SIZE: refuse a fabric whose switches and packet pool need more memory "
                     "than this (default: the machine's memory)");
  fabric->add_flag("--fct-txt", fa.fct_txt,
                   "also write out_fct.txt, ConWeave's and HPCC's FCT file (a line per finished "
                   "flow: src dst sport dport size start_ns fct_ns ideal_ns), for their "
                   "fctAnalysis.py and plots");
  fabric
      ->add_option("--ideal", fa.ideal,
                   "the slowdown's ideal FCT: rocelb (the flow alone on the idle fabric, its "
                   "frames as sent) or ns3 (ConWeave's ns-3 standalone_fct: base RTT plus the "
                   "bytes with 48 B of headers a packet at the bottleneck) (rocelb)")
      ->check(CLI::IsMember({"rocelb", "ns3"}));
  fabric->add_flag("--quiet", fa.quiet, "print nothing on success");
  fa.record.add_to(fabric,
                   "write --capture files as pcapng with a comment per packet saying "
                   "what the switch did");

  auto* run = app.add_subcommand("run", "forward live on DPDK ports until SIGINT/SIGTERM");
  std::vector<std::string> eal;
  std::string counters_out;
  run->add_option("--config", config, "config file (default: the embedded default.yaml)");
  run->add_option("--set", sets, "KEY.PATH=VALUE: override one config key (repeatable)");
  run->add_option("--counters-out", counters_out, "write the final counters (JSON) here");
  std::string idle_sleep_max;
  unsigned idle_polls = 100;
  run->add_option("--idle-sleep-max", idle_sleep_max,
                  "DURATION (e.g. 100us): a worker that keeps finding nothing sleeps, up to this "
                  "long at a time, so idle switches share cores (default: never sleep)");
  run->add_option("--idle-polls", idle_polls,
                  "empty polls in a row before a worker starts sleeping (100)")
      ->transform(uint_range(0, UINT32_MAX));
  unsigned mbufs = LiveOptions{}.pool_mbufs;
  run->add_option("--mbufs", mbufs,
                  "N: packet buffers in the switch's pool (32767); each AF_XDP port gets a pool "
                  "of its own, half as many, at least 4095. Fewer make a smaller switch (lab "
                  "fabrics) that holds fewer packets in its queues")
      ->transform(uint_range(0, UINT32_MAX));
  run->footer("Arguments after -- go to DPDK's EAL (e.g. -- -l 0-3 -a 0000:3b:00.0).");

  // Everything after "--" belongs to EAL: split it off before CLI11 sees it.
  int ours = argc;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--") {
      ours = i;
      for (int k = i + 1; k < argc; ++k) eal.push_back(argv[k]);
      break;
    }

  try {
    app.parse(ours, argv);
  } catch (const CLI::ValidationError& e) {  // a value out of its option's range: one line
    print_validation_error("rocelb-dp", e);
    return kExitUsage;
  } catch (const CLI::ParseError& e) {
    return cli_error(app, e, "rocelb-dp", std::cout, std::cerr,
                     std::vector<std::string>(argv + 1, argv + ours));
  }
  if (*replay || (*fabric && fa.export_dir.empty())) catch_run_interrupts();
  if (*replay)
    return finish_run(cmd_replay(config, sets, ins, events, out_dir, quiet, trace, record));
  if (*fabric) return finish_run(cmd_fabric(fa));
  return cmd_run(config, sets, eal, counters_out, idle_sleep_max, idle_polls, mbufs);
}
