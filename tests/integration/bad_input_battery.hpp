#pragma once
// The bad-input battery: one table of cases (bad_input_cases.cpp), each a command run in a fresh
// folder of its own, with what it must end in. test_bad_input_battery.cpp runs them, checks every
// case against the contract (orchestrator/errors.hpp) and writes the table docs/reliability.md
// holds.

#include <string>
#include <vector>

namespace isobench::testing {

// A file written into the case's folder before its command runs. The path may hold any bytes
// (names that are not UTF-8); folders are made as needed.
struct BatteryFile {
  std::string path;
  std::string content;
  bool executable = false;
};

// A command and what it must end in. The command runs through /bin/sh in the case's own folder,
// which is also its HOME, with orchestrate and isobench-worker on PATH and these variables set:
//   $BIN   the built programs        $LIB   the built plugins (.so)
//   $FIX   fixtures made once: run/ (a complete CPU run of ok.yaml), ab/ (an A/B run of it, 3 samples, --fail-on never),
//          partial/ (run/ interrupted after 2 of its 16 samples), calibration/ (a complete
//          calibration of ok.yaml), history.sqlite (run/ added), a.txt and b.txt (sample files),
//          ok.yaml (2 instances of cpu_spin, 8 samples) and plugin.yaml (the example plugin)
//   $DATA  tests/data of the source tree
struct BatteryCase {
  std::string group;     // the kind of input: sweep, flags, outputs, samples, run-dir, resume, calibrate, ab, names, limits
  std::string name;      // unique within its group
  std::string command;
  int exit_code = 2;
  std::string first_line;  // a fragment the first line of stderr must hold ("" when stderr is empty)
  std::vector<BatteryFile> files = {};
  std::string setup = {};  // shell run in the folder before the command (copy a fixture, damage it)
  int stderr_lines = 1;    // more where the contract says one line per refused item, or a warning comes first
  // The case runs only when this build has `orchestrate VERB` (another engineer's verb, still
  // being built): "kernels", "--version". Empty: always.
  std::string needs_verb = {};
};

const std::vector<BatteryCase>& bad_input_cases();

// $FIX/ok.yaml, the sweep most cases start from: 2 instances of cpu_spin, 8 samples each.
const std::string& battery_sweep();

}  // namespace isobench::testing
