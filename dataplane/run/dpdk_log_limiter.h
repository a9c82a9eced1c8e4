// DPDK's log with repeats held back: a line that comes again and again (the
// eBPF interpreter logs "division by 0" for every packet a bad policy
// sees) is written once, then counted; when its 10 s window ends a summary
// says how many more came ("rocelb: 123456 more in 10.0 s of: bpf_exec(...):
// division by 0 at pc: 0x10;"), and the next one is written again. Lines are told apart by
// their text with numbers (pointers, program counters) masked. Every other
// line passes as it is, in order. The DPDK stream is a stdio stream: its
// own lock orders writers, so workers that log never wait on anything
// else; writing a held-back line costs no system call.
// install() before EAL starts (eal_start does); flush() from a control
// thread now and then writes the summaries of windows that ended, and at
// exit the rest.
// Knobs: the window (10 s), how many distinct lines are tracked (64; past
// that a line passes). Counter: dpdk_log_lines_held_back().
#pragma once

#include <cstdint>
#include <cstdio>

namespace rocelb {

// Makes DPDK log through the limiter into `out` (stderr by default).
// Calling it again is a no-op.
void install_dpdk_log_limiter(FILE* out = stderr);

// Writes the summaries of the windows that ended by now (all when `all`).
void flush_dpdk_log_limiter(bool all = false);

// Lines held back since start.
uint64_t dpdk_log_lines_held_back();

}  // namespace rocelb
