#include "sbatch_script.hpp"

#include <sstream>
#include <stdexcept>

namespace isobench::orchestrator {

namespace {

bool is_control(unsigned char c) { return c < 0x20 || c == 0x7f; }

bool has_control_character(const std::string& text) {
  for (const unsigned char c : text)
    if (is_control(c)) return true;
  return false;
}

// The command line as a comment: control characters (a newline would end the comment and make
// the rest a command) become '?'.
std::string comment_text(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ' ';
    for (const char c : w) out += is_control(static_cast<unsigned char>(c)) ? '?' : c;
  }
  return out;
}

}  // namespace

void check_sbatch_option(const std::string& option) {
  if (option.empty() || option.front() != '-')
    throw std::invalid_argument("--sbatch-option '" + option + "': an sbatch option begins with '-' (e.g. --time=2:00:00)");
  if (has_control_character(option))
    throw std::invalid_argument("--sbatch-option: '" + comment_text({option}) + "' holds a control character");
}

void check_slurm_path(const std::string& what, const std::string& path) {
  for (const unsigned char c : path)
    if (is_control(c) || c == ' ' || c == '%' || c == '"' || c == '\'')
      throw std::invalid_argument(what + " '" + comment_text({path}) +
                                  "': the path must hold no spaces, quotes, % or control characters (sbatch "
                                  "reads #SBATCH lines as words and % as a pattern)");
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string sbatch_script(const SbatchSettings& s) {
  std::ostringstream out;
  out << "#!/bin/bash\n"
      << "# isobench: each task of this job array measures the shard of its array index of the run\n"
      << "#   " << comment_text({s.run_dir}) << "\n"
      << "# (docs/slurm.md). Written by: " << comment_text(s.command_line) << "\n"
      << "# orchestrate submits it as sbatch --array=<shards>[%<max running>], and again for the shards\n"
      << "# that lack samples on --resume. sbatch takes the last of two lines that set one option, and\n"
      << "# its command line over them all.\n"
      << "#SBATCH --job-name=" << s.job_name << "\n"
      << "#SBATCH --output=" << s.run_dir << "/slurm-logs/%A_%a.out\n"
      << "#SBATCH --ntasks=1\n"
      // The measuring worker and the orchestrator each on a CPU of their own; a CUDA task also
      // has a pre-started worker making its context, and the driver's threads.
      << "#SBATCH --cpus-per-task=" << (s.gpu ? 4 : 2) << "\n"
      << "# A GPU Slurm allocates is given to no other job; --exclusive=user keeps other users' jobs\n"
      << "# off the node, while this run's own tasks share it, each on its own GPU.\n"
      << "#SBATCH --exclusive=user\n";
  if (s.gpu) {
    out << "#SBATCH --gpus-per-task=1\n";
  } else {
    out << "# A CPU sweep takes no GPU: the line below is off (sbatch reads only lines beginning #SBATCH).\n"
        << "##SBATCH --gpus-per-task=1\n";
  }
  for (const auto& option : s.options) out << "#SBATCH " << option << "\n";
  out << "# CUDA numbers devices fastest first, NVML and gres.conf by PCI bus: one order for both, so\n"
      << "# that CUDA device 0 of the task is the GPU NVML and the run record name.\n"
      << "export CUDA_DEVICE_ORDER=\"${CUDA_DEVICE_ORDER:-PCI_BUS_ID}\"\n"
      << "exec " << shell_quote(s.orchestrate) << " slurm task " << shell_quote(s.run_dir) << "\n";
  return out.str();
}

}  // namespace isobench::orchestrator
