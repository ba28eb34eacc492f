#include "slurm_client.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "orchestrator/boost_process.hpp"

namespace bp = boost::process::v2;

namespace isobench::orchestrator {

namespace {

struct Output {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(std::FILE* f) {
  std::string text;
  std::rewind(f);
  char buf[4096];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) text.append(buf, n);
  return text;
}

std::string first_line(const std::string& text) {
  const auto end = text.find_first_of("\r\n");
  return text.substr(0, end);
}

// `program` as the shell would find it on PATH (Boost 1.81's find_executable does not compile
// with BOOST_PROCESS_USE_STD_FS); empty when it is not there.
std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (std::size_t begin = 0; begin <= dirs.size();) {
    const auto end = std::min(dirs.find(':', begin), dirs.size());
    const std::string dir = end > begin ? dirs.substr(begin, end - begin) : ".";
    const std::string candidate = dir + "/" + program;
    std::error_code ec;
    if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  return {};
}

// Runs `program` from PATH to its end, its output caught in unnamed temporary files (a pipe
// would need reading while it runs; squeue's answer for a large array exceeds a pipe's buffer).
Output run_program(const std::string& program, const std::vector<std::string>& args) {
  const auto exe = find_on_path(program);
  if (exe.empty()) throw std::runtime_error(program + ": not found on PATH (is this a Slurm login node?)");
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> out(std::tmpfile(), std::fclose), err(std::tmpfile(), std::fclose);
  if (!out || !err) throw std::runtime_error(program + ": no temporary file for its output");
  boost::asio::io_context ctx;
  Output result;
  try {
    bp::process proc(ctx, exe, args, bp::process_stdio{nullptr, out.get(), err.get()});
    result.exit_code = proc.wait();
  } catch (const std::exception& e) {
    throw std::runtime_error(program + ": " + e.what());
  }
  result.out = slurp(out.get());
  result.err = slurp(err.get());
  return result;
}

}  // namespace

std::string submit_array(const std::string& script, const std::string& array, const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"--parsable", "--array=" + array};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.push_back(script);
  const auto r = run_program("sbatch", argv);
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
  const auto r = run_program("squeue", {"--me", "--noheader", "--array", "--format=%F|%K|%T"});
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
