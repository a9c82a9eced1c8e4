#include "dataplane/run/replay_run.h"

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <sys/stat.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <limits>
#include <optional>
#include <utility>

#include "control/human_units.h"
#include "control/units.h"
#include "dataplane/forward/mbuf_handoff.h"
#include "dataplane/forward/mbuf_util.h"
#include "dataplane/record/frame_sink.h"
#include "dataplane/record/output_budget.h"
#include "dataplane/record/run_interrupt.h"
#include "dataplane/record/run_manifest.h"
#include "dataplane/record/run_outputs.h"
#include "dataplane/run/switch_clock.h"
#include "dataplane/run/upstream_sender.h"
#include "dataplane/wire/parser.h"
#include "dataplane/wire/pcap_file.h"
#include "pfc/pfc_frame.h"

namespace rocelb {

namespace {

std::atomic<uint64_t> g_pool_seq{0};
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();
constexpr uint64_t kDayNs = 86'400ull * 1'000'000'000ull;

std::string port_file(uint16_t id, bool pcapng) {
  return FrameSink::file_name("port" + std::to_string(id), pcapng);
}

// How errors name an input: as the user wrote it.
std::string spec(const ReplayInput& in) {
  return "--in " + std::to_string(in.port) + "=" + in.path;
}

struct OpenInput {
  const ReplayInput* in;
  std::unique_ptr<PcapReader> reader;
};

// The run's time zero: the earliest first record of the inputs.
struct TimeZero {
  uint64_t ns = 0;
  const ReplayInput* from = nullptr;  // nullptr: every input is empty
};

std::string span_error(const ReplayInput& in, const TimeSpanError& e, const TimeZero& t0) {
  char days[32];
  std::snprintf(days, sizeof days, "%.1f", static_cast<double>(e.ts_ns - t0.ns) / kDayNs);
  return spec(in) + ": record at byte offset " + std::to_string(e.offset) + " is " + days +
         " days after time zero (the first record of " + (t0.from ? spec(*t0.from) : "?") +
         "): a replay spans at most " + std::to_string(UpstreamSender::kMaxSpanDays) + " days";
}

// Runs f(), turning what reading input `in` throws into one ReplayError
// naming the input.
template <class F>
auto reading(const ReplayInput& in, const TimeZero& t0, F&& f) -> decltype(f()) {
  try {
    return f();
  } catch (const PcapError& e) {
    throw ReplayError(spec(in) + ": " + e.detail());
  } catch (const TimeSpanError& e) {
    throw ReplayError(span_error(in, e, t0));
  }
}

// Each input is for a port of the config that has no other input, and stdin
// feeds one input only. Checked before any is opened: opening a FIFO waits
// for its writer.
void check_inputs(const std::vector<ReplayInput>& inputs, const SwitchConfig& cfg) {
  for (auto in = inputs.begin(); in != inputs.end(); ++in) {
    if (!cfg.port(in->port))
      throw ReplayError(spec(*in) + ": port " + std::to_string(in->port) + " is not in the config");
    for (auto before = inputs.begin(); before != in; ++before) {
      if (before->port == in->port) throw ReplayError(spec(*in) + ": port already has an input");
      if (in->path == "-" && before->path == "-")
        throw ReplayError(spec(*in) + ": stdin is already the input of " + spec(*before));
    }
  }
}

// Opens every input once (a pipe has no second start) and reads its header.
std::vector<OpenInput> open_inputs(const std::vector<ReplayInput>& inputs,
                                   const SwitchConfig& cfg) {
  check_inputs(inputs, cfg);
  std::vector<OpenInput> opened;
  for (const auto& in : inputs) {
    OpenInput o{&in,
                reading(in, TimeZero{}, [&] { return std::make_unique<PcapReader>(in.path); })};
    if (o.reader->linktype() != kLinktypeEthernet)
      throw ReplayError(spec(in) + ": link type " + std::to_string(o.reader->linktype()) +
                        " is not Ethernet (1)");
    opened.push_back(std::move(o));
  }
  return opened;
}

TimeZero time_zero(std::vector<OpenInput>& opened) {
  TimeZero t0{kNever, nullptr};
  for (auto& o : opened) {
    const PcapRecord* first = reading(*o.in, t0, [&] { return o.reader->peek(); });
    if (first && first->ts_ns < t0.ns) t0 = {first->ts_ns, o.in};
  }
  return t0.from ? t0 : TimeZero{};
}

std::vector<std::string> output_names(const SwitchConfig& cfg, bool trace,
                                      const RecordOptions& rec) {
  std::vector<std::string> names;
  for (uint16_t id : cfg.port_ids) names.push_back(port_file(id, rec.pcapng));
  if (trace) names.push_back("trace.jsonl");
  if (rec.events) names.push_back("events.jsonl");
  if (rec.timeline_ns) names.push_back("timeline.csv");
  names.push_back("counters.json");
  names.push_back("run.json");
  return names;
}

}  // namespace

namespace {

// --trace's share of --max-output. DecisionLog writes whole lines into a
// buffered file the pipeline fills: every 1024 lines its size on disk (and
// what its buffer may hold) is counted, and the next 1024 lines at their
// longest must fit, or the trace ends.
class TraceMeter {
 public:
  explicit TraceMeter(std::string path) : path_(std::move(path)) {}
  bool fits(const DecisionLog& log, OutputBudget& budget, uint64_t now_ns) {
    if (budget.stopped()) return false;
    if (log.lines() < seen_ + kLines && seen_) return true;
    seen_ = log.lines() ? log.lines() : 1;
    struct stat st {};
    const uint64_t on_disk =
        ::stat(path_.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) + kBuffer : 0;
    const uint64_t more = on_disk > counted_ ? on_disk - counted_ : 0;
    if (!budget.room(more + kLines * kMaxLine, now_ns)) return false;
    budget.add(more);
    counted_ += more;
    return true;
  }

 private:
  static constexpr uint64_t kLines = 1024;
  static constexpr uint64_t kMaxLine = 4096;
  static constexpr uint64_t kBuffer = 64 << 10;
  std::string path_;
  uint64_t seen_ = 0;
  uint64_t counted_ = 0;
};

}  // namespace

// What a replay's own outputs may take: port pcaps as large as the regular
// input files (pipes cannot say; with pcapng, half as much again for the
// comments), their headers, counters.json and run.json.
uint64_t replay_own_output_bound(const std::vector<ReplayInput>& inputs, bool pcapng,
                                 const SwitchConfig& cfg) {
  uint64_t in = 0;
  for (const ReplayInput& i : inputs) {
    struct stat st {};
    if (i.path != "-" && ::stat(i.path.c_str(), &st) == 0 && S_ISREG(st.st_mode))
      in += static_cast<uint64_t>(st.st_size);
  }
  return (pcapng ? in + in / 2 : in) + cfg.port_ids.size() * (FrameSink::kMaxHeaderBytes + 8192) +
         (256 << 10);
}

ReplayRun::ReplayRun(std::unique_ptr<SwitchConfig> config, unsigned pool_mbufs) {
  std::string name = "rl_replay" + std::to_string(g_pool_seq.fetch_add(1));
  // Room for a PacketNote per mbuf: what --pcapng says of each packet.
  pool_ = std::make_unique<GrowingMbufPool>(name, pool_mbufs, kPacketNotePrivSize,
                                            RTE_MBUF_DEFAULT_BUF_SIZE);
  pool_->keep_free();
  // Rings hold at most the whole pool; a queue's byte limit is the real bound.
  unsigned ring = 1024;
  while (ring < pool_mbufs) ring <<= 1;
  dp_ = std::make_unique<Dataplane>(std::move(config), 1, ring, 0);
  dp_->set_control_pool(pool_->get());
}

ReplayRun::~ReplayRun() {
  dp_.reset();
  pool_.reset();
}

Json ReplayRun::counters() const {
  Json j = counters_to_json(*dp_, dp_->snapshot(), stats_.last_ns - stats_.first_ns);
  Json t;
  t["first_ns"] = stats_.first_ns;
  t["last_ns"] = stats_.last_ns;
  j["time"] = t;
  Json r;
  r["roce_packets"] = reorder_.roce_packets();
  r["qps"] = reorder_.qps();
  r["reordered_packets"] = reorder_.reordered_packets();
  r["max_psn_gap"] = reorder_.max_psn_gap();
  j["reordering"] = r;
  // The devices upstream of the input ports, honouring the switch's PFC.
  j["upstream"] = upstream_.is_null() ? Json::array() : upstream_;
  Json events = Json::array();  // the scheduled link faults (--event)
  for (const LinkEvent& e : link_events_)
    events.push_back({{"t_ns", e.t_ns}, {"port", e.port}, {"link", e.up ? "up" : "down"}});
  j["link_events"] = events;
  return j;
}

// One run(): its inputs and upstream devices, its outputs, the switch's
// clock, and the loop over events in time order.
struct ReplayRun::Pass {
  Pass(ReplayRun& r, const std::vector<ReplayInput>& inputs, bool trace,
       const RecordOptions& record)
      : r(r),
        cfg(r.dp_->config()),
        inputs(inputs),
        trace(trace),
        outs(record, [](const std::string& what) { throw ReplayError(what); }),
        scratch(1 << 18),
        clock(*r.dp_) {}
  ~Pass() { r.dp_->set_decision_log(nullptr); }  // the log dies with this run

  void open_inputs();
  void open_outputs(const std::string& out_dir);
  void loop();
  bool link_event_first(const UpstreamSender* in, int out, uint64_t out_ps, uint64_t event_ps);
  void depart(uint16_t port, uint64_t now_ps);
  void arrive(UpstreamSender& in, uint64_t now_ps);
  void refresh(UpstreamSender& s) {
    sender_next[s.port()] = reading(*input_of[s.port()], t0, [&] { return s.next_send_ps(); });
  }
  void finish();

  ReplayRun& r;
  const SwitchConfig& cfg;
  const std::vector<ReplayInput>& inputs;
  const bool trace;
  TimeZero t0;
  std::vector<std::unique_ptr<UpstreamSender>> senders;
  std::array<UpstreamSender*, kMaxPorts> sender_of{};
  std::array<const ReplayInput*, kMaxPorts> input_of{};
  std::array<uint64_t, kMaxPorts> sender_next{};
  RunOutputs outs;
  std::vector<std::string> names;
  std::unique_ptr<DecisionLog> log;
  std::optional<TraceMeter> trace_meter;
  std::array<FrameSink, kMaxPorts> sinks;
  SwitchRecorder* watch = nullptr;  // the switch's recorder, with a recording
  std::string comment;
  std::vector<uint8_t> scratch;
  SwitchClock clock;
  size_t next_event = 0;  // the next of link_events_
};

// 1. Every input opened once and checked before anything is written; time
// zero of the run is the earliest first timestamp of the inputs. 2. The
// devices upstream of the ports: a PFC frame the switch sends takes effect
// there after the cable (5 ns/m) and their response delay.
void ReplayRun::Pass::open_inputs() {
  std::vector<OpenInput> opened = rocelb::open_inputs(inputs, cfg);
  t0 = time_zero(opened);
  r.stats_ = ReplayStats{};
  r.reorder_ = ReorderMeter{};
  r.stats_.first_ns = t0.ns;
  r.stats_.last_ns = t0.ns;
  const PfcParams& pfc = cfg.params.qos.lossless.pfc;
  const uint64_t pause_delay_ps = (pfc.cable_length_m * 5 + pfc.response_delay_ns) * 1000;
  for (auto& o : opened) {
    senders.push_back(reading(*o.in, t0, [&] {
      return std::make_unique<UpstreamSender>(o.in->port, std::move(o.reader), cfg, t0.ns,
                                              pause_delay_ps);
    }));
    sender_of[o.in->port] = senders.back().get();
    input_of[o.in->port] = o.in;
  }
}

// 3. --max-output (output_budget.h): room for the port pcaps as large as the
// input files (half as much again with --pcapng's comments), the counters
// and run.json, set aside first; the recordings share what is left. The
// outputs are staged in a private folder; a destination in the way is found
// now, not after the run.
void ReplayRun::Pass::open_outputs(const std::string& out_dir) {
  const RecordOptions& record = outs.record();
  const uint64_t own = replay_own_output_bound(inputs, record.pcapng, cfg);
  outs.reserve(own, [&] {
    return "--max-output " + format_bytes(record.max_output) +
           ": less than the port pcaps (as large as the inputs), counters.json and "
           "run.json may need (about " +
           human_bytes(static_cast<double>(own)) + ")";
  });
  names = output_names(cfg, trace, record);
  outs.open(out_dir);
  outs.check(names);
  if (trace) log = std::make_unique<DecisionLog>(outs.staged("trace.jsonl"));
  trace_meter.emplace(outs.staged("trace.jsonl"));
  r.dp_->set_decision_log(log.get());
  if (log) log->set_time_base(t0.ns);
  for (uint16_t id : cfg.port_ids)
    sinks[id].open(outs.staged(port_file(id, record.pcapng)), record.pcapng, cfg.ports[id].name);
  // What the run records besides the pcaps (detached from the Dataplane
  // when it goes, whatever happens).
  if (RunRecorder* rec = outs.start_recorder(t0.ns)) watch = &rec->add(cfg.params.sw.name, *r.dp_);
}

// A link event goes first at its time: frames arriving then find the link
// as it becomes.
bool ReplayRun::Pass::link_event_first(const UpstreamSender* in, int out, uint64_t out_ps,
                                       uint64_t event_ps) {
  return event_ps != kNever && (!in || event_ps <= sender_next[in->port()]) &&
         (out < 0 || event_ps <= out_ps);
}

// 4. Events in time order: departures first at equal times, lower ports
// first; a link event goes before both at its time.
void ReplayRun::Pass::loop() {
  for (auto& s : senders) refresh(*s);
  r.lost_link_down_.fill(0);
  clock.reset();
  RunRecorder* recorder = outs.recorder();
  const std::vector<LinkEvent>& events = r.link_events_;
  for (;;) {
    UpstreamSender* in = nullptr;
    for (auto& s : senders)
      if (sender_next[s->port()] != kNever &&
          (!in || sender_next[s->port()] < sender_next[in->port()]))
        in = s.get();
    uint64_t out_ps = kNever;
    const int out = clock.earliest(&out_ps);
    const uint64_t event_ps = next_event < events.size() ? events[next_event].t_ns * 1000 : kNever;
    if (!in && out < 0 && event_ps == kNever) break;
    r.pool_->keep_free();   // what the event may allocate is there
    check_run_interrupt();  // SIGINT, SIGTERM: nothing written (run_interrupt.h)
    ++r.stats_.events;
    if (link_event_first(in, out, out_ps, event_ps)) {
      const LinkEvent& e = events[next_event++];
      if (recorder) recorder->advance(event_ps / 1000);
      clock.link(e.port, e.up, event_ps);
      continue;
    }
    const bool departure = out >= 0 && (!in || out_ps <= sender_next[in->port()]);
    const uint64_t now_ps = departure ? out_ps : sender_next[in->port()];
    if (recorder) recorder->advance(now_ps / 1000);
    // --trace: its room is checked every 1024 lines; a stop ends it too.
    if (r.dp_->decision_log() && !trace_meter->fits(*log, outs.budget(), now_ps / 1000))
      r.dp_->set_decision_log(nullptr);
    clock.begin_event(now_ps);
    if (departure)
      depart(static_cast<uint16_t>(out), now_ps);
    else
      arrive(*in, now_ps);
  }
}

// A frame leaves `port`: into its pcap at its first-bit time, past the
// reordering meter, and a PFC frame the switch sent to the device on that
// link, which will honour it.
void ReplayRun::Pass::depart(uint16_t port, uint64_t now_ps) {
  uint64_t start = 0;
  rte_mbuf* m = clock.depart(port, now_ps, &start);
  if (!m) return;
  const RecordOptions& record = outs.record();
  OutputBudget& budget = outs.budget();
  const uint64_t ts = t0.ns + start / 1000;
  if (watch) watch->depart(port, m, start / 1000, record.pcapng ? &comment : nullptr);
  const uint8_t* bytes = mbuf_bytes(m, scratch.data());
  if (!budget.own(sinks[port].write(ts, bytes, m->pkt_len, comment)))
    throw ReplayError("the outputs passed --max-output " + format_bytes(record.max_output) +
                      " at " + human_duration_ns(static_cast<double>(start / 1000)) +
                      " of virtual time (the port pcaps alone: " +
                      human_bytes(static_cast<double>(budget.own_bytes())) +
                      "); nothing was written: a larger --max-output");
  ParsedPacket departed;
  if (parse_frame(bytes, m->pkt_len, m->pkt_len, departed) == ParseResult::ok) {
    r.reorder_.observe(departed);
    if (departed.kind == L3Kind::kMacControl && departed.mac_control_opcode == kPfcOpcode &&
        sender_of[port]) {
      sender_of[port]->receive_pfc(start, m->pkt_len, departed.pfc_class_enable,
                                   departed.pfc_quanta);
      refresh(*sender_of[port]);
    }
  }
  r.stats_.last_ns = std::max(r.stats_.last_ns, ts);
  mbuf_free(m);
}

// The frame's first bit reaches the switch at now_ps, or is lost on a wire
// that is down.
void ReplayRun::Pass::arrive(UpstreamSender& in, uint64_t now_ps) {
  const UpstreamSender::Frame& f = in.send();
  if (!r.dp_->link_up(in.port())) {
    ++r.lost_link_down_[in.port()];
    refresh(in);
    return;
  }
  const uint32_t len = static_cast<uint32_t>(f.bytes.size());
  rte_mbuf* m = mbuf_from_bytes(r.pool_->get(), f.bytes.data(), len);
  if (watch) watch->arrive(in.port(), m, len, now_ps / 1000);
  clock.arrive(in.port(), m, len, now_ps);
  refresh(in);
}

// 5. What the upstream devices did; close, write the counters and run.json,
// and move everything into place at once.
void ReplayRun::Pass::finish() {
  r.upstream_ = Json::array();
  for (auto& s : senders) {
    Json u;
    u["port"] = s->port();
    u["frames_delayed_by_pause"] = s->held_frames();
    Json paused = Json::array();
    for (int p = 0; p < kPfcPriorities; ++p)
      paused.push_back(s->pause().pause_ns(p, UINT64_MAX / 2) / 1000);
    u["paused_us"] = paused;
    u["frames_lost_link_down"] = r.lost_link_down_[s->port()];
    r.upstream_.push_back(u);
  }
  for (uint16_t id : cfg.port_ids) sinks[id].close();
  if (log) log->close();
  outs.finish_recorder(r.stats_.last_ns - t0.ns);
  outs.write("counters.json", r.counters().dump(2) + "\n");
  RunManifest manifest;
  manifest.kind = "replay";
  manifest.t0_ns = t0.ns;
  manifest.end_ns = r.stats_.last_ns;
  manifest.switches.push_back(run_manifest_switch(cfg.params.sw.name, cfg));
  Json ins = Json::array();
  for (const ReplayInput& in : inputs) ins.push_back({{"port", in.port}, {"path", in.path}});
  manifest.extra["inputs"] = ins;
  r.stats_.recording_stopped = outs.recording_stopped();
  r.stats_.recording_stopped_ns = outs.recording_stopped() ? outs.recording_stopped_ns() : 0;
  outs.commit(std::move(manifest), names);
}

ReplayStats ReplayRun::run(const std::vector<ReplayInput>& inputs, const std::string& out_dir,
                           bool trace, const RecordOptions& record) {
  Pass pass(*this, inputs, trace, record);
  pass.open_inputs();
  pass.open_outputs(out_dir);
  pass.loop();
  pass.finish();
  return stats_;
}

}  // namespace rocelb
