#include "dataplane/run/fabric_run.h"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sys/resource.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <optional>

#include "control/human_units.h"
#include "control/units.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/record/counters_json.h"
#include "dataplane/record/frame_sink.h"
#include "dataplane/record/link_meters.h"
#include "dataplane/record/output_budget.h"
#include "dataplane/record/output_dir.h"
#include "dataplane/record/run_interrupt.h"
#include "dataplane/record/run_manifest.h"
#include "dataplane/record/run_outputs.h"
#include "dataplane/record/write_file.h"
#include "dataplane/run/event_queue.h"
#include "dataplane/run/fabric_memory.h"
#include "dataplane/run/fabric_output_estimate.h"
#include "dataplane/run/growing_mbuf_pool.h"
#include "dataplane/run/switch_clock.h"
#include "dataplane/sim/fabric_report.h"
#include "dataplane/sim/fabric_summary.h"
#include "dataplane/sim/ideal_fct.h"
#include "dataplane/sim/roce_nic.h"
#include "dataplane/wire/pcap_file.h"
#include "lb/lb_rng.h"

namespace rocelb {

namespace {

constexpr uint64_t kNever = UINT64_MAX;
constexpr uint64_t kDefaultGraceNs = 1'000'000'000;  // after the last flow start
std::atomic<uint64_t> g_pool_seq{0};

uint64_t wire_ps(uint64_t frame_bytes, uint64_t bps) {
  const unsigned __int128 bits =
      static_cast<unsigned __int128>(frame_bytes + kWireOverheadBytes) * 8 * 1'000'000'000'000ull;
  return static_cast<uint64_t>((bits + bps - 1) / bps);
}

enum class Ev : uint8_t {
  kPort,       // a switch port's scheduled look (a = switch, b = port)
  kToSwitch,   // a frame's last bit reaches switch a's port b
  kToHost,     // a frame's last bit reaches host a's NIC
  kHostWake,   // host a's NIC asked to be polled
  kFlowStart,  // flow a starts (timetable: whether it is a phase-0 flow at its time)
};

// Ordered by (t, push order) in the EventQueue.
struct Event {
  uint64_t t = 0;
  Ev kind = Ev::kPort;
  // kFlowStart: a phase-0 flow started from the timetable at its own time;
  // its start pushes the timetable's next flow (a later phase's flow starts
  // when the phase before it ends, and pushes nothing).
  bool timetable = false;
  uint32_t a = 0;
  uint32_t b = 0;
  uint32_t len = 0;  // kToSwitch without an mbuf: the frame's length
  rte_mbuf* m = nullptr;
};

// The far end of a wire, as seen from the end that sends.
struct Peer {
  bool to_host = false;
  uint32_t index = 0;  // switch or host
  uint16_t port = 0;   // switch port
  uint64_t speed_bps = 0;
  uint64_t delay_ps = 0;
  bool connected = false;
};

struct SwitchNode {
  std::string name;
  std::unique_ptr<Dataplane> dp;
  std::unique_ptr<SwitchClock> clock;
  std::array<uint64_t, kMaxPorts> sched{};  // time of the live kPort event per port
  std::array<Peer, kMaxPorts> peer{};
  std::array<uint32_t, kMaxPorts> meter{};  // its link direction in Impl::links
  std::array<FrameSink, kMaxPorts> capture{};
  SwitchRecorder* rec = nullptr;  // with RecordOptions: what the switch did, told as it goes
};

struct HostNode {
  std::unique_ptr<RoceNic> nic;
  uint64_t sched = kNever;  // time of the live kHostWake event
  Peer peer;
  uint32_t meter = 0;
  FrameSink capture;
};

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

struct FabricRun::Impl {
  Topology topo;
  NicParams nic_params;
  Workload workload;
  uint64_t seed = 1;
  std::unique_ptr<GrowingMbufPool> pool_owner;  // make_pool; keep_free() before each event
  rte_mempool* pool = nullptr;                  // its mempool
  std::vector<SwitchNode> sw;
  std::vector<HostNode> hosts;
  LinkMeters links;                // links.csv
  OutputBudget* budget = nullptr;  // --max-output, while a run runs
  std::vector<FlowRecord> records;
  std::vector<uint64_t> ideal_ps;

  // The run's state.
  EventQueue<Event> heap;  // lanes: one per wire direction (its meter)
  uint32_t wires = 0;      // wire directions: links.csv meters
  std::vector<uint8_t> buf;
  std::vector<uint8_t> scratch;
  uint64_t finished = 0;
  uint64_t frames_lost_no_buffer = 0;
  // Phases (all_to_all): flows of phase k wait for every flow of phase k-1.
  std::vector<uint64_t> phase_left;
  std::vector<std::vector<uint32_t>> phase_flows;
  size_t next_flow = 0;  // the next phase-0 flow to start (flows are in start order)

  std::string comment;              // a departure's pcapng annotation
  RunRecorder* recorder = nullptr;  // with RecordOptions, while a run runs

  void push(uint64_t t, Ev kind, uint32_t a, uint32_t b, rte_mbuf* m = nullptr, uint32_t len = 0) {
    heap.push(t, Event{t, kind, false, a, b, len, m});
  }
  // A frame onto the wire whose links.csv meter is `lane`: a wire delivers in
  // the order it sends, so its frames queue in one lane of the event queue.
  void push_wire(uint32_t lane, uint64_t t, Ev kind, uint32_t a, uint32_t b, rte_mbuf* m,
                 uint32_t len) {
    heap.push_lane(lane, t, Event{t, kind, false, a, b, len, m});
  }
  void push_flow_start(uint64_t t, uint32_t flow, bool timetable) {
    heap.push(t, Event{t, Ev::kFlowStart, timetable, flow, 0, 0, nullptr});
  }

  void build();
  void make_pool();
  void make_switches();
  void connect();
  void make_flow_records();
  void open_outputs(const FabricRunOptions& opt, RunOutputs& outs, std::vector<std::string>& names);
  void open_captures(const std::vector<std::string>& specs, OutputDir& out,
                     std::vector<std::string>& names, bool pcapng);
  void start();
  void push_next_flow();
  void loop(uint64_t until_ps, FabricResult& res);
  void on_port(const Event& e);
  void on_to_switch(const Event& e);
  void on_to_host(const Event& e);
  uint64_t end(RunOutputs& outs, FabricResult& res, std::vector<Json>& counters);
  void write_outputs(const FabricRunOptions& opt, RunOutputs& outs,
                     const std::vector<std::string>& names, const std::vector<Json>& counters,
                     const FabricResult& res, uint64_t on_wires);
  void schedule_switch(uint32_t s);
  void schedule_host(uint32_t h, uint64_t now_ps);
  void send_frame(const Peer& to, uint32_t wire, rte_mbuf* m, uint64_t start_ps);
  void host_send(uint32_t h, uint64_t now_ps);
  void start_flow(uint32_t f, uint64_t now_ps);
  void collect(uint32_t h, uint64_t now_ps);
  void record_unfinished();
  uint64_t own_output_bound(size_t captures) const;
  void write_links(const std::string& path, uint64_t end_ns);
  void release_events();
};

CaptureTarget capture_target(const Topology& topo, const std::string& spec) {
  CaptureTarget c;
  const auto colon = spec.find(':');
  if (colon == std::string::npos) {
    const auto h = topo.host_index(spec);
    if (!h)
      throw FabricError("--capture " + spec + ": \"" + spec +
                        "\" is neither a host nor SWITCH:PORT");
    c.host = true;
    c.index = *h;
    return c;
  }
  const std::string swname = spec.substr(0, colon), port = spec.substr(colon + 1);
  const auto s = topo.switch_index(swname);
  if (!s) throw FabricError("--capture " + spec + ": no switch \"" + swname + "\"");
  bool connected = false;
  if (!port.empty() && port.size() <= 2 &&
      port.find_first_not_of("0123456789") == std::string::npos) {
    const auto p = static_cast<uint16_t>(std::stoul(port));
    for (const FabricLink& l : topo.links)
      connected = connected || (l.a_sw == *s && l.a_port == p) || (l.b_sw == *s && l.b_port == p);
    for (const FabricHost& h : topo.hosts) connected = connected || (h.sw == *s && h.port == p);
    c.port = p;
  }
  if (!connected)
    throw FabricError("--capture " + spec + ": " + swname + " has no connected port \"" + port +
                      "\"");
  c.index = *s;
  return c;
}

FabricRun::FabricRun(Topology topo, NicParams nic, Workload workload, uint64_t seed)
    : impl_(std::make_unique<Impl>()) {
  impl_->topo = std::move(topo);
  impl_->nic_params = nic;
  impl_->workload = std::move(workload);
  impl_->seed = seed;
  impl_->build();
}

FabricRun::~FabricRun() {
  impl_->release_events();
  impl_->sw.clear();  // Dataplanes free their queued mbufs into the pool
  impl_->hosts.clear();
  impl_->pool_owner.reset();
}

void FabricRun::Impl::release_events() {
  heap.for_each([](const Event& e) {
    if (e.m) rte_pktmbuf_free(e.m);
  });
  heap.clear();
}

void FabricRun::Impl::build() {
  make_pool();
  make_switches();
  connect();
  heap.set_lanes(wires);
  make_flow_records();
  buf.resize(16384);
  scratch.resize(16384);
}

// One pool for the fabric: a frame crosses switches without a copy. Its
// buffers hold the largest frame the NICs make in one segment; it fills a
// chunk at a time with the frames in flight, up to fabric_pool_mbufs()
// (growing_mbuf_pool.h: loop() keeps some free before each event, so a get
// fails only when that many are in use, as a fixed pool's would); its sizes
// and the rings' are fabric_memory.h's, which estimated them.
void FabricRun::Impl::make_pool() {
  pool_owner = std::make_unique<GrowingMbufPool>(
      "rl_fabric" + std::to_string(g_pool_seq.fetch_add(1)),
      fabric_pool_mbufs(topo.switches.size()), kPacketNotePrivSize,
      static_cast<uint16_t>(fabric_mbuf_room(nic_params.mtu) + RTE_PKTMBUF_HEADROOM),
      kFabricPoolChunk);
  pool_owner->keep_free();
  pool = pool_owner->get();
}

void FabricRun::Impl::make_switches() {
  sw.resize(topo.switches.size());
  for (size_t i = 0; i < topo.switches.size(); ++i) {
    ConfigParams p = topo.switches[i].params;
    // Switches in a row must not hash alike, and another seed is another
    // draw of collisions.
    p.sw.hash_seed = mix_seed(p.sw.hash_seed, mix_seed(seed, i + 1));
    SwitchNode& n = sw[i];
    n.name = topo.switches[i].name;
    n.dp = std::make_unique<Dataplane>(SwitchConfig::build(p), 1, kFabricRingSlots, 0);
    n.dp->set_control_pool(pool);
    n.clock = std::make_unique<SwitchClock>(*n.dp);
    n.sched.fill(kNever);
  }
}

// The wires: between switches, and between each host's NIC and its leaf,
// each direction with its links.csv meter.
void FabricRun::Impl::connect() {
  auto add_meter = [&](std::string from, std::string to, uint64_t speed) {
    const uint32_t m = links.add_link(std::move(from), std::move(to), speed);
    wires = std::max(wires, m + 1);
    return m;
  };
  // A switch port sends at its configured speed (so `--set
  // leaf0:ports[5].speed=25G` makes that one direction slower).
  auto speed_of = [&](uint32_t s, uint16_t port) {
    return sw[s].dp->config().ports[port].speed_bps;
  };
  for (const FabricLink& l : topo.links) {
    SwitchNode& a = sw[l.a_sw];
    SwitchNode& b = sw[l.b_sw];
    const uint64_t ab = speed_of(l.a_sw, l.a_port), ba = speed_of(l.b_sw, l.b_port);
    a.peer[l.a_port] = Peer{false, l.b_sw, l.b_port, ab, l.delay_ns * 1000, true};
    b.peer[l.b_port] = Peer{false, l.a_sw, l.a_port, ba, l.delay_ns * 1000, true};
    a.meter[l.a_port] = add_meter(port_name(a.name, l.a_port), port_name(b.name, l.b_port), ab);
    b.meter[l.b_port] = add_meter(port_name(b.name, l.b_port), port_name(a.name, l.a_port), ba);
  }
  hosts.resize(topo.hosts.size());
  for (size_t h = 0; h < topo.hosts.size(); ++h) {
    const FabricHost& fh = topo.hosts[h];
    NicAddress addr;
    addr.mac = fh.mac.b;
    addr.gateway_mac = fh.gateway_mac.b;
    addr.ipv4 = fh.ip.v4_host_order();
    addr.speed_bps = fh.speed_bps;
    hosts[h].nic = std::make_unique<RoceNic>(nic_params, addr);
    hosts[h].peer = Peer{false, fh.sw, fh.port, fh.speed_bps, fh.delay_ns * 1000, true};
    SwitchNode& leaf = sw[fh.sw];
    const uint64_t down = speed_of(fh.sw, fh.port);
    leaf.peer[fh.port] = Peer{true, static_cast<uint32_t>(h), 0, down, fh.delay_ns * 1000, true};
    hosts[h].meter = add_meter(fh.name, port_name(leaf.name, fh.port), fh.speed_bps);
    leaf.meter[fh.port] = add_meter(port_name(leaf.name, fh.port), fh.name, down);
  }
  // A port no link or host names: what it sends is dropped (`no_link`).
  for (SwitchNode& n : sw)
    for (uint16_t id : n.dp->config().port_ids)
      if (!n.peer[id].connected) n.clock->set_unlinked(id);
}

// Flow records, their ideal FCTs, and the phases.
void FabricRun::Impl::make_flow_records() {
  records.resize(workload.flows.size());
  HostPaths paths(topo);
  for (size_t i = 0; i < workload.flows.size(); ++i) {
    const FabricFlow& f = workload.flows[i];
    FlowRecord& r = records[i];
    r.id = f.id;
    r.src = topo.hosts[f.src].name;
    r.dst = topo.hosts[f.dst].name;
    r.size_bytes = f.size_bytes;
    r.ideal_fct_ns =
        (ideal_fct_ps(paths.path(f.src, f.dst), f.size_bytes, nic_params.mtu) + 999) / 1000;
    if (phase_left.size() <= f.phase) {
      phase_left.resize(f.phase + 1, 0);
      phase_flows.resize(f.phase + 1);
    }
    ++phase_left[f.phase];
    if (f.phase > 0) phase_flows[f.phase].push_back(static_cast<uint32_t>(i));
  }
}

void FabricRun::Impl::open_captures(const std::vector<std::string>& specs, OutputDir& out,
                                    std::vector<std::string>& names, bool pcapng) {
  for (const std::string& spec : specs) {
    const CaptureTarget c = capture_target(topo, spec);
    std::string file;
    if (c.host) {
      file = FrameSink::file_name("capture-" + spec, pcapng);
      if (!hosts[c.index].capture.is_open())
        hosts[c.index].capture.open(out.staged(file), pcapng, spec);
    } else {
      const std::string& swname = sw[c.index].name;
      file = FrameSink::file_name("capture-" + swname + "-" + std::to_string(c.port), pcapng);
      if (!sw[c.index].capture[c.port].is_open())
        sw[c.index].capture[c.port].open(out.staged(file), pcapng, port_name(swname, c.port));
    }
    if (std::find(names.begin(), names.end(), file) == names.end()) names.push_back(file);
  }
}

void FabricRun::Impl::schedule_switch(uint32_t s) {
  SwitchNode& n = sw[s];
  uint64_t changed = n.clock->take_changed();
  while (changed) {
    const uint16_t port = static_cast<uint16_t>(__builtin_ctzll(changed));
    changed &= changed - 1;
    const uint64_t t = n.clock->next_ps(port);
    if (t < n.sched[port]) {
      n.sched[port] = t;
      push(t, Ev::kPort, s, port);
    }
  }
}

void FabricRun::Impl::schedule_host(uint32_t h, uint64_t now_ps) {
  // The NIC says when it could act; never before now.
  const uint64_t t = std::max(hosts[h].nic->next_wakeup_ps(), now_ps);
  if (t < hosts[h].sched) {
    hosts[h].sched = t;
    push(t, Ev::kHostWake, h, 0);
  }
}

void FabricRun::Impl::send_frame(const Peer& to, uint32_t wire, rte_mbuf* m, uint64_t start_ps) {
  const uint64_t at = start_ps + wire_ps(m->pkt_len, to.speed_bps) + to.delay_ps;
  push_wire(wire, at, to.to_host ? Ev::kToHost : Ev::kToSwitch, to.index, to.port, m, m->pkt_len);
}

void FabricRun::Impl::collect(uint32_t h, uint64_t now_ps) {
  for (const NicFlowStats& st : hosts[h].nic->take_completed()) {
    FlowRecord& r = records[st.flow_id];
    r.finish_ns = st.finish_ps / 1000;
    r.packets = st.packets;
    r.retransmitted_packets = st.retransmitted_packets;
    r.cnps_received = st.cnps_received;
    ++finished;
    const uint32_t ph = workload.flows[st.flow_id].phase;
    if (--phase_left[ph] == 0 && ph + 1 < phase_flows.size())
      for (uint32_t f : phase_flows[ph + 1])
        push_flow_start(now_ps + (workload.phase_gap_ns + workload.flows[f].start_ns) * 1000, f,
                        false);
  }
}

// A flow still running when the run ends reports what it did so far: the
// packets it sent, retransmitted and the CNPs it got.
void FabricRun::Impl::record_unfinished() {
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].finish_ns) continue;
    const NicFlowStats* st = hosts[workload.flows[i].src].nic->flow(i);
    if (!st) continue;  // never started
    records[i].packets = st->packets;
    records[i].retransmitted_packets = st->retransmitted_packets;
    records[i].cnps_received = st->cnps_received;
  }
}

void FabricRun::Impl::start_flow(uint32_t i, uint64_t now_ps) {
  const FabricFlow& f = workload.flows[i];
  FlowRecord& r = records[i];
  r.start_ns = now_ps / 1000;
  // QPNs: one pair per flow (24 bits, never 0 or 1); the UDP source port a
  // NIC would pick for a new QP: seeded, so another seed is another draw of
  // ECMP collisions.
  const uint32_t qpn = f.qp.value_or(static_cast<uint32_t>(0x100 + (i % 0xFFFE00)));
  const uint32_t dst_qpn = static_cast<uint32_t>(0x100 + (i % 0xFFFE00));
  const uint16_t sport =
      f.sport.value_or(static_cast<uint16_t>(0xC000 | (mix_seed(seed, f.id) & 0x3FFF)));
  const uint8_t dscp = f.dscp.value_or(nic_params.data_dscp);
  const uint32_t src_ip = topo.hosts[f.src].ip.v4_host_order();
  const uint32_t dst_ip = topo.hosts[f.dst].ip.v4_host_order();
  try {
    hosts[f.dst].nic->accept_flow(dst_qpn, src_ip, qpn, sport, dscp, f.size_bytes);
    hosts[f.src].nic->start_flow(i, qpn, dst_ip, dst_qpn, sport, dscp, f.size_bytes, now_ps);
  } catch (const std::invalid_argument& e) {  // e.g. an explicit qp still busy
    throw FabricError(workload.source + ": flow " + std::to_string(f.id) + " (" + r.src + " -> " +
                      r.dst + " at " + std::to_string(r.start_ns) + " ns): " + e.what());
  }
  schedule_host(f.src, now_ps);
  schedule_host(f.dst, now_ps);
}

void FabricRun::Impl::host_send(uint32_t h, uint64_t now_ps) {
  HostNode& host = hosts[h];
  uint64_t start = now_ps;
  const uint32_t len =
      host.nic->poll(now_ps, buf.data(), static_cast<uint32_t>(buf.size()), &start);
  if (len > 0) {
    links.add(host.meter, start, len + kWireOverheadBytes);
    if (host.capture.is_open() &&
        budget->take(FrameSink::record_bytes(len, 0, host.capture.pcapng()), start / 1000))
      host.capture.write(start / 1000, buf.data(), len, {});
    rte_mbuf* m = mbuf_from_bytes(pool, buf.data(), len);
    const uint64_t at = start + wire_ps(len, host.peer.speed_bps) + host.peer.delay_ps;
    push_wire(host.meter, at, Ev::kToSwitch, host.peer.index, host.peer.port, m,
              len);  // m null: no buffer
  }
  collect(h, now_ps);
  schedule_host(h, now_ps);
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
uint64_t FabricRun::Impl::own_output_bound(size_t captures) const {
  uint64_t b = (256 << 10) + captures * FrameSink::kMaxHeaderBytes;
  for (const SwitchNode& n : sw) {
    const Json j = counters_to_json(*n.dp, n.dp->snapshot(), 0);
    b += j.dump(2).size() + 64 + 20 * count_numbers(j);
    b += run_manifest_switch(n.name, n.dp->config()).dump(2).size() + 1024;
  }
  for (const FlowRecord& r : records) b += 240 + r.src.size() + r.dst.size();
  return b;
}

void FabricRun::Impl::write_links(const std::string& path, uint64_t end_ns) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw FabricError("cannot create " + path + ": " + std::strerror(errno));
  errno = 0;
  bool ok = std::fputs(LinkMeters::header(), f) >= 0 && links.write(f, end_ns);
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
  const uint64_t own = own_output_bound(opt.captures.size());
  outs.reserve(own, [&] {
    return "--max-output " + format_bytes(opt.record.max_output) +
           ": less than the run's own outputs may need (flows.csv, summary.json, the "
           "counters and run.json: about " +
           human_bytes(static_cast<double>(own)) + ")";
  });
  budget = &outs.budget();
  links.start(opt.link_window_ns, budget);
  names = {"flows.csv", "summary.json", "links.csv", "run.json"};
  for (const SwitchNode& n : sw) names.push_back(n.name + ".counters.json");
  if (opt.record.events) names.push_back("events.jsonl");
  if (opt.record.timeline_ns) names.push_back("timeline.csv");
  outs.open(opt.out_dir);
  try {
    open_captures(opt.captures, outs.dir(), names, opt.record.pcapng);
  } catch (const OutputDirError& e) {
    throw FabricError(e.what());
  }
  outs.check(names);
  recorder = outs.start_recorder(0);
  if (!recorder) return;
  for (SwitchNode& n : sw) n.rec = &recorder->add(n.name, *n.dp);
  for (size_t h = 0; h < hosts.size(); ++h)
    recorder->add_host(topo.hosts[h].name, hosts[h].nic->counters());
}

// Every switch's clock from zero, the links the topology has down (both
// ends, for the whole run), and the first flow of the timetable.
void FabricRun::Impl::start() {
  for (uint32_t s = 0; s < sw.size(); ++s) sw[s].clock->reset();
  for (const FabricLink& l : topo.links)
    if (!l.up) {
      sw[l.a_sw].clock->link(l.a_port, false, 0);
      sw[l.b_sw].clock->link(l.b_port, false, 0);
    }
  for (uint32_t s = 0; s < sw.size(); ++s) sw[s].clock->take_changed();
  push_next_flow();
}

// Phase 0 flows start at their times, one event ahead at a time.
void FabricRun::Impl::push_next_flow() {
  while (next_flow < workload.flows.size() && workload.flows[next_flow].phase != 0) ++next_flow;
  if (next_flow < workload.flows.size()) {
    push_flow_start(workload.flows[next_flow].start_ns * 1000, static_cast<uint32_t>(next_flow),
                    true);
    ++next_flow;
  }
}

// Events in time order until every flow finished or until_ps.
void FabricRun::Impl::loop(uint64_t until_ps, FabricResult& res) {
  uint64_t now = 0;
  while (!heap.empty() && finished < res.flows) {
    check_run_interrupt();  // SIGINT, SIGTERM: nothing written (run_interrupt.h)
    if (heap.top_time() > until_ps) break;
    pool_owner->keep_free();  // what the event may allocate is there (make_pool)
    const Event e = heap.pop();
    now = e.t;
    ++res.events;
    if (recorder) recorder->advance(now / 1000);
    switch (e.kind) {
      case Ev::kPort:
        on_port(e);
        break;
      case Ev::kToSwitch:
        on_to_switch(e);
        break;
      case Ev::kToHost:
        on_to_host(e);
        break;
      case Ev::kHostWake:
        if (hosts[e.a].sched != e.t) break;  // superseded by an earlier wake
        hosts[e.a].sched = kNever;
        host_send(e.a, now);
        break;
      case Ev::kFlowStart:
        start_flow(e.a, now);
        if (e.timetable) push_next_flow();
        break;
    }
  }
  res.sim_ns = now / 1000;
}

// Switch e.a's port e.b may send: a frame onto its wire (metered, recorded,
// captured), and the port's next look scheduled.
void FabricRun::Impl::on_port(const Event& e) {
  SwitchNode& n = sw[e.a];
  if (n.sched[e.b] != e.t) return;  // superseded by an earlier look
  n.sched[e.b] = kNever;
  const uint64_t now = e.t;
  n.clock->begin_event(now);
  uint64_t start = 0;
  const uint16_t port = static_cast<uint16_t>(e.b);
  if (rte_mbuf* m = n.clock->depart(port, now, &start)) {
    const Peer& to = n.peer[port];
    links.add(n.meter[port], start, m->pkt_len + kWireOverheadBytes);
    const bool annotate = n.capture[port].pcapng();
    if (n.rec) n.rec->depart(port, m, start / 1000, annotate ? &comment : nullptr);
    if (n.capture[port].is_open() &&
        budget->take(FrameSink::record_bytes(m->pkt_len, annotate ? comment.size() : 0, annotate),
                     start / 1000))
      n.capture[port].write(start / 1000, mbuf_bytes(m, scratch.data()), m->pkt_len,
                            annotate ? comment : std::string());
    send_frame(to, n.meter[port], m, start);  // an unlinked port returns none (no_link)
  }
  schedule_switch(e.a);
}

void FabricRun::Impl::on_to_switch(const Event& e) {
  SwitchNode& n = sw[e.a];
  n.clock->begin_event(e.t);
  if (n.rec) n.rec->arrive(static_cast<uint16_t>(e.b), e.m, e.len, e.t / 1000);
  n.clock->arrive(static_cast<uint16_t>(e.b), e.m, e.len, e.t);
  schedule_switch(e.a);
}

void FabricRun::Impl::on_to_host(const Event& e) {
  const uint8_t* bytes = mbuf_bytes(e.m, scratch.data());
  hosts[e.a].nic->receive(bytes, e.m->pkt_len, e.t);
  rte_pktmbuf_free(e.m);
  collect(e.a, e.t);
  schedule_host(e.a, e.t);
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
  heap.for_each([&](const Event& e) {
    if (e.m) {
      ++on_wires;
      rte_pktmbuf_free(e.m);
    }
  });
  heap.clear();
  for (SwitchNode& n : sw) {
    n.dp->flush();
    Json j = counters_to_json(*n.dp, n.dp->snapshot(), res.sim_ns);
    j["switch"] = n.name;
    res.conserved = res.conserved && j["totals"]["conserved"].get<bool>();
    counters.push_back(std::move(j));
  }
  return on_wires;
}

// Outputs, all together or none.
void FabricRun::Impl::write_outputs(const FabricRunOptions& opt, RunOutputs& outs,
                                    const std::vector<std::string>& names,
                                    const std::vector<Json>& counters, const FabricResult& res,
                                    uint64_t on_wires) {
  for (size_t s = 0; s < sw.size(); ++s)
    outs.write(sw[s].name + ".counters.json", counters[s].dump(2) + "\n");
  outs.write("flows.csv", flows_csv(records));
  write_links(outs.staged("links.csv"), res.sim_ns);
  for (SwitchNode& n : sw)
    for (auto& c : n.capture) c.close();
  for (HostNode& h : hosts) h.capture.close();
  std::vector<const NicCounters*> nics;
  for (const HostNode& h : hosts) nics.push_back(&h.nic->counters());
  RunFacts facts;
  facts.topology = topo.source;
  facts.workload = workload.description;
  facts.seed = seed;
  facts.command_line = opt.command_line;
  facts.sim_ns = res.sim_ns;
  facts.wall_s = res.wall_s;
  facts.events = res.events;
  facts.peak_rss_kb = peak_rss_kb();
  facts.frames_on_wires_at_end = on_wires;
  const FabricMemory mem = estimate_fabric_memory(topo);  // as the switches allocated
  for (size_t s = 0; s < sw.size(); ++s)
    facts.memory.switch_bytes.push_back({sw[s].name, mem.per_switch[s]});
  facts.memory.pool_mbufs = pool_owner->populated();
  facts.memory.pool_max_mbufs = pool_owner->capacity();
  facts.memory.pool_mbuf_bytes = fabric_pool_object_bytes(nic_params.mtu);
  for (const HostNode& h : hosts) facts.memory.host_bytes.push_back(h.nic->state_bytes());
  outs.write("summary.json", fabric_summary(facts, records, counters, nics).dump(2) + "\n");
  RunManifest manifest;
  manifest.kind = "fabric";
  manifest.end_ns = res.sim_ns;
  for (SwitchNode& n : sw) manifest.switches.push_back(run_manifest_switch(n.name, n.dp->config()));
  manifest.extra["topology"] = topo.source;
  manifest.extra["workload"] = workload.description;
  manifest.extra["seed"] = seed;
  outs.commit(std::move(manifest), names);
}

FabricResult FabricRun::run(const FabricRunOptions& opt) {
  Impl& I = *impl_;
  const auto wall0 = std::chrono::steady_clock::now();
  check_run_interrupt();
  if (const auto why = fabric_output_problem(I.topo, I.workload, opt)) throw FabricError(*why);
  RunOutputs outs(opt.record, fail);
  struct Detach {  // the budget and the recorders die with this run: nothing keeps them
    Impl& impl;
    ~Detach() {
      impl.budget = nullptr;
      impl.links.start(100'000, nullptr);
      impl.recorder = nullptr;
      for (SwitchNode& n : impl.sw) n.rec = nullptr;
    }
  } detach{I};
  std::vector<std::string> names;
  I.open_outputs(opt, outs, names);

  I.start();
  uint64_t last_start_ns = 0;
  for (const FabricFlow& f : I.workload.flows)
    if (f.phase == 0) last_start_ns = std::max(last_start_ns, f.start_ns);
  const uint64_t until_ps =
      opt.until_ns ? opt.until_ns * 1000 : (last_start_ns + kDefaultGraceNs) * 1000;
  FabricResult res;
  res.flows = I.workload.flows.size();
  I.loop(until_ps, res);

  std::vector<Json> counters;
  const uint64_t on_wires = I.end(outs, res, counters);
  res.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  I.write_outputs(opt, outs, names, counters, res, on_wires);
  res.recording_stopped = outs.recording_stopped();
  res.recording_stopped_ns = outs.recording_stopped() ? outs.recording_stopped_ns() : 0;
  return res;
}

}  // namespace rocelb
