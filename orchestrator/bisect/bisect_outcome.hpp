#pragma once
// What `orchestrate bisect` ends with: its directory, its record, the walk that record gives, and
// whether it stopped short (interrupted, or a step's run failed). The printers render it
// (orchestrator/printers/bisect_printer.cpp); the exit code is decided here, not there.

#include <string>

#include "orchestrator/bisect/bisect_state.hpp"
#include "orchestrator/bisect/range_walk.hpp"

namespace isobench::orchestrator {

struct BisectOutcome {
  std::string dir;
  BisectState state;
  RangeWalk walk;
  bool interrupted = false;
  std::string broke_off;  // a step's run failed (MeasurementFailed): why; --resume carries on

  // 130 interrupted; 3 broke off, or an instance undecided; else 0 (every walked instance named,
  // or none regressed).
  int exit_code() const;
};

}  // namespace isobench::orchestrator
