#pragma once
// The orchestrator's one error path and its one exit-code contract, for every verb:
//
//   0    ran (or compared) and no instance meets the --fail-on rule
//   1    a regression by the --fail-on rule (by default: an instance is SLOWER), and nothing else
//   2    bad input or usage, found before anything is measured; no run directory is left behind
//   3    the measurement failed: samples are missing after every retry, or a calibration or the
//        run itself broke off (the run directory says what, and --resume finishes it), or a file
//        could not be written or read back (a full disk, a folder that vanished)
//   130  interrupted (Ctrl-C, SIGTERM); --resume finishes the run
//
// Problems are thrown as one of the types below (or a type derived from them, such as
// SweepError), with a message of one line that names the file, field or option and what is wrong;
// the verbs turn them into an exit code in one place (exit_code_of).

#include <exception>
#include <ostream>
#include <stdexcept>
#include <string_view>

namespace isobench::orchestrator {

// Plain ints, so that a verb's body returns one type whichever code it returns.
inline constexpr int exit_ok = 0;
inline constexpr int exit_regression = 1;
inline constexpr int exit_bad_input = 2;
inline constexpr int exit_measurement_failed = 3;
inline constexpr int exit_interrupted = 130;

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

// The one place an exception becomes an exit code: runs a verb's body (which returns its exit
// code) and turns what it throws into one line "VERB: message" on `err` and the code of its kind.
// Anything else (std::runtime_error from a file that cannot be written, std::bad_alloc) is a run
// or verb that broke off: exit code 3, never an abort.
template <typename Body>
int exit_code_of(std::string_view verb, std::ostream& err, Body&& body) {
  const auto said = [&](const std::exception& e, int code) {
    err << verb << ": " << e.what() << "\n";
    return code;
  };
  try {
    return body();
  } catch (const UsageError& e) {
    return said(e, exit_bad_input);
  } catch (const std::invalid_argument& e) {  // from stats/ and the parsers of numbers: input let through
    return said(e, exit_bad_input);
  } catch (const Interrupted& e) {
    return said(e, exit_interrupted);
  } catch (const std::exception& e) {
    return said(e, exit_measurement_failed);
  }
}

}  // namespace isobench::orchestrator
