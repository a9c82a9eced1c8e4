#include "lb/lb_engine.h"

#include <stdexcept>
#include <string>

namespace rocelb {
namespace {

void check_spec(const LbGroupSpec& spec) {
  const size_t n = spec.weights.size();
  if (n == 0 || n > kMaxLbMembers)
    throw std::invalid_argument("a group needs 1.." + std::to_string(kMaxLbMembers) + " members");
  for (uint32_t w : spec.weights)
    if (w == 0) throw std::invalid_argument("member weights must be at least 1");
  if ((uses_flowlets(spec.mode) || spec.mode == LbMode::kBpf || spec.mode == LbMode::kConWeave) &&
      !is_power_of_two(spec.knobs.max_flows))
    throw std::invalid_argument("max_flows must be a power of two");
  if (uses_buckets(spec.mode)) {
    const uint32_t b = effective_buckets(spec.mode, spec.knobs);
    if (!is_power_of_two(b) || b < n || b > kMaxBuckets)
      throw std::invalid_argument("buckets must be a power of two, at least the member count");
  }
}

uint64_t engine_seed(const LbGroupSpec& spec, uint32_t lcore_index) {
  return mix_seed(mix_seed(spec.seed, spec.knobs.seed), lcore_index);
}

}  // namespace

LbEngine::Impl LbEngine::make_impl(const LbGroupSpec& spec) {
  check_spec(spec);
  const LbKnobs& k = spec.knobs;
  switch (spec.mode) {
    case LbMode::kFixed:
      return FixedEngine{};
    case LbMode::kWcmp:
      return WcmpEngine(spec.weights, effective_buckets(spec.mode, k));
    case LbMode::kResilient:
      return ResilientEngine(spec.weights, effective_buckets(spec.mode, k));
    case LbMode::kFlowletRandom:
    case LbMode::kFlowletQuality:
      return FlowletEngine(k.max_flows, k.idle_time_ns);
    case LbMode::kPerPacketQuality:
    case LbMode::kPerPacketRandom:
      return PerPacketEngine{};
    case LbMode::kDrill:
      return DrillEngine(k.drill.d, k.drill.m, k.drill.per_destination, k.max_flows);
    case LbMode::kBpf:
      return BpfEngine(spec.bpf, static_cast<uint32_t>(spec.weights.size()), k);
    case LbMode::kConWeave:
      return ConWeaveSource(k.max_flows, k.conweave, static_cast<uint32_t>(spec.weights.size()));
  }
  throw std::invalid_argument("unknown load-balancing mode");
}

LbEngine::LbEngine(const LbGroupSpec& spec, uint32_t lcore_index)
    : mode_(spec.mode),
      s_(static_cast<uint32_t>(spec.weights.size()), spec.knobs.quality,
         engine_seed(spec, lcore_index)),
      impl_(make_impl(spec)) {
  s_.counters.member_packets.assign(spec.weights.size(), Counter{});
  s_.counters.member_bytes.assign(spec.weights.size(), Counter{});
}

template <LbMode M>
inline uint32_t LbEngine::decide(uint32_t hash, uint64_t now_ns, const MemberPath* paths,
                                 LbDecision* trace) {
  if constexpr (M == LbMode::kFixed) {
    return FixedEngine{}.select(hash, s_);  // stateless: any mode's select_burst_by_hash
  } else if constexpr (M == LbMode::kWcmp) {
    return std::get_if<WcmpEngine>(&impl_)->select(hash, s_, trace);
  } else if constexpr (M == LbMode::kResilient) {
    return std::get_if<ResilientEngine>(&impl_)->select(hash, s_, trace);
  } else if constexpr (M == LbMode::kFlowletRandom || M == LbMode::kFlowletQuality) {
    return std::get_if<FlowletEngine>(&impl_)->select<M == LbMode::kFlowletQuality>(
        hash, now_ns, paths, s_, trace);
  } else if constexpr (M == LbMode::kPerPacketQuality || M == LbMode::kPerPacketRandom) {
    return std::get_if<PerPacketEngine>(&impl_)->select<M == LbMode::kPerPacketQuality>(paths, s_,
                                                                                        trace);
  } else {
    return std::get_if<DrillEngine>(&impl_)->select(hash, paths, s_, trace);
  }
}

template <LbMode M>
void LbEngine::burst(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
                     const MemberPath* paths, MemberPath* grow, uint32_t* out, LbDecision* traces) {
  // Modes that compare queue depths see the burst's own packets queue up.
  constexpr bool kReadsDepth =
      M == LbMode::kFlowletQuality || M == LbMode::kPerPacketQuality || M == LbMode::kDrill;
  LbEngineCounters& c = s_.counters;
  for (uint32_t i = 0; i < n; ++i) {
    LbDecision* t = traces ? &traces[i] : nullptr;
    if (t) t->clear();
    uint32_t m = kNoMember;
    if (s_.up.count() == 0) {
      ++c.no_member;
    } else {
      m = decide<M>(hashes[i], now_ns, paths, t);
      ++c.decisions;
      ++c.member_packets[m];
      c.member_bytes[m] += bytes[i];
      if constexpr (kReadsDepth)
        if (grow) grow[m].queue_bytes += bytes[i];
    }
    if (t) t->member = m;
    out[i] = m;
  }
}

uint32_t LbEngine::select(uint32_t flow_hash, uint32_t pkt_bytes, uint64_t now_ns,
                          const MemberPath* paths, LbDecision* trace) {
  uint32_t m;
  s_.up.refresh(paths);
  dispatch(&flow_hash, &pkt_bytes, 1, now_ns, paths, nullptr, &m, trace, nullptr);
  return m;
}

void LbEngine::select_burst_by_hash(const uint32_t* hashes, const uint32_t* bytes, uint32_t n,
                                    uint64_t now_ns, const MemberPath* paths, uint32_t* out,
                                    LbDecision* traces) {
  s_.up.refresh(paths);
  burst<LbMode::kFixed>(hashes, bytes, n, now_ns, paths, nullptr, out, traces);
}

void LbEngine::select_burst(const uint32_t* hashes, const uint32_t* bytes, uint32_t n,
                            uint64_t now_ns, MemberPath* paths, uint32_t* out, LbDecision* traces,
                            const LbPacketFields* pkts) {
  s_.up.refresh(paths);
  dispatch(hashes, bytes, n, now_ns, paths, paths, out, traces, pkts);
}

void LbEngine::bpf_burst(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
                         const MemberPath* paths, MemberPath* grow, uint32_t* out,
                         LbDecision* traces, const LbPacketFields* pkts) {
  BpfEngine& e = *std::get_if<BpfEngine>(&impl_);
  LbEngineCounters& c = s_.counters;
  e.load_members(paths, s_);
  for (uint32_t i = 0; i < n; ++i) {
    LbDecision* t = traces ? &traces[i] : nullptr;
    if (t) t->clear();
    uint32_t m = kNoMember;
    if (s_.up.count() == 0) {
      ++c.no_member;
    } else {
      m = e.select(hashes[i], bytes[i], now_ns, pkts ? &pkts[i] : nullptr, grow != nullptr, s_, t);
      if (m != kNoMember) {
        ++c.decisions;
        ++c.member_packets[m];
        c.member_bytes[m] += bytes[i];
        if (grow) grow[m].queue_bytes += bytes[i];  // a policy may compare depths
      }
    }
    if (t) t->member = m;
    out[i] = m;
  }
}

void LbEngine::dispatch(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
                        const MemberPath* paths, MemberPath* grow, uint32_t* out,
                        LbDecision* traces, const LbPacketFields* pkts) {
  switch (mode_) {
    case LbMode::kBpf:
      return bpf_burst(hashes, bytes, n, now_ns, paths, grow, out, traces, pkts);
    case LbMode::kFixed:
    case LbMode::kConWeave:  // what is not RoCE data: by the flow hash
      return burst<LbMode::kFixed>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kWcmp:
      return burst<LbMode::kWcmp>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kResilient:
      return burst<LbMode::kResilient>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kFlowletRandom:
      return burst<LbMode::kFlowletRandom>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kFlowletQuality:
      return burst<LbMode::kFlowletQuality>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kPerPacketQuality:
      return burst<LbMode::kPerPacketQuality>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kPerPacketRandom:
      return burst<LbMode::kPerPacketRandom>(hashes, bytes, n, now_ns, paths, grow, out, traces);
    case LbMode::kDrill:
      return burst<LbMode::kDrill>(hashes, bytes, n, now_ns, paths, grow, out, traces);
  }
}

uint32_t LbEngine::select_conweave(uint32_t hash, uint32_t bytes, uint64_t now_ns,
                                   const MemberPath* paths, ConWeaveMark& mark, LbDecision* trace) {
  s_.up.refresh(paths);
  LbEngineCounters& c = s_.counters;
  if (trace) trace->clear();
  const uint32_t m = std::get_if<ConWeaveSource>(&impl_)->select(hash, now_ns, s_, mark, trace);
  if (m == kNoMember) {
    ++c.no_member;
  } else {
    ++c.decisions;
    ++c.member_packets[m];
    c.member_bytes[m] += bytes;
  }
  if (trace) trace->member = m;
  return m;
}

void LbEngine::conweave_reply(uint32_t hash, ConWeaveKind kind, uint16_t epoch, uint8_t phase,
                              uint64_t now_ns) {
  if (auto* cw = std::get_if<ConWeaveSource>(&impl_))
    cw->on_reply(hash, kind, epoch, phase, now_ns, s_.counters);
}

void LbEngine::conweave_notify(uint32_t member, uint64_t now_ns) {
  if (auto* cw = std::get_if<ConWeaveSource>(&impl_)) cw->on_notify(member, now_ns, s_.counters);
}

void LbEngine::reset() {
  if (auto* cw = std::get_if<ConWeaveSource>(&impl_)) cw->reset();
  if (auto* f = std::get_if<FlowletEngine>(&impl_)) f->reset();
  if (auto* d = std::get_if<DrillEngine>(&impl_)) d->reset();
  if (auto* b = std::get_if<BpfEngine>(&impl_)) b->reset();
}

const FlowletTable* LbEngine::flowlet_table() const {
  if (auto* f = std::get_if<FlowletEngine>(&impl_)) return &f->table();
  return nullptr;
}

const std::vector<uint16_t>* LbEngine::bucket_table() const {
  if (auto* w = std::get_if<WcmpEngine>(&impl_)) return &w->table();
  if (auto* r = std::get_if<ResilientEngine>(&impl_)) return &r->table();
  return nullptr;
}

}  // namespace rocelb
