#include "schedule.hpp"

#include <numeric>
#include <stdexcept>

namespace isobench::orchestrator {

Isolation parse_isolation(const std::string& text) {
  if (text == "sequential") return Isolation::sequential;
  if (text == "interleave") return Isolation::interleave;
  if (text == "process") return Isolation::process;
  throw std::invalid_argument("isolation must be sequential, interleave or process, got '" + text + "'");
}

ProcessGranularity parse_granularity(const std::string& text) {
  if (text == "sample") return ProcessGranularity::sample;
  if (text == "batch") return ProcessGranularity::batch;
  throw std::invalid_argument("per must be sample or batch, got '" + text + "'");
}

std::string to_string(Isolation i) {
  switch (i) {
    case Isolation::sequential: return "sequential";
    case Isolation::interleave: return "interleave";
    case Isolation::process: return "process";
  }
  return "?";
}

std::string to_string(ProcessGranularity g) { return g == ProcessGranularity::sample ? "sample" : "batch"; }

std::size_t Schedule::total_samples() const {
  std::size_t n = 0;
  for (const auto& r : runs) n += r.tasks.size();
  return n;
}

Schedule make_schedule(Isolation isolation, ProcessGranularity per, std::uint32_t n_instances,
                       std::uint32_t samples, std::uint64_t seed) {
  Schedule s;
  s.isolation = isolation;
  s.per = per;
  s.n_instances = n_instances;
  s.samples = samples;
  s.seed = seed;
  auto planned = [&](std::uint32_t instance, std::uint32_t round) {
    return PlannedSample{instance, round, round, instance * samples + round, 0};
  };
  if (isolation == Isolation::sequential) {
    WorkerRun run;
    for (std::uint32_t i = 0; i < n_instances; ++i)
      for (std::uint32_t r = 0; r < samples; ++r) run.tasks.push_back(planned(i, r));
    s.runs.push_back(std::move(run));
    return s;
  }
  // Rounds: one sample of every instance per round, order reshuffled every round.
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> order(n_instances);
  std::vector<std::vector<PlannedSample>> rounds;
  for (std::uint32_t r = 0; r < samples; ++r) {
    std::iota(order.begin(), order.end(), 0u);
    portable_shuffle(order, rng);
    std::vector<PlannedSample> round;
    for (auto i : order) round.push_back(planned(i, r));
    rounds.push_back(std::move(round));
  }
  if (isolation == Isolation::interleave) {
    WorkerRun run;
    for (auto& round : rounds) run.tasks.insert(run.tasks.end(), round.begin(), round.end());
    s.runs.push_back(std::move(run));
  } else if (per == ProcessGranularity::batch) {
    for (auto& round : rounds) s.runs.push_back(WorkerRun{0, std::move(round)});
  } else {
    for (auto& round : rounds)
      for (auto& t : round) s.runs.push_back(WorkerRun{0, {t}});
  }
  return s;
}

Schedule make_ab_schedule(ProcessGranularity per, std::uint32_t n_instances, std::uint32_t samples,
                          std::uint64_t seed) {
  Schedule s;
  s.isolation = Isolation::process;
  s.per = per;
  s.n_instances = n_instances;
  s.samples = samples;
  s.sides = 2;
  s.seed = seed;
  std::mt19937_64 rng(seed);
  const std::uint32_t per_side = n_instances * samples;
  auto planned = [&](std::uint32_t instance, std::uint32_t round, std::uint32_t side) {
    return PlannedSample{instance, round, round, side * per_side + instance * samples + round, side};
  };
  auto shuffled = [&] {
    std::vector<std::uint32_t> order(n_instances);
    std::iota(order.begin(), order.end(), 0u);
    portable_shuffle(order, rng);
    return order;
  };
  for (std::uint32_t r = 0; r < samples; ++r) {
    if (per == ProcessGranularity::batch) {
      const std::uint32_t first = static_cast<std::uint32_t>(rng() & 1u);
      for (std::uint32_t side : {first, 1 - first}) {
        WorkerRun run{side, {}};
        for (auto i : shuffled()) run.tasks.push_back(planned(i, r, side));
        s.runs.push_back(std::move(run));
      }
    } else {
      for (auto i : shuffled()) {
        const std::uint32_t first = static_cast<std::uint32_t>(rng() & 1u);
        for (std::uint32_t side : {first, 1 - first}) s.runs.push_back(WorkerRun{side, {planned(i, r, side)}});
      }
    }
  }
  return s;
}

}  // namespace isobench::orchestrator
