// 200 fresh workers in a row (process isolation, one worker per sample) leave nothing behind:
// no zombie piling up, no descriptor leaked by orchestrate, no shared-memory segment, no orphan
// worker, and every sample journaled once. bench/stress_workers does the watching through /proc
// (docs/results/stress.md records it with 2,000 workers); this test checks its report.

#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>

#include "harness.hpp"

using namespace isobench::testing;

TEST_CASE("200 workers in a row: no zombie, descriptor, segment or orphan left, every sample once") {
  Scratch s("stress");
  const auto r = run(bin("stress_workers") + " --bin " + binary_dir() + "/bin --workers 200 --out " + s.path("stress"), s);
  INFO(r.out);
  INFO(r.err);
  // The report is the last line of the output.
  std::istringstream lines(r.out);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  const auto report = nlohmann::json::parse(last);
  CHECK(report["exit_code"] == 0);
  CHECK(report["workers_started"] == 200);
  CHECK(report["samples"] == 200);
  CHECK(report["distinct_slots"] == 200);
  CHECK(report["distinct_pids"] == 200);  // one fresh process per sample
  CHECK(report["failures"] == 0);
  CHECK(report["values_positive"] == true);
  CHECK(report["probes_running"].get<int>() > 10);  // the watcher saw the run, not just its end
  CHECK(report["max_children"].get<int>() <= 4);
  CHECK(report["max_zombies"].get<int>() <= 2);
  CHECK(report["max_zombie_age_ms"].get<double>() <= 1000);
  // Descriptors: the peak of the last fifth of the run is at most one live worker's four
  // descriptors above the peak of the first two (a leak of one per worker would add 40).
  const auto fd_max = report["fds_max_per_fifth"];
  CHECK(fd_max[4].get<int>() <= std::max(fd_max[0].get<int>(), fd_max[1].get<int>()) + 4);
  CHECK(report["fds_flat"] == true);
  CHECK(report["segments_after"] == 0);
  CHECK(report["orphans_after"] == 0);
  CHECK(report["ok"] == true);
  CHECK(r.exit_code == 0);
}
