#include "dataplane/run/fabric_run.h"

#include <pthread.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <rte_lcore.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <barrier>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <fstream>
#include <optional>
#include <thread>

#include "control/human_units.h"
#include "control/units.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/record/counters_json.h"
#include "dataplane/record/frame_sink.h"
#include "dataplane/record/link_meters.h"
#include "dataplane/record/link_tally.h"
#include "dataplane/record/output_budget.h"
#include "dataplane/record/output_dir.h"
#include "dataplane/record/run_interrupt.h"
#include "dataplane/record/run_manifest.h"
#include "dataplane/record/run_outputs.h"
#include "dataplane/record/write_file.h"
#include "dataplane/run/fabric_memory.h"
#include "dataplane/run/fabric_nodes.h"
#include "dataplane/run/fabric_output_estimate.h"
#include "dataplane/run/fabric_partition.h"
#include "dataplane/run/fabric_shard.h"
#include "dataplane/run/growing_mbuf_pool.h"
#include "dataplane/sim/fabric_report.h"
#include "dataplane/sim/fabric_summary.h"
#include "dataplane/sim/flow_plane.h"
#include "dataplane/sim/ideal_fct.h"
#include "dataplane/wire/pcap_file.h"
#include "lb/lb_rng.h"

namespace rocelb {

namespace {

constexpr uint64_t kDefaultGraceNs = 1'000'000'000;  // after the last flow start
std::atomic<uint64_t> g_pool_seq{0};

std::string port_name(const std::string& sw, uint16_t port) {
  std::string s = sw;
  s += ':';
  s += std::to_string(port);
  return s;
}

[[noreturn]] void fail(const std::string& what) {
  throw FabricError(what);
}

uint64_t peak_rss_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<uint64_t>(ru.ru_maxrss);
}

}  // namespace

// The state between windows (fabric_shard.h), written by close_window only,
// while every shard waits.
struct WindowState {
  uint64_t end_ps = 0;  // the window runs up to here (exclusive)
  unsigned parity = 0;  // of the window being run: its outboxes
  bool stop = false;
  uint64_t windows = 0;
  std::vector<std::pair<uint64_t, uint32_t>> phase_starts;  // for the next window
  std::exception_ptr error;
};

struct FabricRun::Impl {
  FabricWorld w;
  std::unique_ptr<GrowingMbufPool> pool_owner;                // make_pool: shard 0's
  rte_mempool* pool = nullptr;                                // its mempool
  std::vector<std::unique_ptr<GrowingMbufPool>> extra_pools;  // shards 1..N-1
  std::vector<std::unique_ptr<FabricShard>> shards;
  uint64_t lookahead_ps = 0;

  // The run's state.
  uint64_t finished = 0;
  std::vector<uint64_t> phase_left;
  std::vector<uint64_t> phase_last_ps;  // the latest finish seen per phase
  std::vector<bool> phase_launched;     // the next phase was pushed
  WindowState ws;

  void build();
  void make_pool();
  void make_switches();
  void connect();
  void make_flow_records();
  void set_ideals(bool ns3);
  void open_outputs(const FabricRunOptions& opt, RunOutputs& outs, std::vector<std::string>& names);
  void open_captures(const std::vector<std::string>& specs, OutputDir& out,
                     std::vector<std::string>& names, bool pcapng);
  void make_shards(uint32_t threads, uint64_t link_window_ns);
  void start();
  void run_windows(uint64_t until_ps, FabricResult& res);
  void close_window(uint64_t until_ps, uint64_t flows) noexcept;
  uint64_t end(RunOutputs& outs, FabricResult& res, std::vector<Json>& counters);
  void write_outputs(const FabricRunOptions& opt, RunOutputs& outs,
                     const std::vector<std::string>& names, const std::vector<Json>& counters,
                     const FabricResult& res, uint64_t on_wires);
  void record_unfinished();
  uint64_t own_output_bound(size_t captures, bool fct_txt) const;
  void write_links(const std::string& path, uint64_t end_ns);
  void release_events();
};

CaptureTarget capture_target(const Topology& topo, const std::string& spec) {
  CaptureTarget c;
  const auto colon = spec.find(':');
  if (colon == std::string::npos) {
    const auto h = topo.port_index(spec);  // h3, or h3.1: its port on plane 1
    if (!h)
      throw FabricError("--capture " + spec + ": \"" + spec + "\" is neither a host" +
                        (topo.planes > 1 ? std::string(", HOST.PLANE (0..") +
                                               std::to_string(topo.planes - 1) + ")"
                                         : std::string()) +
                        " nor SWITCH:PORT");
    c.host = true;
    c.index = *h;
    return c;
  }
  const std::string swname = spec.substr(0, colon), port = spec.substr(colon + 1);
  const auto s = topo.switch_index(swname);
  if (!s) throw FabricError("--capture " + spec + ": no switch \"" + swname + "\"");
  bool connected = false;
  if (!port.empty() && port.size() <= 3 &&
      port.find_first_not_of("0123456789") == std::string::npos) {
    const auto p = static_cast<uint16_t>(std::stoul(port));
    for (const FabricLink& l : topo.links)
      connected = connected || (l.a_sw == *s && l.a_port == p) || (l.b_sw == *s && l.b_port == p);
    for (size_t k = 0; k < topo.port_count(); ++k)
      connected = connected || (topo.port(k).sw == *s && topo.port(k).port == p);
    c.port = p;
  }
  if (!connected)
    throw FabricError("--capture " + spec + ": " + swname + " has no connected port \"" + port +
                      "\"");
  c.index = *s;
  return c;
}

FabricRun::FabricRun(Topology topo, NicParams nic, Workload workload, uint64_t seed,
                     uint32_t pool_mbufs)
    : impl_(std::make_unique<Impl>()) {
  impl_->w.pool_mbufs = pool_mbufs;
  impl_->w.topo = std::move(topo);
  impl_->w.nic_params = nic;
  impl_->w.workload = std::move(workload);
  impl_->w.seed = seed;
  impl_->build();
}

FabricRun::~FabricRun() {
  impl_->release_events();
  impl_->w.sw.clear();  // Dataplanes free their queued mbufs into the pools
  impl_->w.hosts.clear();
  impl_->extra_pools.clear();
  impl_->pool_owner.reset();
}

void FabricRun::Impl::release_events() {
  for (auto& sh : shards) sh->drop_in_flight(0), sh->drop_in_flight(1);
  shards.clear();
}

void FabricRun::Impl::build() {
  make_pool();
  make_switches();
  connect();
  make_flow_records();
}

// One pool for the fabric (one per thread with --threads: fabric_shard.h): a
// frame crosses switches without a copy. Its buffers hold the largest frame
// the NICs make in one segment; it fills a chunk at a time with the frames
// in flight, up to fabric_pool_mbufs() (growing_mbuf_pool.h: the shards
// keep some free before each event, so a get fails only when that many are
// in use, as a fixed pool's would); its sizes and the rings' are
// fabric_memory.h's, which estimated them.
namespace {

// Lets the calling thread run on any online core.
void unpin_this_thread() {
  cpu_set_t all;
  CPU_ZERO(&all);
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long c = 0; c < n && c < CPU_SETSIZE; ++c) CPU_SET(static_cast<int>(c), &all);
  pthread_setaffinity_np(pthread_self(), sizeof all, &all);
}

std::unique_ptr<GrowingMbufPool> fabric_pool(const FabricWorld& w) {
  auto p = std::make_unique<GrowingMbufPool>(
      "rl_fabric" + std::to_string(g_pool_seq.fetch_add(1)),
      fabric_pool_mbufs(w.topo.switches.size(), w.pool_mbufs), kPacketNotePrivSize,
      static_cast<uint16_t>(fabric_mbuf_room(w.nic_params.mtu) + RTE_PKTMBUF_HEADROOM),
      kFabricPoolChunk);
  p->keep_free();
  return p;
}

}  // namespace

void FabricRun::Impl::make_pool() {
  pool_owner = fabric_pool(w);
  pool = pool_owner->get();
}

void FabricRun::Impl::make_switches() {
  w.sw.resize(w.topo.switches.size());
  for (size_t i = 0; i < w.topo.switches.size(); ++i) {
    ConfigParams p = w.topo.switches[i].params;
    // Switches in a row must not hash alike, and another seed is another
    // draw of collisions.
    p.sw.hash_seed = mix_seed(p.sw.hash_seed, mix_seed(w.seed, i + 1));
    SwitchNode& n = w.sw[i];
    n.name = w.topo.switches[i].name;
    n.dp = std::make_unique<Dataplane>(SwitchConfig::build(p), 1, kFabricRingSlots, 0);
    n.dp->set_control_pool(pool);
    for (uint16_t id : n.dp->config().port_ids)
      n.dp->tx(id).shaper.set_framing(w.nic_params.framing);
    n.clock = std::make_unique<SwitchClock>(*n.dp);
    const size_t slots = n.dp->port_slots();
    n.wake.assign(slots, WakeKeys{});
    n.peer.assign(slots, Peer{});
    n.meter.assign(slots, 0);
    n.capture = std::vector<FrameSink>(slots);
  }
}

// The wires: between switches, and between each host's NIC and its leaf,
// each direction with its links.csv meter. The lookahead: the least time a
// frame takes over any wire (fabric_shard.h).
void FabricRun::Impl::connect() {
  lookahead_ps = kNeverPs;
  auto add_meter = [&](std::string from, std::string to, uint64_t speed, uint64_t delay_ps) {
    const uint32_t m = w.links.add_link(std::move(from), std::move(to), speed);
    w.wires = std::max(w.wires, m + 1);
    lookahead_ps = std::min(lookahead_ps, delay_ps + wire_ps(w.nic_params.framing.bytes(0), speed));
    return m;
  };
  // A switch port sends at its configured speed (so `--set
  // leaf0:ports[5].speed=25G` makes that one direction slower).
  auto speed_of = [&](uint32_t s, uint16_t port) {
    return w.sw[s].dp->config().ports[port].speed_bps;
  };
  for (const FabricLink& l : w.topo.links) {
    SwitchNode& a = w.sw[l.a_sw];
    SwitchNode& b = w.sw[l.b_sw];
    const uint64_t ab = speed_of(l.a_sw, l.a_port), ba = speed_of(l.b_sw, l.b_port);
    const uint64_t delay = l.delay_ns * 1000;
    a.peer[l.a_port] = Peer::wire(false, l.b_sw, l.b_port, ab, delay);
    b.peer[l.b_port] = Peer::wire(false, l.a_sw, l.a_port, ba, delay);
    a.meter[l.a_port] =
        add_meter(port_name(a.name, l.a_port), port_name(b.name, l.b_port), ab, delay);
    b.meter[l.b_port] =
        add_meter(port_name(b.name, l.b_port), port_name(a.name, l.a_port), ba, delay);
  }
  w.hosts.resize(w.topo.port_count());  // a NIC per host port
  for (size_t h = 0; h < w.topo.port_count(); ++h) {
    const FabricHost& fh = w.topo.port(h);
    NicAddress addr;
    addr.mac = fh.mac.b;
    addr.gateway_mac = fh.gateway_mac.b;
    addr.ipv4 = fh.ip.v4_host_order();
    addr.speed_bps = fh.speed_bps;
    HostNode& host = w.hosts[h];
    host.nic = std::make_unique<RoceNic>(w.nic_params, addr);
    const uint64_t delay = fh.delay_ns * 1000;
    host.peer = Peer::wire(false, fh.sw, fh.port, fh.speed_bps, delay);
    SwitchNode& leaf = w.sw[fh.sw];
    const uint64_t down = speed_of(fh.sw, fh.port);
    leaf.peer[fh.port] = Peer::wire(true, static_cast<uint32_t>(h), 0, down, delay);
    const std::string name = w.topo.port_name(h);
    host.meter = add_meter(name, port_name(leaf.name, fh.port), fh.speed_bps, delay);
    leaf.meter[fh.port] = add_meter(port_name(leaf.name, fh.port), name, down, delay);
  }
  if (lookahead_ps == kNeverPs) lookahead_ps = 1;  // no wires: nothing crosses
  // A port no link or host names: what it sends is dropped (`no_link`).
  for (SwitchNode& n : w.sw)
    for (uint16_t id : n.dp->config().port_ids)
      if (!n.peer[id].connected) n.clock->set_unlinked(id);
}

// Flow records, each flow's plane and NIC ports, their ideal FCTs (on that
// plane), and the phases.
void FabricRun::Impl::make_flow_records() {
  const Workload& wl = w.workload;
  w.records.resize(wl.flows.size());
  w.flow_src.resize(wl.flows.size());
  w.flow_dst.resize(wl.flows.size());
  for (size_t i = 0; i < wl.flows.size(); ++i) {
    const FabricFlow& f = wl.flows[i];
    FlowRecord& r = w.records[i];
    r.id = f.id;
    r.src = w.topo.hosts[f.src].name;
    r.dst = w.topo.hosts[f.dst].name;
    r.size_bytes = f.size_bytes;
    r.src_host = f.src;
    r.dst_host = f.dst;
    r.sport = flow_sport(f, w.seed);
    const uint32_t plane = flow_plane(w.seed, f.id, w.topo.planes);
    if (w.topo.planes > 1) r.plane = plane;
    w.flow_src[i] = w.topo.port_of(f.src, plane);
    w.flow_dst[i] = w.topo.port_of(f.dst, plane);
    if (w.phase_flows.size() <= f.phase) w.phase_flows.resize(f.phase + 1);
    if (f.phase > 0) w.phase_flows[f.phase].push_back(static_cast<uint32_t>(i));
  }
}

// Each flow's ideal FCT for its slowdown: rocelb's, or ns-3's standalone_fct.
void FabricRun::Impl::set_ideals(bool ns3) {
  HostPaths paths(w.topo);
  for (size_t i = 0; i < w.records.size(); ++i) {
    const std::vector<PathLink>& path = paths.path(w.flow_src[i], w.flow_dst[i]);
    const uint64_t size = w.workload.flows[i].size_bytes;
    w.records[i].ideal_fct_ns =
        ns3 ? ns3_standalone_fct_ns(path, size, w.nic_params.mtu)
            : (ideal_fct_ps(path, size, w.nic_params.mtu, w.nic_params.framing) + 999) / 1000;
  }
}

void FabricRun::Impl::open_captures(const std::vector<std::string>& specs, OutputDir& out,
                                    std::vector<std::string>& names, bool pcapng) {
  for (const std::string& spec : specs) {
    const CaptureTarget c = capture_target(w.topo, spec);
    std::string file;
    if (c.host) {
      file = FrameSink::file_name("capture-" + spec, pcapng);
      if (!w.hosts[c.index].capture.is_open())
        w.hosts[c.index].capture.open(out.staged(file), pcapng, spec);
    } else {
      const std::string& swname = w.sw[c.index].name;
      file = FrameSink::file_name("capture-" + swname + "-" + std::to_string(c.port), pcapng);
      if (!w.sw[c.index].capture[c.port].is_open())
        w.sw[c.index].capture[c.port].open(out.staged(file), pcapng, port_name(swname, c.port));
    }
    if (std::find(names.begin(), names.end(), file) == names.end()) names.push_back(file);
  }
}

// A flow still running when the run ends reports what it did so far: the
// packets it sent, retransmitted and the CNPs it got.
void FabricRun::Impl::record_unfinished() {
  for (size_t i = 0; i < w.records.size(); ++i) {
    FlowRecord& r = w.records[i];
    if (r.finish_ns) continue;
    const NicFlowStats* st = w.hosts[w.flow_src[i]].nic->flow(i);
    if (!st) continue;  // never started
    r.packets = st->packets;
    r.retransmitted_packets = st->retransmitted_packets;
    r.cnps_received = st->cnps_received;
  }
}

namespace {

uint64_t count_numbers(const Json& j) {
  if (j.is_number()) return 1;
  uint64_t n = 0;
  if (j.is_structured())
    for (const Json& v : j) n += count_numbers(v);
  return n;
}

// An interval as a duration option would give it: "1us", "100us", "1500ns".
std::string interval_text(uint64_t ns) {
  if (ns % 1'000'000'000 == 0) return std::to_string(ns / 1'000'000'000) + "s";
  if (ns % 1'000'000 == 0) return std::to_string(ns / 1'000'000) + "ms";
  if (ns % 1000 == 0) return std::to_string(ns / 1000) + "us";
  return std::to_string(ns) + "ns";
}

}  // namespace

std::optional<std::string> fabric_output_problem(const Topology& topo, const Workload& wl,
                                                 const FabricRunOptions& opt) {
  if (opt.link_window_ns < kMinLinkWindowNs)
    return "--link-window " + interval_text(opt.link_window_ns) + ": at least " +
           interval_text(kMinLinkWindowNs);
  if (opt.record.timeline_ns && opt.record.timeline_ns < kMinTimelineNs)
    return "--timeline " + interval_text(opt.record.timeline_ns) + ": at least " +
           interval_text(kMinTimelineNs);
  if (opt.threads > 1 && (!opt.captures.empty() || opt.record.events || opt.record.timeline_ns))
    return "--threads " + std::to_string(opt.threads) +
           ": --capture, --events and --timeline need --threads 1 (their files are written in "
           "one time order)";
  FabricOutputPlan plan;
  plan.until_ns = opt.until_ns;
  plan.link_window_ns = opt.link_window_ns;
  plan.link_window_text = interval_text(opt.link_window_ns);
  plan.timeline_text = interval_text(opt.record.timeline_ns);
  plan.record = opt.record;
  for (const std::string& c : opt.captures)
    if (c.find(':') == std::string::npos) plan.host_captures.push_back(c);
  return fabric_output_refusal(estimate_fabric_output(topo, wl, plan), opt.record.max_output);
}

// The most flows.csv, summary.json, the counters and run.json can take: the
// counters' text now with every number at 20 digits, every flow's row at its
// longest, and room for the summary, the manifest and the captures' headers.
uint64_t FabricRun::Impl::own_output_bound(size_t captures, bool fct_txt) const {
  uint64_t b = (256 << 10) + captures * FrameSink::kMaxHeaderBytes;
  for (const SwitchNode& n : w.sw) {
    const Json j = counters_to_json(*n.dp, n.dp->snapshot(), 0);
    b += j.dump(2).size() + 64 + 20 * count_numbers(j);
    b += run_manifest_switch(n.name, n.dp->config()).dump(2).size() + 1024;
  }
  for (const FlowRecord& r : w.records) b += 240 + r.src.size() + r.dst.size();
  if (fct_txt) b += w.records.size() * 96;  // out_fct.txt: eight numbers a line
  return b;
}

void FabricRun::Impl::write_links(const std::string& path, uint64_t end_ns) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw FabricError("cannot create " + path + ": " + std::strerror(errno));
  errno = 0;
  bool ok = std::fputs(LinkMeters::header(), f) >= 0 && w.links.write(f, end_ns);
  int err = ok ? 0 : errno;
  if (std::fflush(f) != 0 && !err) err = errno ? errno : -1;
  if (std::fclose(f) != 0 && !err) err = errno ? errno : -1;
  if (!ok || err) throw FabricError(write_error(path, err ? err : -1));
}

// What the run will write, before anything is (output_budget.h,
// fabric_output_estimate.h): its own outputs set aside under --max-output,
// the folder staged with the captures, a destination in the way found now,
// and what the switches did recorded as it happens.
void FabricRun::Impl::open_outputs(const FabricRunOptions& opt, RunOutputs& outs,
                                   std::vector<std::string>& names) {
  const uint64_t own = own_output_bound(opt.captures.size(), opt.fct_txt);
  outs.reserve(own, [&] {
    return "--max-output " + format_bytes(opt.record.max_output) +
           ": less than the run's own outputs may need (flows.csv, summary.json, the "
           "counters and run.json: about " +
           human_bytes(static_cast<double>(own)) + ")";
  });
  w.budget = &outs.budget();
  w.links.start(opt.link_window_ns, w.budget);
  names = {"flows.csv", "summary.json", "links.csv", "run.json"};
  if (opt.fct_txt) names.push_back("out_fct.txt");
  for (const SwitchNode& n : w.sw) names.push_back(n.name + ".counters.json");
  if (opt.record.events) names.push_back("events.jsonl");
  if (opt.record.timeline_ns) names.push_back("timeline.csv");
  outs.open(opt.out_dir);
  try {
    open_captures(opt.captures, outs.dir(), names, opt.record.pcapng);
  } catch (const OutputDirError& e) {
    throw FabricError(e.what());
  }
  outs.check(names);
  w.recorder = outs.start_recorder(0);
  if (!w.recorder) return;
  for (SwitchNode& n : w.sw) n.rec = &w.recorder->add(n.name, *n.dp);
  for (size_t h = 0; h < w.hosts.size(); ++h)
    w.recorder->add_host(w.topo.port_name(h), w.hosts[h].nic->counters());
}

// The shards (fabric_partition.h): each node told its shard, each shard
// its own packet pool (shard 0 the one the switches were built with).
void FabricRun::Impl::make_shards(uint32_t threads, uint64_t link_window_ns) {
  // The event order tells nodes apart by index (fabric_event.h).
  if (w.sw.size() >= kMaxOrderedNodes || w.hosts.size() >= kMaxOrderedNodes)
    throw FabricError("the fabric has " + std::to_string(w.sw.size()) + " switches and " +
                      std::to_string(w.hosts.size()) + " host ports: at most " +
                      std::to_string(kMaxOrderedNodes - 1) + " of each");
  const FabricPartition part = partition_fabric(w.topo, threads);
  extra_pools.clear();
  for (uint32_t k = 1; k < part.shards; ++k) extra_pools.push_back(fabric_pool(w));
  auto pool_of = [&](uint32_t k) -> GrowingMbufPool& {
    return k == 0 ? *pool_owner : *extra_pools[k - 1];
  };
  for (size_t s = 0; s < w.sw.size(); ++s) {
    w.sw[s].shard = part.switch_shard[s];
    w.sw[s].dp->set_control_pool(pool_of(part.switch_shard[s]).get());
  }
  for (size_t h = 0; h < w.hosts.size(); ++h) w.hosts[h].shard = part.host_shard[h];
  shards.clear();
  for (uint32_t k = 0; k < part.shards; ++k)
    shards.push_back(std::make_unique<FabricShard>(w, k, part.shards, pool_of(k), link_window_ns));
}

// Every switch's clock from zero, the links the topology has down (both
// ends, for the whole run), every node's schedule empty, the phases'
// counts, and each shard's first flows.
void FabricRun::Impl::start() {
  for (SwitchNode& n : w.sw) {
    n.clock->reset();
    for (WakeKeys& k : n.wake) k.clear();
  }
  for (HostNode& h : w.hosts) h.wake.clear();
  for (const FabricLink& l : w.topo.links)
    if (!l.up) {
      w.sw[l.a_sw].clock->link(l.a_port, false, 0);
      w.sw[l.b_sw].clock->link(l.b_port, false, 0);
    }
  for (SwitchNode& n : w.sw) n.clock->take_changed([](uint16_t) {});
  finished = 0;
  phase_left.assign(w.phase_flows.size(), 0);
  for (const FabricFlow& f : w.workload.flows) ++phase_left[f.phase];
  phase_last_ps.assign(w.phase_flows.size(), 0);
  phase_launched.assign(w.phase_flows.size(), false);
  for (auto& sh : shards) sh->start();
}

// The end of a window, with every shard waiting: an error or a signal stops
// the run; finished flows counted, a phase whose last flow finished starts
// the next one (at the end of this window at the earliest: a shard may
// have run its hosts up to there); the next window starts at the earliest
// event left anywhere and lasts the lookahead, up to until_ps.
void FabricRun::Impl::close_window(uint64_t until_ps, uint64_t flows) noexcept {
  try {
    check_run_interrupt();  // SIGINT, SIGTERM: nothing written (run_interrupt.h)
    ++ws.windows;
    for (const auto& sh : shards)
      if (sh->error()) {
        ws.error = sh->error();
        ws.stop = true;
        return;
      }
    ws.phase_starts.clear();
    for (const auto& sh : shards)
      for (const FlowDone& d : sh->done()) {
        ++finished;
        const uint32_t ph = w.workload.flows[d.flow].phase;
        phase_last_ps[ph] = std::max(phase_last_ps[ph], d.now_ps);
        --phase_left[ph];
      }
    for (uint32_t ph = 0; ph + 1 < phase_left.size(); ++ph) {
      if (phase_left[ph] != 0 || phase_launched[ph]) continue;
      phase_launched[ph] = true;
      for (uint32_t f : w.phase_flows[ph + 1]) {
        const uint64_t at =
            phase_last_ps[ph] + (w.workload.phase_gap_ns + w.workload.flows[f].start_ns) * 1000;
        ws.phase_starts.emplace_back(std::max(at, ws.end_ps), f);
      }
    }
    uint64_t next = kNeverPs;
    for (const auto& sh : shards) next = std::min(next, sh->next_ps(ws.parity));
    for (const auto& [t, f] : ws.phase_starts) next = std::min(next, t);
    if (finished >= flows || next == kNeverPs || next > until_ps) {
      ws.stop = true;
      return;
    }
    ws.parity ^= 1;
    ws.end_ps = std::min(next + std::min(lookahead_ps, kNeverPs - next), until_ps + 1);
  } catch (...) {
    ws.error = std::current_exception();
    ws.stop = true;
  }
}

// Windows until every flow finished, nothing is left or until_ps; with
// more than one shard, one thread per shard (this one runs shard 0), all
// meeting at each window's end.
void FabricRun::Impl::run_windows(uint64_t until_ps, FabricResult& res) {
  ws = WindowState{};
  uint64_t first = kNeverPs;
  for (const auto& sh : shards) first = std::min(first, sh->next_ps(0));
  ws.stop = first == kNeverPs || first > until_ps || res.flows == 0;
  ws.end_ps =
      ws.stop ? 0 : std::min(first + std::min(lookahead_ps, kNeverPs - first), until_ps + 1);
  auto window = [&](FabricShard& sh) {
    sh.begin_window(shards, ws.parity ^ 1, ws.phase_starts);
    sh.run_window(ws.end_ps, ws.parity);
  };
  if (shards.size() == 1) {
    while (!ws.stop) {
      window(*shards[0]);
      close_window(until_ps, res.flows);
    }
  } else if (!ws.stop) {
    std::barrier sync(static_cast<std::ptrdiff_t>(shards.size()),
                      [&]() noexcept { close_window(until_ps, res.flows); });
    auto body = [&](FabricShard& sh) {
      do {
        window(sh);
        sync.arrive_and_wait();
      } while (!ws.stop);
    };
    std::vector<std::thread> threads;
    for (size_t k = 1; k < shards.size(); ++k)
      threads.emplace_back([&, k] {
        // Any core (EAL pinned the thread that made it to one), and an lcore
        // of its own: its pool's per-lcore cache (none without).
        unpin_this_thread();
        const bool registered = rte_thread_register() == 0;
        body(*shards[k]);
        if (registered) rte_thread_unregister();
      });
    body(*shards[0]);
    for (std::thread& t : threads) t.join();
  }
  for (const auto& sh : shards) {
    res.events += sh->events();
    res.sim_ns = std::max(res.sim_ns, sh->last_ps() / 1000);
  }
  if (ws.error) std::rethrow_exception(ws.error);
}

// The run's end: unfinished flows report what they did, the recordings end
// (before the queues are flushed: the last interval as the run left it),
// frames still on wires are dropped with the run and queued ones flushed
// (counted `flushed` by their switch). Returns the frames on wires;
// `counters` gets every switch's.
uint64_t FabricRun::Impl::end(RunOutputs& outs, FabricResult& res, std::vector<Json>& counters) {
  res.flows_finished = finished;
  record_unfinished();
  outs.finish_recorder(res.sim_ns);
  uint64_t on_wires = 0;
  for (auto& sh : shards) on_wires += sh->drop_in_flight(ws.parity);
  for (SwitchNode& n : w.sw) {
    n.dp->flush();
    Json j = counters_to_json(*n.dp, n.dp->snapshot(), res.sim_ns);
    j["switch"] = n.name;
    res.conserved = res.conserved && j["totals"]["conserved"].get<bool>();
    counters.push_back(std::move(j));
  }
  if (shards.size() > 1) {
    std::vector<const LinkTally*> tallies;
    for (const auto& sh : shards) tallies.push_back(&sh->tally());
    merge_link_tallies(tallies, w.links);
  }
  return on_wires;
}

// Outputs, all together or none.
void FabricRun::Impl::write_outputs(const FabricRunOptions& opt, RunOutputs& outs,
                                    const std::vector<std::string>& names,
                                    const std::vector<Json>& counters, const FabricResult& res,
                                    uint64_t on_wires) {
  for (size_t s = 0; s < w.sw.size(); ++s)
    outs.write(w.sw[s].name + ".counters.json", counters[s].dump(2) + "\n");
  outs.write("flows.csv", flows_csv(w.records));
  if (opt.fct_txt) outs.write("out_fct.txt", fct_txt(w.records));
  write_links(outs.staged("links.csv"), res.sim_ns);
  for (SwitchNode& n : w.sw)
    for (auto& c : n.capture) c.close();
  for (HostNode& h : w.hosts) h.capture.close();
  std::vector<const NicCounters*> nics;
  for (const HostNode& h : w.hosts) nics.push_back(&h.nic->counters());
  RunFacts facts;
  facts.topology = w.topo.source;
  facts.workload = w.workload.description;
  facts.seed = w.seed;
  facts.command_line = opt.command_line;
  facts.ideal_fct = opt.ns3_ideal ? "ns3" : "rocelb";
  facts.sim_ns = res.sim_ns;
  facts.wall_s = res.wall_s;
  facts.events = res.events;
  facts.peak_rss_kb = peak_rss_kb();
  facts.frames_on_wires_at_end = on_wires;
  const FabricMemory mem =
      estimate_fabric_memory(w.topo, &w.workload, w.pool_mbufs);  // as the refusal
  for (size_t s = 0; s < w.sw.size(); ++s)
    facts.memory.switch_bytes.push_back({w.sw[s].name, mem.per_switch[s]});
  facts.memory.pool_mbufs = pool_owner->populated();
  facts.memory.pool_max_mbufs = pool_owner->capacity();
  for (const auto& p : extra_pools) {
    facts.memory.pool_mbufs += p->populated();
    facts.memory.pool_max_mbufs += p->capacity();
  }
  facts.memory.pool_mbuf_bytes = fabric_pool_object_bytes(w.nic_params.mtu);
  // Per host: its NIC ports' together.
  facts.memory.host_bytes.assign(w.topo.hosts.size(), 0);
  for (size_t h = 0; h < w.hosts.size(); ++h)
    facts.memory.host_bytes[h % w.topo.hosts.size()] += w.hosts[h].nic->state_bytes();
  facts.threads = static_cast<uint32_t>(shards.size());
  facts.windows = ws.windows;
  facts.lookahead_ps = lookahead_ps;
  for (const auto& sh : shards) facts.frames_between_threads += sh->frames_to_other_shards();
  outs.write("summary.json", fabric_summary(facts, w.records, counters, nics).dump(2) + "\n");
  RunManifest manifest;
  manifest.kind = "fabric";
  manifest.end_ns = res.sim_ns;
  for (SwitchNode& n : w.sw)
    manifest.switches.push_back(run_manifest_switch(n.name, n.dp->config()));
  manifest.extra["topology"] = w.topo.source;
  manifest.extra["workload"] = w.workload.description;
  manifest.extra["seed"] = w.seed;
  outs.commit(std::move(manifest), names);
}

FabricResult FabricRun::run(const FabricRunOptions& opt) {
  Impl& I = *impl_;
  const auto wall0 = std::chrono::steady_clock::now();
  check_run_interrupt();
  if (const auto why = fabric_output_problem(I.w.topo, I.w.workload, opt)) throw FabricError(*why);
  RunOutputs outs(opt.record, fail);
  struct Detach {  // the budget and the recorders die with this run: nothing keeps them
    Impl& impl;
    ~Detach() {
      impl.w.budget = nullptr;
      impl.w.links.start(100'000, nullptr);
      impl.w.recorder = nullptr;
      for (SwitchNode& n : impl.w.sw) n.rec = nullptr;
      impl.release_events();
    }
  } detach{I};
  std::vector<std::string> names;
  I.open_outputs(opt, outs, names);
  I.set_ideals(opt.ns3_ideal);
  I.make_shards(opt.threads, opt.link_window_ns);
  I.start();
  uint64_t last_start_ns = 0;
  for (const FabricFlow& f : I.w.workload.flows)
    if (f.phase == 0) last_start_ns = std::max(last_start_ns, f.start_ns);
  const uint64_t until_ps =
      opt.until_ns ? opt.until_ns * 1000 : (last_start_ns + kDefaultGraceNs) * 1000;
  FabricResult res;
  res.flows = I.w.workload.flows.size();
  I.run_windows(until_ps, res);

  std::vector<Json> counters;
  const uint64_t on_wires = I.end(outs, res, counters);
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  res.threads = static_cast<uint32_t>(I.shards.size());
  I.write_outputs(opt, outs, names, counters, res, on_wires);
  res.recording_stopped = outs.recording_stopped();
  res.recording_stopped_ns = outs.recording_stopped() ? outs.recording_stopped_ns() : 0;
  return res;
}

}  // namespace rocelb
