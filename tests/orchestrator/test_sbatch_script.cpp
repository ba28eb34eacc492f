// The batch script of a Slurm run: one task on one GPU for CUDA sweeps, the GPU line present but
// off for CPU sweeps, the user's options after isobench's own, and nothing a user gives able to
// add a line of its own to the script.
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <vector>

#include "orchestrator/slurm/sbatch_script.hpp"

using namespace isobench::orchestrator;

namespace {

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::size_t index_of(const std::vector<std::string>& lines, const std::string& line) {
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i] == line) return i;
  return lines.size();
}

SbatchSettings settings(bool gpu) {
  SbatchSettings s;
  s.job_name = "isobench-quick";
  s.run_dir = "/shared/runs/quick-1";
  s.orchestrate = "/opt/isobench's build/orchestrate";
  s.gpu = gpu;
  s.options = {"--time=2:00:00", "--cpus-per-task=8"};
  s.command_line = {"orchestrate", "--executor", "slurm", "a\nrm -rf /"};
  return s;
}

}  // namespace

TEST_CASE("a CUDA sweep's tasks take one GPU each; a CPU sweep's script has the GPU line, off") {
  const auto gpu = lines_of(sbatch_script(settings(true)));
  const auto cpu = lines_of(sbatch_script(settings(false)));
  CHECK(gpu.front() == "#!/bin/bash");
  CHECK(index_of(gpu, "#SBATCH --gpus-per-task=1") < gpu.size());
  CHECK(index_of(gpu, "##SBATCH --gpus-per-task=1") == gpu.size());
  CHECK(index_of(cpu, "#SBATCH --gpus-per-task=1") == cpu.size());
  CHECK(index_of(cpu, "##SBATCH --gpus-per-task=1") < cpu.size());
  for (const auto* lines : {&gpu, &cpu}) {
    CHECK(index_of(*lines, "#SBATCH --ntasks=1") < lines->size());
    CHECK(index_of(*lines, "#SBATCH --exclusive=user") < lines->size());
    CHECK(index_of(*lines, "#SBATCH --output=/shared/runs/quick-1/slurm-logs/%A_%a.out") < lines->size());
    CHECK(lines->back() == "exec '/opt/isobench'\\''s build/orchestrate' slurm task '/shared/runs/quick-1'");
  }
  CHECK(index_of(gpu, "#SBATCH --cpus-per-task=4") < gpu.size());
  CHECK(index_of(cpu, "#SBATCH --cpus-per-task=2") < cpu.size());
}

TEST_CASE("the user's options come after isobench's, where sbatch takes them over its own") {
  const auto lines = lines_of(sbatch_script(settings(true)));
  const auto own = index_of(lines, "#SBATCH --cpus-per-task=4"), user = index_of(lines, "#SBATCH --cpus-per-task=8");
  REQUIRE(user < lines.size());
  CHECK(own < user);
  CHECK(index_of(lines, "#SBATCH --time=2:00:00") < lines.size());
  // The #SBATCH lines all come before the first command (sbatch stops reading them there).
  const auto first_command = index_of(lines, "export CUDA_DEVICE_ORDER=\"${CUDA_DEVICE_ORDER:-PCI_BUS_ID}\"");
  REQUIRE(first_command < lines.size());
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (lines[i].rfind("#SBATCH", 0) == 0) CHECK(i < first_command);
}

TEST_CASE("nothing the user gives adds a line to the script") {
  // The command line in the header: a newline in an argument stays inside the comment.
  const auto lines = lines_of(sbatch_script(settings(false)));
  for (const auto& line : lines)
    if (line.find("rm -rf") != std::string::npos) CHECK(line.front() == '#');
  CHECK_THROWS_AS(check_sbatch_option("--time=1\nrm -rf /"), std::invalid_argument);
  CHECK_THROWS_AS(check_sbatch_option("time=1"), std::invalid_argument);
  CHECK_THROWS_AS(check_sbatch_option(""), std::invalid_argument);
  CHECK_NOTHROW(check_sbatch_option("--partition=gpu"));
  CHECK_THROWS_AS(check_slurm_path("--out", "/shared/my runs/x"), std::invalid_argument);
  CHECK_THROWS_AS(check_slurm_path("--out", "/shared/100%/x"), std::invalid_argument);
  CHECK_NOTHROW(check_slurm_path("--out", "/shared/runs/quick-20261201-093000"));
  CHECK(shell_quote("it's") == "'it'\\''s'");
}
