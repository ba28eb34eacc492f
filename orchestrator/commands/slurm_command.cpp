#include "slurm_command.hpp"

#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <optional>

#include "orchestrator/commands/run_command.hpp"
#include "orchestrator/directory_lock.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/run/local_executor.hpp"
#include "orchestrator/run/run.hpp"
#include "orchestrator/sample_journal.hpp"
#include "orchestrator/slurm/slurm_run.hpp"
#include "orchestrator/slurm/task_record.hpp"
#include "orchestrator/starters/worker_starters.hpp"

namespace isobench::orchestrator {

namespace {

// The request a task makes of its shard: --resume of the shard with the run options the
// submission recorded (slurm.json's task_options).
RunRequest shard_request(const nlohmann::json& t, const std::string& shard_dir, const std::vector<std::string>& argv) {
  RunRequest r;
  try {
    r.worker = t.at("worker").get<std::string>();
    r.worker_timeout_s = t.at("worker_timeout_s").get<double>();
    r.retries = t.at("retries").get<int>();
    r.prestart = t.at("prestart").get<int>();
    r.context_gate = t.at("context_gate").get<bool>();
    r.setup_batch = t.value("setup_batch", 1);
    r.memory_budget_mib = t.at("memory_budget_mib").get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw UsageError(std::string("slurm.json: task_options: ") + e.what());
  }
  r.resume_dir = shard_dir;
  r.command_line = argv;
  r.log = Log::to_stderr(r.quiet);
  return r;
}

// One array task: journals who it is, then finishes its shard as `orchestrate --resume SHARD`
// would. Its exit code tells Slurm whether it measured (0, 3, 130); an A/B verdict is the merged
// run's to give.
int run_task(const std::string& run_path, std::optional<std::uint32_t> shard_given,
             const std::vector<std::string>& argv) {
  const RunDirectory run_dir = RunDirectory::open(run_path);
  if (!is_slurm_run(run_dir)) throw UsageError(run_path + ": not a Slurm run (no slurm.json)");
  Plan plan;
  SlurmRun slurm;
  try {
    plan = Plan::from_json(run_dir.read_json("plan.json"));
    slurm = read_slurm_run(run_dir, static_cast<std::uint32_t>(plan.instances.size()));
  } catch (const std::exception& e) {
    throw UsageError(e.what());
  }
  std::uint32_t index = 0;
  if (shard_given) {
    index = *shard_given;
  } else {
    const char* id = std::getenv("SLURM_ARRAY_TASK_ID");
    if (!id || !*id || std::strlen(id) > 9 || std::string(id).find_first_not_of("0123456789") != std::string::npos)
      throw UsageError("slurm task: no --shard, and SLURM_ARRAY_TASK_ID is not an array index (not a task of a job "
                       "array?)");
    index = static_cast<std::uint32_t>(std::stoul(id));
  }
  if (index >= slurm.shards.size())
    throw UsageError("slurm task: shard " + std::to_string(index) + ": " + run_path + " has " +
                     std::to_string(slurm.shards.size()) + " shards");
  const RunDirectory shard = RunDirectory::open(run_dir.file(shard_dir(index)));
  // Two tasks of one shard (a resubmission beside a task Slurm requeued, two --resume at once)
  // never measure it at once.
  const auto lock = DirectoryLock::take(shard.file("task.lock"), Log::to_stderr(false));
  if (!lock) {
    std::cerr << "orchestrate: shard " << index << " is being measured by another task (" << shard.file("task.lock")
              << " is locked): nothing to do here\n";
    return exit_ok;
  }
  if (shard.read_json("run.json").value("status", "") == "complete") {
    std::cerr << "orchestrate: shard " << index << " is complete: nothing to measure\n";
    return exit_ok;
  }
  // The record goes after the journal's last whole line, where the shard's samples will follow.
  const std::string journal_path = shard.file("samples.jsonl");
  JournalContents journal;
  const auto record = [&] {
    try {
      journal = read_journal(journal_path);
      if (journal.dropped_torn_tail) truncate_journal(journal_path, journal.valid_bytes);
      auto r = slurm_task_event(journal.samples.size(), plan.device == "cuda");
      SampleJournal(journal_path).append_event(r);
      return r;
    } catch (const std::runtime_error& e) {  // a damaged journal, as --resume would refuse it
      throw UsageError(e.what());
    }
  }();
  std::cerr << "orchestrate: shard " << index << " (" << slurm.shards[index].instances.size() << " instances): "
            << task_name(record) << " on " << record["host"].get<std::string>()
            << (record["gpu_uuid"].is_string() ? ", " + record["gpu_uuid"].get<std::string>() : std::string()) << "; "
            << journal.samples.size() << " samples were measured before\n";
  const RunRequest request = shard_request(slurm.task_options, shard.path(), argv);
  LocalExecutor here(worker_starter_for(request));
  const RunResult result = run(request, here);
  if (result.status == RunStatus::interrupted) return exit_interrupted;
  return result.status == RunStatus::incomplete ? exit_measurement_failed : exit_ok;
}

}  // namespace

void add_slurm_options(CLI::App& app, SlurmOptions& o) {
  const std::string group = "Slurm (docs/slurm.md)";
  app.add_option("--executor", o.executor,
                 "where the sweep is measured: local (here), or slurm (sharded over one Slurm job array, one GPU "
                 "per task, merged into one run)")
      ->check(CLI::IsMember({"local", "slurm"}))
      ->capture_default_str()
      ->group(group);
  app.add_option("--shards", o.shards, "--executor slurm: the array's size; instance i is measured by task i % N")
      ->check(CLI::PositiveNumber)
      ->group(group);
  app.add_option("--max-running", o.max_running,
                 "--executor slurm: array tasks running at once (sbatch --array=...%N; default: as many as Slurm "
                 "allows); on --resume, for the resubmitted tasks")
      ->check(CLI::PositiveNumber)
      ->group(group);
  app.add_option("--sbatch-option", o.sbatch_options,
                 "--executor slurm: an sbatch option for every task, written --sbatch-option=--time=2:00:00 "
                 "(repeatable): an #SBATCH line of a new run's script; on --resume, on sbatch's command line")
      ->group(group);
  app.add_flag_callback(
         "--no-wait", [&o] { o.wait = false; },
         "--executor slurm: return once the array is submitted; orchestrate --resume RUN waits and finishes it")
      ->group(group);
}

void register_slurm_command(CLI::App& app, const std::vector<std::string>& command_line, int& exit_code) {
  auto* slurm = app.add_subcommand("slurm", "a run sharded over Slurm (--executor slurm; docs/slurm.md): merge its "
                                            "shards, or measure one shard as an array task");
  slurm->require_subcommand(1);

  auto merge = std::make_shared<RunCommand>();
  merge->request.slurm.merge_only = true;
  merge->request.command_line = command_line;
  auto* merge_cmd = slurm->add_subcommand("merge",
                                          "merge the shards of RUN into it as they are now (also while tasks run) "
                                          "and print its summary, or an A/B run's verdicts; exit code 3 while "
                                          "samples are missing");
  merge_cmd->add_option("run", merge->request.resume_dir, "the run directory --executor slurm wrote")->required();
  merge_cmd
      ->add_option_function<std::string>(
          "--format", [merge](const std::string& v) { merge->format = parse_format(v); },
          "summary (A/B: verdicts) on stdout: table (default), json, csv, markdown or none")
      ->check(CLI::IsMember({"table", "json", "csv", "markdown", "none"}));
  merge_cmd->footer(kExitCodesHelp);
  merge_cmd->callback([merge, &exit_code] { exit_code = run_command(*merge); });

  struct TaskArgs {
    std::string run;
    std::optional<std::uint32_t> shard;
  };
  auto task = std::make_shared<TaskArgs>();
  auto* task_cmd = slurm->add_subcommand("task",
                                         "measure one shard of RUN: what each task of the job array runs (the shard "
                                         "of SLURM_ARRAY_TASK_ID); with --shard, one shard by hand, anywhere");
  task_cmd->add_option("run", task->run, "the run directory --executor slurm wrote")->required();
  task_cmd->add_option_function<std::uint32_t>(
      "--shard", [task](std::uint32_t k) { task->shard = k; }, "the shard to measure (default: SLURM_ARRAY_TASK_ID)");
  task_cmd->callback([task, &command_line, &exit_code] {
    exit_code = exit_code_of("orchestrate", std::cerr, [&] { return run_task(task->run, task->shard, command_line); });
  });
}

}  // namespace isobench::orchestrator
