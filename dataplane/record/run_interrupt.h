// SIGINT and SIGTERM during a run in virtual time (`replay`, `fabric`): the
// run stops between two events and leaves nothing behind, as any failed run
// does (output_dir.h: the private folder and the folders the run made are
// removed, what was in the output folder before stays as it was).
//
// catch_run_interrupts() installs the handlers (no SA_RESTART, so a read
// blocked on a pipe or FIFO returns); the first signal only sets a flag the
// run drivers poll with check_run_interrupt(), which throws RunInterrupted; a
// second signal takes the default action (a run stuck where it cannot poll
// can still be killed). It lives in record/, below the run drivers, because
// the run recorder polls it too (a long idle stretch is many timeline rows).
// Knobs: none. Counters: none.
#pragma once

#include <stdexcept>
#include <string>

namespace rocelb {

class RunInterrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void catch_run_interrupts();
// The signal that asked the run to stop, or 0.
int run_interrupt_signal();
// "SIGINT" or "SIGTERM".
std::string run_interrupt_name();
[[noreturn]] void throw_run_interrupted();
// Throws RunInterrupted ("interrupted by SIGINT") once a signal came.
inline void check_run_interrupt() {
  if (run_interrupt_signal() != 0) [[unlikely]]
    throw_run_interrupted();
}

}  // namespace rocelb
