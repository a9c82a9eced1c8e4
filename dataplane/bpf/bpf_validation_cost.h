// How much work DPDK 22.11's eBPF validator (rte_bpf_load) may do on a
// program, computed before it runs: the validator walks every path of the
// program's control-flow graph from the first instruction and evaluates
// each instruction once per path through it, with no time or step budget
// of its own. So 40 `if`s in a row are 2^40 paths and it never returns
// (Debian's build prunes a path whose state it has seen, which saves a
// third on such code, not the exponent). This counts those evaluations
// without pruning (paths into each instruction, summed; saturating at
// `cap`): an upper bound on the validator's work, in time linear in the
// program's size, so the loader refuses a program over its budget
// (groups.<g>.bpf.validation_steps) at once instead of running the
// validator on it. About 40 ns a step here: 10 M steps, 0.4 s.
// A program whose graph has a cycle (a loop) is not counted: the validator
// refuses loops itself, in linear time. DPDK-free. No knobs, no counters.
#pragma once

#include <cstdint>
#include <optional>

namespace rocelb {

// One eBPF instruction as the ELF holds it (struct bpf_insn / ebpf_insn).
struct BpfInsn {
  uint8_t code;
  uint8_t regs;
  int16_t off;
  int32_t imm;
};
static_assert(sizeof(BpfInsn) == 8);

// The validator's most evaluations for `n` instructions, at most `cap` (a
// result of `cap` means "at least cap"); nullopt when the graph has a cycle
// or a jump leaves the program (the validator refuses both, quickly).
std::optional<uint64_t> bpf_validation_steps(const BpfInsn* ins, uint32_t n, uint64_t cap);

}  // namespace rocelb
