#include "orchestrator/commands/bisect_command.hpp"

#include <iostream>
#include <memory>

#include "orchestrator/bisect/bisection.hpp"
#include "orchestrator/commands/option_checks.hpp"
#include "orchestrator/commands/run_command.hpp"
#include "orchestrator/errors.hpp"
#include "orchestrator/printers/printer.hpp"

namespace isobench::orchestrator {

namespace {

constexpr const char* kBisectHelp =
    "the first commit between GOOD and BAD (on BAD's first-parent history) that made the sweep's instances "
    "slower: each commit visited is built once by --build, in a git worktree of it, and tested by an A/B run "
    "against GOOD's build, sampled until a verdict; the instances SLOWER between GOOD and BAD are walked, each "
    "to its own first bad commit when they disagree (docs/ci.md, Bisection)";

constexpr const char* kBisectFooter =
    "Error rate over the whole walk: a walk of n commits makes at most K = ceil(log2 n) + 1 tests of any instance "
    "(the endpoint check included) over M instances, and each test judges at alpha / (K M) per instance and "
    "confidence 1 - (1 - confidence) / (K M); by the union bound the walk names a wrong commit (bad meaning "
    "slower than GOOD by more than --threshold) with probability at most (1 - confidence) / 2, and calls an "
    "unchanged commit SLOWER with probability at most alpha.\n"
    "Exit codes: 0 every walked instance has its first bad commit named, or no instance is slower at BAD (\"no "
    "regression between GOOD and BAD\"); 2 bad input, found before anything is built or measured (no directory "
    "left); 3 could not decide (an UNCERTAIN test, only skipped commits left, or a step's run failed; the range "
    "left is printed); 130 interrupted (--resume DIR carries on).";

struct BisectCommand {
  BisectRequest request;
  std::string worker, plugin, python_path;
};

// A resumed bisection asks nothing anew: every option of a new one is refused beside --resume.
void check_resume_options(const CLI::App& cmd, const BisectRequest& request) {
  for (const char* name : {"--good", "--bad", "--build", "--worker", "--plugin", "--python-path", "--python", "--instances",
                           "--out", "--device", "--max-samples", "--alpha", "--confidence", "--threshold", "sweep"})
    if (cmd.count(name) > 0)
      throw UsageError("bisect --resume " + request.resume_dir + ": " + name +
                       " is not taken: a resumed bisection keeps what bisect.json records");
  if (!request.overrides.values().empty())
    throw UsageError("bisect --resume " + request.resume_dir +
                     ": setting options are not taken: a resumed bisection keeps what bisect.json records");
}

void check_new_options(BisectCommand& c) {
  BisectRequest& r = c.request;
  for (const auto& [value, flag] : {std::pair{&r.good, "--good"}, std::pair{&r.bad, "--bad"},
                                    std::pair{&r.build_command, "--build"}})
    if (value->empty()) throw UsageError(std::string("bisect: ") + flag + " is required (or --resume DIR)");
  const int given = !c.worker.empty() + !c.plugin.empty() + !c.python_path.empty();
  if (given != 1)
    throw UsageError("bisect: give one of --worker, --plugin or --python-path: what a build leaves in {out} for a "
                     "step to measure");
  if (!c.worker.empty()) r.artifact_kind = BuildArtifact::worker, r.artifact = c.worker;
  if (!c.plugin.empty()) r.artifact_kind = BuildArtifact::plugin, r.artifact = c.plugin;
  if (!c.python_path.empty()) r.artifact_kind = BuildArtifact::python_path, r.artifact = c.python_path;
}

int run_bisect(const CLI::App& cmd, BisectCommand& c) {
  return exit_code_of("orchestrate", std::cerr, [&] {
    if (c.request.resume_dir.empty())
      check_new_options(c);
    else
      check_resume_options(cmd, c.request);
    c.request.log = Log::to_stderr(c.request.quiet);
    const BisectOutcome outcome = bisect(c.request);
    if (outcome.interrupted) {
      std::cerr << "orchestrate: bisect interrupted; every finished step is kept; carry on with: orchestrate bisect "
                   "--resume "
                << outcome.dir << "\n";
      return outcome.exit_code();
    }
    if (!outcome.broke_off.empty())
      std::cerr << "orchestrate: bisect: a step's run failed: " << outcome.broke_off
                << " (carry on with: orchestrate bisect --resume " << outcome.dir << ")\n";
    make_printer(Format::table)->bisection(std::cout, outcome);
    return outcome.exit_code();
  });
}

}  // namespace

void register_bisect_command(CLI::App& app, const std::vector<std::string>& command_line, int& exit_code) {
  auto command = std::make_shared<BisectCommand>();
  command->request.command_line = command_line;
  BisectRequest& r = command->request;
  auto* cmd = app.add_subcommand("bisect", kBisectHelp);
  cmd->add_option("sweep", r.sweep_path, "sweep file (YAML): the instances to bisect; a plugin it names must load");
  cmd->add_option("--good", r.good, "a commit (any git revision) whose build is not slower");
  cmd->add_option("--bad", r.bad, "a later commit whose build is slower; GOOD must be on its first-parent history");
  cmd->add_option("--build", r.build_command,
                  "shell command that builds the current directory (a git worktree of the commit) into {out}; "
                  "{worktree} and {out} are replaced by their absolute paths, unquoted. Each commit is built once, "
                  "into <DIR>/builds/<commit>/ (its output in builds/<commit>.log); a commit whose build fails, or "
                  "leaves no artifact, is skipped (GOOD and BAD must build)");
  cmd->add_option("--worker", command->worker, "the worker executable a build leaves, relative to {out}");
  cmd->add_option("--plugin", command->plugin,
                  "the build of the sweep's one plugin (.so) a build leaves, relative to {out}: it replaces the "
                  "sweep's plugin on each side, as ab --baseline/--candidate LIB do");
  cmd->add_option("--python-path", command->python_path,
                  "a folder a build leaves, relative to {out}, put first on each side's Python path (Python "
                  "benchmarks)");
  cmd->add_option("--python", r.python,
                  "the Python interpreter of both sides of every step (Python benchmarks; default python3 from "
                  "PATH): a venv's bin/python, say, whose torch and Triton the benchmarks import");
  cmd->add_option("--instances", r.select,
                  "bisect only the instances whose id holds this text (e.g. 'n=4096'); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--out", r.out_dir, "bisection directory to create (default: runs/bisect-<utc time>)");
  cmd->add_option("--resume", r.resume_dir, "carry on with an interrupted bisection: its directory")
      ->type_name("DIR");
  cmd->add_option("--device", r.device, "where to run: auto (a GPU when present), cpu or cuda")
      ->check(CLI::IsMember({"auto", "cpu", "cuda"}))
      ->capture_default_str();
  cmd->add_option_function<std::int64_t>(
         "--max-samples", [&r](std::int64_t n) { r.max_samples = n; },
         "the most samples per side of a test, which stops earlier at its verdict (default: the sweep's samples)")
      ->check(whole_number());
  cmd->add_option("--alpha", r.alpha, "over the whole walk: an unchanged commit called SLOWER anywhere")
      ->capture_default_str();
  cmd->add_option("--confidence", r.confidence,
                  "over the whole walk: a wrong commit is named with probability at most (1 - confidence) / 2")
      ->capture_default_str();
  cmd->add_option("--threshold", r.threshold,
                  "noise floor as a fraction: a commit is bad when it is slower than GOOD by more than this")
      ->capture_default_str();
  cmd->add_flag("-q,--quiet", r.quiet, "no progress on stderr");
  add_setting_options(*cmd, r.overrides, {"isolation"});  // an A/B run is process isolation
  cmd->footer(kBisectFooter);
  cmd->callback([cmd, command, &exit_code] { exit_code = run_bisect(*cmd, *command); });
}

}  // namespace isobench::orchestrator
