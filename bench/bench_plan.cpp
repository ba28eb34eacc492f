// bench_plan: wall time to validate and plan a sweep of 10,000 instances (parse_sweep + make_plan),
// and to write and read back its plan.json, as a user's large sweep costs it before any worker
// starts. Not a test; docs/results/stress.md records its output.
//
//   bench_plan [instances=10000] [samples=12] [repeats=5]

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "orchestrator/plan.hpp"
#include "orchestrator/run/sweep_plan.hpp"
#include "orchestrator/sweep.hpp"

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// One benchmark whose single axis lists `instances` values: every value is an instance, and
// every value is validated against the axis's range.
std::string sweep_text(int instances, int samples) {
  std::string text = "name: bench-plan\nsettings: {samples: " + std::to_string(samples) +
                     ", isolation: process, per: sample, inner: 10}\nbenchmarks:\n  - kernel: cpu_spin\n"
                     "    axes:\n      microseconds: [";
  for (int i = 1; i <= instances; ++i) text += (i > 1 ? ", " : "") + std::to_string(i);
  return text + "]\n";
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  using namespace isobench::orchestrator;
  const int instances = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int samples = argc > 2 ? std::atoi(argv[2]) : 12;
  const int repeats = argc > 3 ? std::atoi(argv[3]) : 5;
  const std::string text = sweep_text(instances, samples);
  std::vector<double> parse_s, plan_s, total_s, json_s;
  std::size_t planned_instances = 0, planned_runs = 0;
  for (int r = 0; r < repeats; ++r) {
    const auto start = Clock::now();
    const Sweep sweep = parse_sweep(text, "bench-plan.yaml");
    const double parsed = seconds_since(start);
    const auto plan_start = Clock::now();
    const Plan plan = make_plan(sweep, isobench::kernels::Backend::cpu);
    const double planned = seconds_since(plan_start);
    total_s.push_back(seconds_since(start));
    parse_s.push_back(parsed);
    plan_s.push_back(planned);
    // plan.json: written before the first worker starts, read back by --resume.
    const auto json_start = Clock::now();
    const std::string written = plan.to_json().dump();
    const Plan reread = Plan::from_json(nlohmann::json::parse(written));
    json_s.push_back(seconds_since(json_start));
    planned_instances = reread.instances.size();
    planned_runs = reread.schedule.runs.size();
  }
  std::printf("sweep: %d instances x %d samples, isolation process per sample (%zu instances, %zu worker runs planned)\n",
              instances, samples, planned_instances, planned_runs);
  std::printf("%-32s %10s %10s %10s\n", "step", "min s", "median s", "max s");
  const auto row = [](const char* name, const std::vector<double>& v) {
    std::printf("%-32s %10.4f %10.4f %10.4f\n", name, *std::min_element(v.begin(), v.end()), median(v),
                *std::max_element(v.begin(), v.end()));
  };
  row("parse_sweep (validate, expand)", parse_s);
  row("make_plan (instances, schedule)", plan_s);
  row("parse_sweep + make_plan", total_s);
  row("plan.json dump + parse + from_json", json_s);
  const bool under_a_second = median(total_s) < 1.0;
  std::printf("validated and planned in under a second: %s\n", under_a_second ? "yes" : "NO");
  return under_a_second ? 0 : 1;
}
