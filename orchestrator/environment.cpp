#include "environment.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <boost/version.hpp>
#include <fstream>
#include <sstream>
#include <thread>

#include "build_identity.hpp"
#include "gpu_environment.hpp"
#include "run_directory.hpp"

namespace isobench::orchestrator {

namespace {

std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

std::string cpuinfo_field(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key, 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return {};
}

std::string os_pretty_name() {
  std::ifstream in("/etc/os-release");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("PRETTY_NAME=", 0) == 0) {
      std::string v = line.substr(12);
      if (v.size() >= 2 && v.front() == '"') v = v.substr(1, v.size() - 2);
      return v;
    }
  return {};
}

}  // namespace

std::uint64_t host_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  return pages > 0 && page > 0 ? static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) : 0;
}

bool gpu_available() {
  const auto gpu = collect_gpu_environment();
  return gpu.value("available", false) && gpu.contains("gpus") && !gpu["gpus"].empty();
}

Environment collect_environment(const std::vector<std::string>& command_line) {
  Environment env;
  utsname u{};
  uname(&u);
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  const std::string governor = read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor");
  env.data = {
      {"schema_version", kRunSchemaVersion},
      {"isobench_version", isobench_version()},
      {"time", utc_timestamp()},
      {"command_line", command_line},
      {"host", {{"hostname", host}, {"os", os_pretty_name()}, {"kernel", std::string(u.sysname) + " " + u.release},
                {"machine", u.machine}}},
      {"cpu", {{"model", cpuinfo_field("model name")}, {"logical_cores", std::thread::hardware_concurrency()},
               {"governor", governor.empty() ? nlohmann::json(nullptr) : nlohmann::json(governor)}}},
      {"memory_bytes", host_memory_bytes()},
      {"build", {{"compiler", __VERSION__}, {"boost", BOOST_LIB_VERSION}, {"type", build_type()},
                 {"cuda", built_with_cuda()}}},
      {"gpu", collect_gpu_environment()},
  };
  if (!governor.empty() && governor != "performance")
    env.warnings.push_back("CPU frequency governor is '" + governor + "', not 'performance': CPU timings may drift");
  const auto& gpu = env.data["gpu"];
  if (gpu.contains("gpus"))
    for (const auto& g : gpu["gpus"])
      if (g.contains("processes") && !g["processes"].empty())
        env.warnings.push_back("another process is using GPU " + g.value("name", std::string("?")) + " (" +
                               std::to_string(g["processes"].size()) + " compute processes): numbers will be disturbed");
  env.data["warnings"] = env.warnings;
  return env;
}

}  // namespace isobench::orchestrator
