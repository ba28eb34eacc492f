#pragma once
// The SASS of the Triton kernels whose IR the sides' workers recorded under `artifact_root`
// (<run>/artifacts), by `python -m isobench.triton_ir sass` in side 0's interpreter with this
// build's package. A worker leaves each kernel's cubin instead of running cuobjdump in its set-up,
// where the run would wait on it. start() makes it beside the measurement, on a thread of its own,
// once every side's first worker has reported (their IR is recorded by then: the runner's
// on_sides_reported), at a lower CPU priority than the measuring worker; finish(), after the
// samples, waits for that and makes the SASS of any cubin still there (IR recorded by later
// workers, or no start()). Logged as "sass" with the count and the time; a failure is logged and
// warned, never fails the run. Nothing happens without Python sides or without a .cubin under the
// folder.

#include <string>
#include <thread>

#include "orchestrator/log.hpp"
#include "orchestrator/python/python_sides.hpp"
#include "orchestrator/run_directory.hpp"

namespace isobench::orchestrator {

class SassStep {
 public:
  SassStep(const PythonSides& sides, std::string artifact_root);
  ~SassStep();  // waits for a pass under way (cuobjdump gives up on a kernel after 60 s)
  SassStep(const SassStep&) = delete;
  SassStep& operator=(const SassStep&) = delete;
  void start();                // once; returns at once
  void finish(RunLog& log, const Log& warnings);  // the runner's thread, after the run

 private:
  struct Pass {
    bool ran = false;
    std::string line;     // the log line: what it made and its time, or why not
    bool failed = false;
  };
  Pass pass(bool background) const;

  std::string interpreter_, package_, artifact_root_;
  std::thread thread_;
  Pass background_;
};

}  // namespace isobench::orchestrator
