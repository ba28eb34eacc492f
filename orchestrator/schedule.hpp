#pragma once
// The isolation modes differ only here: which worker process takes which sample, in what order.
// A schedule is a list of worker runs executed one after another; each lists its tasks in order.
// The same seed gives the same schedule on every machine (own Fisher-Yates over mt19937_64,
// since std::shuffle differs between standard libraries).

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace isobench::orchestrator {

enum class Isolation { sequential, interleave, process };
enum class ProcessGranularity { sample, batch };

Isolation parse_isolation(const std::string& text);  // throws std::invalid_argument
ProcessGranularity parse_granularity(const std::string& text);
std::string to_string(Isolation i);
std::string to_string(ProcessGranularity g);

struct PlannedSample {
  std::uint32_t instance = 0;
  std::uint32_t sample = 0;  // index among the instance's samples
  std::uint32_t round = 0;
  std::uint32_t slot = 0;    // instance * samples + sample: where the value lands
  std::uint32_t side = 0;    // A/B runs: 0 baseline, 1 candidate
};

struct WorkerRun {
  std::uint32_t side = 0;  // which worker build runs it
  std::vector<PlannedSample> tasks;
};

// Instances a worker sets up together: a partition of the instance indices, in order. One group
// unless the instances' device memory does not fit at once (memory_groups).
using Groups = std::vector<std::vector<std::uint32_t>>;

Groups single_group(std::uint32_t n_instances);

// Instances that are successive timing calls of one test, each chain in call order: a do_bench
// suite's (isobench.do_bench), whose worker runs the test forward through its calls once.
using CallChains = std::vector<std::vector<std::uint32_t>>;

// Consecutive instances packed into groups whose device bytes add up to at most `budget`. An
// instance that alone needs more throws std::invalid_argument naming its index.
Groups memory_groups(const std::vector<std::uint64_t>& device_bytes, std::uint64_t budget);

struct Schedule {
  Isolation isolation = Isolation::process;
  ProcessGranularity per = ProcessGranularity::batch;
  std::uint32_t n_instances = 0;
  std::uint32_t samples = 0;
  std::uint32_t sides = 1;
  std::uint64_t seed = 0;
  Groups groups;  // run one after another; rounds and workers never mix instances of two groups
  // A worker's tasks hold each call chain's instances together and in call order (the chains and
  // the single instances beside them shuffled): the worker then runs each test once, forward,
  // rather than once per call it times. False when the plan has no chain of two or more.
  bool keep_call_order = false;
  std::vector<WorkerRun> runs;

  std::size_t total_samples() const;
};

// Builds the schedule of an ordinary run (one side), group after group. A chain's instances keep
// their call order inside every worker; without chains, the schedule is what the seed always gave.
Schedule make_schedule(Isolation isolation, ProcessGranularity per, const Groups& groups, std::uint32_t samples,
                       std::uint64_t seed, const CallChains& chains = {});

// Builds the schedule of an A/B run: fresh workers only, baseline (side 0) and candidate
// (side 1) alternating in a randomized, balanced order. Every round holds one sample of every
// instance on each side; `per` batch gives each side one worker per round, `per` sample one
// worker per sample; each pair of consecutive workers is one baseline and one candidate, in an
// order drawn from the seed. Chains as for make_schedule.
Schedule make_ab_schedule(ProcessGranularity per, const Groups& groups, std::uint32_t samples, std::uint64_t seed,
                          const CallChains& chains = {});

// Fisher-Yates with a 64-bit Mersenne twister: portable across standard libraries.
template <class T>
void portable_shuffle(std::vector<T>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(v[i - 1], v[j]);
  }
}

}  // namespace isobench::orchestrator
