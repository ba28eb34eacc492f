#include "orchestrator/bisect/bisect_outcome.hpp"

#include "orchestrator/errors.hpp"

namespace isobench::orchestrator {

int BisectOutcome::exit_code() const {
  if (interrupted) return exit_interrupted;
  if (!broke_off.empty()) return exit_measurement_failed;
  for (const auto& r : walk.instances())
    if (r.state != InstanceState::named && r.state != InstanceState::not_regressed) return exit_measurement_failed;
  return exit_ok;
}

}  // namespace isobench::orchestrator
