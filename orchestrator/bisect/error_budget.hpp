#pragma once
// How `orchestrate bisect` splits its error rate over the walk (docs/ci.md, "Bisection").
//
// A commit is bad for an instance when it is slower than GOOD by more than the threshold. Each
// test of the walk is an `ab --until-verdict` of the commit against GOOD, and it acts on SLOWER
// (bad), SAME or FASTER (good); UNCERTAIN up to the most samples leaves the instance undecided.
// A verdict is wrong only when the Hodges-Lehmann interval misses the true ratio on the wrong
// side (SLOWER needs the interval above 1 + threshold, SAME and FASTER below it), and the
// sequential design (stats/sequential_design.hpp) holds that miss to (1 - c) / 2 per instance
// over all of a test's looks at confidence c. The walk makes at most K = ceil(log2 n) + 1 tests
// of any one instance (range_walk.hpp) and walks M instances (those of the endpoint check), so
// every test gets
//   confidence 1 - (1 - confidence) / (K M): P(the walk names a wrong commit anywhere) <= (1 - confidence) / 2
//   alpha      alpha / (K M) per instance: P(an unchanged commit is called SLOWER anywhere) <= alpha
// by the union bound over the at most K M (instance, test) pairs. A test of m instances is an
// A/B run whose design spends its alpha over those m, so its run is given alpha m / (K M).

#include <cstddef>

namespace isobench::orchestrator {

struct ErrorBudget {
  double alpha = 0.001;      // over the whole walk: an unchanged commit called SLOWER
  double confidence = 0.95;  // over the whole walk: (1 - confidence) / 2 bounds a wrong commit named
  std::size_t tests = 1;      // K: the most tests of one instance (RangeWalk::max_tests)
  std::size_t instances = 1;  // M: the instances of the endpoint check

  // The alpha of a test's A/B run over `step_instances` instances.
  double step_alpha(std::size_t step_instances) const {
    return alpha * static_cast<double>(step_instances) / static_cast<double>(tests * instances);
  }
  // The confidence of every test's verdicts.
  double step_confidence() const { return 1 - (1 - confidence) / static_cast<double>(tests * instances); }
};

}  // namespace isobench::orchestrator
