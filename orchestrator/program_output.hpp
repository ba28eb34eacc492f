#pragma once
// A program run to its end with its output caught: the orchestrator's short helper programs
// (sbatch and squeue for Slurm, python3 collecting a pytest file). Workers and zygotes, which
// live beside the run, are orchestrator/worker_process.hpp's.

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
// start; `hint` follows "not found" in that message.
ProgramOutput run_program(const std::string& program, const std::vector<std::string>& args,
                          const std::string& hint = "");

// The first line of `text`, without its end of line.
std::string first_line(const std::string& text);

}  // namespace isobench::orchestrator
