#include "interrupt.hpp"

#include <signal.h>

#include <atomic>

namespace isobench::orchestrator {

namespace {
std::atomic<int> g_signal{0};
extern "C" void on_signal(int sig) { g_signal.store(sig); }
}  // namespace

void install_interrupt_handlers() {
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);
}

bool interrupt_requested() { return g_signal.load() != 0; }
int interrupt_signal() { return g_signal.load(); }

}  // namespace isobench::orchestrator
