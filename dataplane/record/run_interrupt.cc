#include "dataplane/record/run_interrupt.h"

#include <csignal>

namespace rocelb {
namespace {

volatile std::sig_atomic_t g_signal = 0;

void on_interrupt(int sig) {
  if (g_signal != 0) {  // the second: stop now, whatever the run is doing
    std::signal(sig, SIG_DFL);
    std::raise(sig);
    return;
  }
  g_signal = sig;
}

}  // namespace

void catch_run_interrupts() {
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocked read returns EINTR
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

int run_interrupt_signal() {
  return g_signal;
}

std::string run_interrupt_name() {
  return g_signal == SIGTERM ? "SIGTERM" : "SIGINT";
}

void throw_run_interrupted() {
  throw RunInterrupted("interrupted by " + run_interrupt_name());
}

}  // namespace rocelb
