// The set-up batch a run takes without --setup-batch (docs/measurement.md, "Set-up batches"): the
// Python starter's default for its plan (orchestrator/starters/python_starter.hpp), batches of
// kPythonSetupBatch for set-up functions and pytest-benchmark tests on the GPU, and one worker at
// a time on the CPU and for do_bench tests, whose calls are set up inside the measuring phase.
#include <doctest/doctest.h>

#include "orchestrator/starters/python_starter.hpp"

using namespace isobench::orchestrator;

namespace {

PlannedInstance python_instance(const std::string& id, nlohmann::json pytest = nullptr) {
  PlannedInstance p;
  p.worker.id = id;
  p.family = "python";
  p.worker.pytest = std::move(pytest);
  return p;
}

}  // namespace

TEST_CASE("set-up batch default: Python on the GPU is batched, on the CPU and with do_bench tests it is not") {
  Plan plan;
  plan.device = "cuda";
  plan.instances = {python_instance("softmax[n=1024]"),
                    python_instance("test_softmax[64]", {{"args", nlohmann::json::array()}})};
  CHECK(kPythonSetupBatch > 1);
  CHECK(python_default_setup_batch(plan) == kPythonSetupBatch);

  plan.device = "cpu";
  CHECK(python_default_setup_batch(plan) == 1);

  plan.device = "cuda";
  plan.instances.push_back(python_instance("test_softmax::softmax/gems/float16/64x64",
                                           {{"args", nlohmann::json::array()}, {"timing", "do_bench"}}));
  CHECK(python_default_setup_batch(plan) == 1);
}
