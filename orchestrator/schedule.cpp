#include "schedule.hpp"

#include <map>
#include <numeric>
#include <set>
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

Groups single_group(std::uint32_t n_instances) {
  std::vector<std::uint32_t> all(n_instances);
  std::iota(all.begin(), all.end(), 0u);
  return {all};
}

Groups memory_groups(const std::vector<std::uint64_t>& device_bytes, std::uint64_t budget) {
  Groups groups;
  std::uint64_t used = 0;
  for (std::uint32_t i = 0; i < device_bytes.size(); ++i) {
    if (device_bytes[i] > budget)
      throw std::invalid_argument("instance " + std::to_string(i) + " needs " + std::to_string(device_bytes[i]) +
                                  " bytes, more than the memory budget of " + std::to_string(budget));
    if (groups.empty() || used + device_bytes[i] > budget) {
      groups.emplace_back();
      used = 0;
    }
    groups.back().push_back(i);
    used += device_bytes[i];
  }
  return groups;
}

namespace {

std::uint32_t count_instances(const Groups& groups) {
  std::size_t n = 0;
  for (const auto& g : groups) n += g.size();
  return static_cast<std::uint32_t>(n);
}

using Units = std::vector<std::vector<std::uint32_t>>;

// What a worker's order is drawn over, for one group: each chain's instances of the group as one
// unit, in call order, where its first instance stands, and every other instance a unit of its own.
// Without chains every unit is one instance, and shuffling them draws what shuffling the group did.
Units order_units(const std::vector<std::uint32_t>& group, const CallChains& chains) {
  std::map<std::uint32_t, std::size_t> chain_of;
  for (std::size_t c = 0; c < chains.size(); ++c)
    for (auto i : chains[c]) chain_of[i] = c;
  const std::set<std::uint32_t> in_group(group.begin(), group.end());
  std::set<std::size_t> placed;
  Units units;
  for (auto i : group) {
    const auto chain = chain_of.find(i);
    if (chain == chain_of.end()) {
      units.push_back({i});
      continue;
    }
    if (!placed.insert(chain->second).second) continue;
    units.emplace_back();
    for (auto j : chains[chain->second])
      if (in_group.count(j)) units.back().push_back(j);
  }
  return units;
}

std::vector<std::uint32_t> shuffled(Units units, std::mt19937_64& rng) {
  portable_shuffle(units, rng);
  std::vector<std::uint32_t> order;
  for (const auto& unit : units) order.insert(order.end(), unit.begin(), unit.end());
  return order;
}

bool keeps_call_order(const CallChains& chains) {
  for (const auto& chain : chains)
    if (chain.size() > 1) return true;
  return false;
}

}  // namespace

Schedule make_schedule(Isolation isolation, ProcessGranularity per, const Groups& groups, std::uint32_t samples,
                       std::uint64_t seed, const CallChains& chains) {
  Schedule s;
  s.isolation = isolation;
  s.per = per;
  s.n_instances = count_instances(groups);
  s.samples = samples;
  s.seed = seed;
  s.groups = groups;
  s.keep_call_order = keeps_call_order(chains);
  auto planned = [&](std::uint32_t instance, std::uint32_t round) {
    return PlannedSample{instance, round, round, instance * samples + round, 0};
  };
  std::mt19937_64 rng(seed);
  for (const auto& group : groups) {
    const Units units = order_units(group, chains);
    if (isolation == Isolation::sequential) {  // the group's order, a chain's in call order
      WorkerRun run;
      for (const auto& unit : units)
        for (auto i : unit)
          for (std::uint32_t r = 0; r < samples; ++r) run.tasks.push_back(planned(i, r));
      s.runs.push_back(std::move(run));
      continue;
    }
    // Rounds: one sample of every instance of the group per round, reshuffled every round.
    std::vector<std::vector<PlannedSample>> rounds;
    for (std::uint32_t r = 0; r < samples; ++r) {
      std::vector<PlannedSample> round;
      for (auto i : shuffled(units, rng)) round.push_back(planned(i, r));
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
  }
  return s;
}

Schedule make_ab_schedule(ProcessGranularity per, const Groups& groups, std::uint32_t samples, std::uint64_t seed,
                          const CallChains& chains) {
  Schedule s;
  s.isolation = Isolation::process;
  s.per = per;
  s.n_instances = count_instances(groups);
  s.samples = samples;
  s.sides = 2;
  s.seed = seed;
  s.groups = groups;
  s.keep_call_order = keeps_call_order(chains);
  std::mt19937_64 rng(seed);
  const std::uint32_t per_side = s.n_instances * samples;
  auto planned = [&](std::uint32_t instance, std::uint32_t round, std::uint32_t side) {
    return PlannedSample{instance, round, round, side * per_side + instance * samples + round, side};
  };
  for (const auto& group : groups) {
    const Units units = order_units(group, chains);
    for (std::uint32_t r = 0; r < samples; ++r) {
      if (per == ProcessGranularity::batch) {
        const std::uint32_t first = static_cast<std::uint32_t>(rng() & 1u);
        for (std::uint32_t side : {first, 1 - first}) {
          WorkerRun run{side, {}};
          for (auto i : shuffled(units, rng)) run.tasks.push_back(planned(i, r, side));
          s.runs.push_back(std::move(run));
        }
      } else {
        for (auto i : shuffled(units, rng)) {
          const std::uint32_t first = static_cast<std::uint32_t>(rng() & 1u);
          for (std::uint32_t side : {first, 1 - first}) s.runs.push_back(WorkerRun{side, {planned(i, r, side)}});
        }
      }
    }
  }
  return s;
}

}  // namespace isobench::orchestrator
