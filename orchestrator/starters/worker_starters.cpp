#include "orchestrator/starters/worker_starters.hpp"

#include "orchestrator/starters/python_starter.hpp"

namespace isobench::orchestrator {

// Python benchmarks fork their workers from a zygote per side; a plan without them starts nothing
// there, and the runner spawns the worker executables.
std::unique_ptr<WorkerStarter> worker_starter_for(const RunRequest& request) {
  return std::make_unique<PythonStarter>(request.python);
}

}  // namespace isobench::orchestrator
