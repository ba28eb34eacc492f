#pragma once
// The worker's command line: parsed and run. isobench-worker's main() is this function, and so is
// isobench_worker_main() of the worker library (include/isobench/worker.h), so a worker forked
// by the Python zygote takes exactly the arguments the executable takes.

namespace isobench::worker {

// Returns the process exit code: 0 done, 2 a bad command line, 3 the worker failed.
int run_worker_command_line(int argc, char** argv);

}  // namespace isobench::worker
