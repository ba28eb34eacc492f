#pragma once
// Ctrl-C and SIGTERM: the first one asks the run to stop cleanly (workers killed, segment
// removed, journal complete, run marked interrupted); the handler only sets a flag.

namespace isobench::orchestrator {

void install_interrupt_handlers();
bool interrupt_requested();
int interrupt_signal();  // the signal that asked, 0 if none

}  // namespace isobench::orchestrator
