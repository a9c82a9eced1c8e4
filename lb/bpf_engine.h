// `bpf`: a load-balancing policy the user wrote in C and compiled to eBPF
// (lb/bpf/rocelb_policy.h is its ABI, lb/bpf/README.md the guide). Once per
// burst the engine writes every member's queue, load, quality band and
// up/down and the up list into the policy's context; per packet the flow
// hash, the packet's 5-tuple and BTH fields, the RNG state and the flow's
// state slot (max_flows slots indexed by the low hash bits, as the flowlet
// table), then runs the program, copies the slot back and adds the packet to
// the chosen member's queue for the next packet of the burst. The group
// scratch lives in the context itself, per engine (group and lcore). A
// returned index that is out of range or a down member becomes kNoMember
// (counted: bpf_refused; the dataplane drops it as no_member_up).
// This library runs programs, it does not load them: the dataplane loads
// and validates them with libbpf and rte_bpf (dataplane/bpf/) and passes
// the entry points in an LbBpfProgram. Knobs: max_flows, idle_time, drill.*
// (passed to the policy). Counters: bpf_refused (LbEngineCounters).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "lb/bpf/rocelb_policy.h"
#include "lb/lb_decision.h"
#include "lb/lb_knobs.h"
#include "lb/lb_shared.h"
#include "lb/path_state.h"

namespace rocelb {

// A loaded policy: the JIT's entry point, or the interpreter's with its
// program. Owned by whoever loaded it (shared by every engine running it).
struct LbBpfProgram {
  uint64_t (*jit)(void* ctx) = nullptr;
  uint64_t (*exec)(const void* prog, void* ctx) = nullptr;
  const void* prog = nullptr;
  std::string file, section;
  bool jitted() const { return jit != nullptr; }
  uint64_t run(rocelb_ctx* c) const { return jit ? jit(c) : exec(prog, c); }
  virtual ~LbBpfProgram() = default;
};

// What a policy sees of a packet besides its hash and length. Plain data,
// not initialized: the dataplane keeps a burst's worth on its stack for
// every group and fills them only for bpf groups.
struct LbPacketFields {
  uint8_t family, proto, tc, opcode;  // opcode 0xff: not RoCE
  uint16_t src_port, dst_port;
  uint32_t dest_qp, psn;
  uint8_t src_ip[16], dst_ip[16];
};

inline constexpr uint32_t kMaxBpfMembers = ROCELB_MAX_MEMBERS;

class BpfEngine {
 public:
  BpfEngine(std::shared_ptr<const LbBpfProgram> prog, uint32_t n_members, const LbKnobs& k);

  // Once per burst (or select): the members as the paths and the up set
  // show them, into the context.
  void load_members(const MemberPath* paths, const LbShared& s);
  // One packet. grow: add its bytes to the chosen member's queue (and band)
  // for the next packet of the burst, as the built-in depth modes see it.
  uint32_t select(uint32_t hash, uint32_t bytes, uint64_t now_ns, const LbPacketFields* pkt,
                  bool grow, LbShared& s, LbDecision* trace);
  void reset();
  const LbBpfProgram& program() const { return *prog_; }

 private:
  std::shared_ptr<const LbBpfProgram> prog_;
  uint32_t n_;
  uint32_t mask_;
  std::vector<std::array<uint8_t, ROCELB_FLOW_BYTES>> slots_;
  std::vector<uint8_t> written_;
  std::unique_ptr<rocelb_ctx> ctx_;                   // 2 KB: kept, the group scratch lives in it
  std::array<uint64_t, ROCELB_MAX_MEMBERS> speed_{};  // for the band of a grown member
};

}  // namespace rocelb
