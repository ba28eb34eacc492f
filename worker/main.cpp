// isobench-worker: started by the orchestrator, never by hand. It owns the device for the length
// of its task list and reports through the shared-memory segment named on its command line.

#include "worker_command_line.hpp"

int main(int argc, char** argv) { return isobench::worker::run_worker_command_line(argc, argv); }
