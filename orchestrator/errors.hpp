#pragma once
// The orchestrator's one error path and its one exit-code contract, for every verb:
//
//   0    ran (or compared) and no instance meets the --fail-on rule
//   1    a regression by the --fail-on rule (by default: an instance is SLOWER), and nothing else
//   2    bad input or usage, found before anything is measured; no run directory is left behind
//   3    the measurement failed: samples are missing after every retry, or a calibration or the
//        run itself broke off (the run directory says what, and --resume finishes it)
//   130  interrupted (Ctrl-C, SIGTERM); --resume finishes the run
//
// Problems are thrown as one of the types below (or a type derived from them, such as
// SweepError), with a message of one line that names the file, field or option and what is wrong;
// the verbs turn them into an exit code in one place (exit_code_of).

#include <exception>
#include <stdexcept>

namespace isobench::orchestrator {

enum ExitCode : int {
  exit_ok = 0,
  exit_regression = 1,
  exit_bad_input = 2,
  exit_measurement_failed = 3,
  exit_interrupted = 130,
};

// Bad input or usage: nothing has been measured and nothing is left behind.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The measurement could not be made (a calibration failed after every retry, the segment could
// not be made, a worker could not be started).
class MeasurementFailed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Ctrl-C or SIGTERM before a run directory exists (while a large sweep is read or planned):
// nothing was measured and nothing is left behind. Once a run directory exists, an interrupted
// run is no exception: it ends with its samples kept, marked interrupted, and --resume finishes it.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace isobench::orchestrator
