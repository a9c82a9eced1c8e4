// One group's load balancer on one lcore: the entry point the dataplane calls
// per packet (select) or per burst (select_burst). Owns the engine of the
// group's mode (fixed_engine.h, wcmp_engine.h, resilient_engine.h,
// flowlet_engine.h, per_packet_engine.h, drill_engine.h), the up-member
// snapshot, the quality model, the seeded RNG and the counters. The mode is
// dispatched by a switch once per call (once per burst in select_burst), to
// templates — no virtual call, no allocation, no clock read: time is now_ns.
// Every member index refers to the group's member order; `paths` must have
// one MemberPath per member. A down member is never chosen; when every member
// is down select returns kNoMember (counted as no_member) and the caller drops.
// Knobs: LbKnobs (lb_knobs.h). Counters: LbEngineCounters (lb_counters.h).
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include <memory>

#include "lb/bpf_engine.h"
#include "lb/conweave_source.h"
#include "lb/drill_engine.h"
#include "lb/fixed_engine.h"
#include "lb/flow_hash.h"
#include "lb/flowlet_engine.h"
#include "lb/lb_counters.h"
#include "lb/lb_decision.h"
#include "lb/lb_knobs.h"
#include "lb/lb_mode.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"
#include "lb/per_packet_engine.h"
#include "lb/resilient_engine.h"
#include "lb/wcmp_engine.h"

namespace rocelb {

struct LbGroupSpec {
  LbMode mode = LbMode::kFixed;
  HashConfig hash;                // for the caller's flow_hash(); the engine takes the hash
  std::vector<uint32_t> weights;  // one per member (1..65535); its size is the member count
  LbKnobs knobs;
  uint64_t seed = 0;                        // switch-level seed (switch.hash_seed)
  std::shared_ptr<const LbBpfProgram> bpf;  // mode bpf: the loaded policy
};

class LbEngine {
 public:
  // Throws std::invalid_argument on a spec the config loader would reject
  // (0 or more than 256 members, a zero weight, a table size not a power of two).
  LbEngine(const LbGroupSpec& spec, uint32_t lcore_index);

  // The member for one packet. trace may be null (no cost then).
  uint32_t select(uint32_t flow_hash, uint32_t pkt_bytes, uint64_t now_ns, const MemberPath* paths,
                  LbDecision* trace);

  // n packets at one instant: out[i] for hashes[i]; traces null or n entries.
  // The up set is read once for the whole burst, and the caller reads each
  // member's depth and load once too: so that later packets of the burst
  // see the queues the earlier ones will make, a mode that compares depths
  // adds each packet's bytes to its member's queue_bytes in `paths` as it
  // goes (the caller's scratch). A burst of one decides exactly as select().
  // pkts: what mode bpf's policy sees of each packet (null: only the hash
  // and length; other modes ignore it).
  void select_burst(const uint32_t* flow_hashes, const uint32_t* pkt_bytes, uint32_t n,
                    uint64_t now_ns, MemberPath* paths, uint32_t* out, LbDecision* traces,
                    const LbPacketFields* pkts = nullptr);

  // As select_burst, but each packet takes its hash's up member (ECMP, as
  // mode fixed) whatever this group's mode: control_by_hash's frames.
  void select_burst_by_hash(const uint32_t* hashes, const uint32_t* bytes, uint32_t n,
                            uint64_t now_ns, const MemberPath* paths, uint32_t* out,
                            LbDecision* traces);

  // Mode conweave: the member for one RoCE data packet and what it must
  // carry (conweave_source.h); other packets of the group go through
  // select_burst, which places them by the flow hash. The source ToR's
  // side of a reply or a notify the far ToR sent back.
  uint32_t select_conweave(uint32_t hash, uint32_t bytes, uint64_t now_ns, const MemberPath* paths,
                           ConWeaveMark& mark, LbDecision* trace);
  void conweave_reply(uint32_t hash, ConWeaveKind kind, uint16_t epoch, uint8_t phase,
                      uint64_t now_ns);
  void conweave_notify(uint32_t member, uint64_t now_ns);
  const ConWeaveSource* conweave() const { return std::get_if<ConWeaveSource>(&impl_); }

  // Forgets per-flow state (flowlet table, DRILL memory); counters are kept.
  void reset();

  const LbEngineCounters& counters() const { return s_.counters; }
  LbMode mode() const { return mode_; }
  uint32_t num_members() const { return s_.up.size(); }

  // Inspection for tests and `show` commands (null / empty for other modes).
  const FlowletTable* flowlet_table() const;
  const std::vector<uint16_t>* bucket_table() const;

 private:
  using Impl = std::variant<FixedEngine, WcmpEngine, ResilientEngine, FlowletEngine,
                            PerPacketEngine, DrillEngine, BpfEngine, ConWeaveSource>;
  static Impl make_impl(const LbGroupSpec& spec);

  template <LbMode M>
  uint32_t decide(uint32_t hash, uint64_t now_ns, const MemberPath* paths, LbDecision* trace);
  // grow: where to add each packet's bytes (null: nowhere, as in select()).
  template <LbMode M>
  void burst(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
             const MemberPath* paths, MemberPath* grow, uint32_t* out, LbDecision* traces);
  void dispatch(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
                const MemberPath* paths, MemberPath* grow, uint32_t* out, LbDecision* traces,
                const LbPacketFields* pkts);
  // Mode bpf: as burst(), with the packets' fields, and a refusal counted.
  void bpf_burst(const uint32_t* hashes, const uint32_t* bytes, uint32_t n, uint64_t now_ns,
                 const MemberPath* paths, MemberPath* grow, uint32_t* out, LbDecision* traces,
                 const LbPacketFields* pkts);

  LbMode mode_;
  LbShared s_;
  Impl impl_;
};

}  // namespace rocelb
