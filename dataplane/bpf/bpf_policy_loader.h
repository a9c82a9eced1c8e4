// Loads a user's load-balancing policy (mode bpf, lb/bpf/rocelb_policy.h):
// libbpf opens the ELF (bpf_object__open_file) and gives the instructions
// of the section `rocelb/NAME` (or NAME); DPDK's rte_bpf validates them with
// the policy context as the program's argument (reads and writes must stay
// inside it; loops it cannot bound are refused) and JIT-compiles them, or
// runs them in its interpreter where it has no JIT (jit false, or a host
// without one: said once on stderr). Runs on the control thread, never on a
// forwarding lcore.
// The file is read once, whole (control/bounded_file.h: a regular file of
// at most 16 MiB; a FIFO never blocks the caller) and opened from memory;
// its bytes are kept (BpfPolicyFile) for later loads of the same policy.
// Errors: BpfPolicyError, one line: the file, the section, the reason.
// Knobs: file, section (empty: the file's only policy), jit,
// validation_steps (per program, and shared by the loads of one change:
// BpfChangeBudget). No counters.
#pragma once

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "lb/bpf_engine.h"

namespace rocelb {

class BpfPolicyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the loads of one config change may cost the validator together
// (SwitchConfig::build): the largest bpf.validation_steps of its groups in
// mode bpf. Each load takes its count off `left`, so a change naming many
// new policies, each near its group's budget, takes one budget's time on
// the control thread, not one per group.
struct BpfChangeBudget {
  uint64_t total = 0;
  uint64_t left = 0;
};

// A policy file as read, once: its name (for messages and `show groups`)
// and its bytes, which every later load of it uses (a knob of the policy
// changed, its group put in mode bpf), so the file is opened only when a
// writer names it, with that writer's rights (control/peer_file_rights.h).
struct BpfPolicyFile {
  std::string file;
  std::string bytes;  // an ELF object, at most kMaxBpfObjectBytes
};

// Reads `file`: a regular file of at most 16 MiB that is an ELF object;
// BpfPolicyError otherwise.
std::shared_ptr<const BpfPolicyFile> read_bpf_policy(const std::string& file);

// validation_steps: rte_bpf's validator may evaluate at most this many
// instructions (bpf_validation_cost.h); a program that needs more, or more
// than what is left of `change` (when given), is refused before the
// validator starts, so a load always ends quickly.
std::shared_ptr<const LbBpfProgram> load_bpf_policy(
    const BpfPolicyFile& elf, const std::string& section, bool jit,
    uint64_t validation_steps = kDefaultBpfValidationSteps, BpfChangeBudget* change = nullptr);
// The same, reading `file` first.
std::shared_ptr<const LbBpfProgram> load_bpf_policy(
    const std::string& file, const std::string& section, bool jit,
    uint64_t validation_steps = kDefaultBpfValidationSteps, BpfChangeBudget* change = nullptr);

// The policy sections of an ELF file ("rocelb/NAME" as NAME), for messages.
std::vector<std::string> bpf_policy_sections(const std::string& file);

}  // namespace rocelb
