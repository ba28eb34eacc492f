#include "slurm_client.hpp"

#include <sstream>
#include <stdexcept>

#include "orchestrator/program_output.hpp"

namespace isobench::orchestrator {

std::string submit_array(const std::string& script, const std::string& array, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"--parsable", "--array=" + array};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(script);
  const auto r = run_program("sbatch", argv, "is this a Slurm login node?");
  // --parsable prints "jobid" or "jobid;cluster".
  const std::string id = first_line(r.out).substr(0, first_line(r.out).find(';'));
  if (r.exit_code != 0 || id.empty() || id.find_first_not_of("0123456789") != std::string::npos)
    throw std::runtime_error("sbatch refused the job array (exit code " + std::to_string(r.exit_code) +
                             "): " + (r.err.empty() ? first_line(r.out) : first_line(r.err)));
  return id;
}

QueuedTasks queued_tasks(const std::set<std::string>& job_ids) {
  // All of this user's jobs, one line per array task, instead of --jobs: squeue fails on a job
  // id it has forgotten (MinJobAge after the job ended), which here only means "over".
  const auto r = run_program("squeue", {"--me", "--noheader", "--array", "--format=%F|%K|%T"}, "is this a Slurm login node?");
  if (r.exit_code != 0)
    throw std::runtime_error("squeue failed (exit code " + std::to_string(r.exit_code) + "): " + first_line(r.err));
  QueuedTasks queued;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|'), bar2 = line.find('|', bar + 1);
    if (bar == std::string::npos || bar2 == std::string::npos) continue;
    const std::string job = line.substr(0, bar), task = line.substr(bar + 1, bar2 - bar - 1);
    if (!job_ids.count(job) || task.empty() || task.size() > 9 || task.find_first_not_of("0123456789") != std::string::npos)
      continue;
    queued[job][static_cast<std::uint32_t>(std::stoul(task))] = line.substr(bar2 + 1);
  }
  return queued;
}

}  // namespace isobench::orchestrator
