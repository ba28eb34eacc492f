// The "before" column of docs/results/stats-speed.md: bench_stats's verdict sweeps (same seeds,
// same samples) on the statistics as they were at 77e092b, where compare resolved the permutation
// p to alpha / m (Clopper-Pearson bound after Besag-Clifford's 100 extreme draws), then Holm,
// the Hodges-Lehmann interval and stats::decide. Built against that commit's stats library:
//   git archive 77e092b | tar -x -C OLD && cmake -S OLD -B OLD/build ... && cmake --build OLD/build --target isobench_stats
//   g++ -O2 -std=c++20 -I OLD -I NEW before_sweeps.cpp OLD/build/stats/libisobench_stats.a -o before_sweeps
// (NEW: this checkout, for bench/verdict_sweeps.hpp: the samples bench_stats times.)
// It also times what `compare --samples` computes besides the verdict: the permutation p of
// each alternative for both distributions at the default resolution (1e-5) and Mann-Whitney.
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>
#include <string>
#include <vector>

#include "stats/brunner_munzel.hpp"
#include "stats/hodges_lehmann.hpp"
#include "stats/mann_whitney.hpp"
#include "stats/multiple_testing.hpp"
#include "stats/verdict.hpp"
#include "bench/verdict_sweeps.hpp"

using namespace isobench::stats;

int main() {
  for (const auto& sw : isobench::bench::kVerdictSweeps) {
    std::vector<std::vector<double>> a, b;
    sw.draw(a, b);
    const auto start = std::chrono::steady_clock::now();
    const std::clock_t cpu_start = std::clock();
    PermutationOptions permutation;
    permutation.resolution = std::min(permutation.resolution, 0.001 / static_cast<double>(sw.instances));
    permutation.seed += sw.seed;
    std::vector<double> p;
    std::vector<HodgesLehmannRatio> hl;
    BrunnerMunzelResult first;
    for (std::size_t i = 0; i < sw.instances; ++i) {
      const auto r = brunner_munzel(a[i], b[i], Alternative::two_sided, BrunnerMunzelDistribution::t, permutation);
      if (i == 0) first = r;
      p.push_back(r.p_value);
      hl.push_back(hodges_lehmann_ratio(a[i], b[i]));
    }
    const auto adjusted = holm_adjust(p);
    std::size_t counts[4] = {0, 0, 0, 0};
    for (std::size_t i = 0; i < sw.instances; ++i) ++counts[static_cast<int>(decide({hl[i].lo, hl[i].hi, adjusted[i], 0.001, 0.02}))];
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu = static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC;
    std::printf("%-62s %9.1f ms wall %9.1f ms CPU  p %.3g [%s, %.0f]; SLOWER %zu, FASTER %zu, SAME %zu, UNCERTAIN %zu\n", sw.name, s * 1e3,
                cpu * 1e3, first.p_value, std::string(to_string(first.method)).c_str(), first.labellings, counts[0], counts[1],
                counts[2], counts[3]);
    if (sw.instances == 1) {
      const auto detail_start = std::chrono::steady_clock::now();
      const std::clock_t detail_cpu = std::clock();
      for (auto dist : {BrunnerMunzelDistribution::t, BrunnerMunzelDistribution::normal})
        for (auto alt : {Alternative::two_sided, Alternative::less, Alternative::greater}) brunner_munzel(a[0], b[0], alt, dist);
      for (auto alt : {Alternative::two_sided, Alternative::less, Alternative::greater}) mann_whitney_u(a[0], b[0], alt);
      std::printf("%-62s %9.1f ms wall %9.1f ms CPU\n", "  + compare --samples' detail (6 permutation p, 3 MW)",
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - detail_start).count() * 1e3,
                  static_cast<double>(std::clock() - detail_cpu) / CLOCKS_PER_SEC * 1e3);
    }
  }
}
