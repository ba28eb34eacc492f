#pragma once
// A program run to its end with its output caught: the orchestrator's short helper programs
// (sbatch and squeue for Slurm, python3 collecting a pytest file) and a bisection's build script.
// Workers and zygotes, which live beside the run, are orchestrator/worker_process.hpp's.

#include <string>
#include <vector>

namespace isobench::orchestrator {

struct ProgramOutput {
  int exit_code = -1;
  std::string out, err;
};

// Runs `program` (looked up in PATH as the shell would; a name with a '/' is a path) with `args`
// to its end, its stdout and stderr caught in unnamed temporary files (a pipe would need reading
// while it runs; squeue's answer for a large array exceeds a pipe's buffer). Throws
// std::runtime_error naming the program when it is not found (on PATH, or at its path) or cannot
// start; `hint` follows "not found" in that message. `variables` (NAME=VALUE) are set over this
// process's environment for the program: it is found here first, then started by env(1) with
// them (this library does not start processes with an environment of their own: that part of
// Boost.Process is the orchestrator library's, orchestrator/boost_process.hpp).
ProgramOutput run_program(const std::string& program, const std::vector<std::string>& args,
                          const std::string& hint = "", const std::vector<std::string>& variables = {});

// Runs `script` by /bin/sh to its end, its stdout and stderr caught as run_program's, in a process
// group of its own under a guard process that stays in orchestrate's group: the guard dies with
// orchestrate (the parent-death signal, also after a SIGKILL) or with a Ctrl-C to the terminal's
// group, and takes the whole group with it, so that nothing the script started outlives the
// caller (a bisection's build writing into builds/ beside a resumed one). Only async-signal-safe
// calls after fork. The exit code is the shell's, 128 + the signal that ended it. Throws
// std::runtime_error when it cannot start.
ProgramOutput run_shell_in_group(const std::string& script);

// The first line of `text`, without its end of line.
std::string first_line(const std::string& text);

}  // namespace isobench::orchestrator
