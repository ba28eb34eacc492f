#include "command_timer.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <numeric>
#include <sstream>
#include <stdexcept>

#include "command_process.hpp"
#include "ipc/artifact_folder.hpp"
#include "orphan_guard.hpp"

extern char** environ;

namespace isobench::worker {

namespace bp = boost::process::v2;

std::vector<double> parse_protocol_output(const std::string& stdout_text) {
  std::vector<double> values;
  std::istringstream lines(stdout_text);
  std::string line;
  for (int number = 1; std::getline(lines, line); ++number) {
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] != '{') continue;
    const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!j.is_object() || !j.contains("isobench")) continue;  // the program's own output
    const std::string where = "stdout line " + std::to_string(number) + ": ";
    const auto& version = j["isobench"];
    if (!version.is_number_integer() || version.get<long long>() != kCommandProtocolVersion)
      throw std::runtime_error(where + "protocol version " + version.dump() + ", this worker speaks " +
                               std::to_string(kCommandProtocolVersion));
    const auto it = j.find("value");
    if (it == j.end() || !it->is_number())
      throw std::runtime_error(where + "\"value\" must be a number of seconds, got " +
                               (it == j.end() ? std::string("none") : it->dump()));
    const double v = it->get<double>();
    if (!std::isfinite(v) || v <= 0)
      throw std::runtime_error(where + "\"value\" must be a positive, finite number of seconds, got " + it->dump());
    values.push_back(v);
  }
  return values;
}

namespace {

std::string upper(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string describe_wait_status(int status) {
  if (WIFSIGNALED(status)) {
    const char* abbrev = sigabbrev_np(WTERMSIG(status));
    return std::string("killed by ") +
           (abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(WTERMSIG(status)));
  }
  return "exited with code " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : status);
}

// Boost.Process initializer: the program leads a process group of its own and dies with the
// worker, so neither it nor what it starts outlives a run (worker/orphan_guard.hpp).
struct DiesWithWorker {
  pid_t worker = ::getpid();
  template <class Launcher>
  boost::system::error_code on_exec_setup(Launcher&, const std::filesystem::path&, const char* const*) const {
    start_child_group_dying_with(worker);
    return {};
  }
};

class CommandBenchmark final : public kernels::Benchmark {
 public:
  explicit CommandBenchmark(const ipc::WorkerInstance& instance)
      : argv_(instance.command), dir_(instance.command_dir), id_(instance.id) {
    if (argv_.empty()) throw std::runtime_error(id_ + ": no program to run");
    for (const auto& a : argv_) shown_ += (shown_.empty() ? "" : " ") + a;
    if (shown_.size() > 120) shown_ = shown_.substr(0, 117) + "...";
  }

  // The program's environment: the worker's own, minus any ISOBENCH_ variables, plus the
  // protocol version, the instance's parameters and its artifact folder (the worker set
  // ISOBENCH_ARTIFACT_DIR for this instance just before this setup; it is passed on by name
  // because every other ISOBENCH_ variable of the worker is dropped).
  void setup(const kernels::Params& params, const kernels::SetupContext& ctx) override {
    env_.clear();
    for (char** e = environ; *e; ++e)
      if (std::string_view(*e).rfind("ISOBENCH_", 0) != 0) env_.emplace_back(*e);
    env_.push_back("ISOBENCH_PROTOCOL=" + std::to_string(kCommandProtocolVersion));
    env_.push_back("ISOBENCH_PARAMS=" + params.dump());
    env_.push_back("ISOBENCH_INSTANCE=" + id_);
    env_.push_back("ISOBENCH_SEED=" + std::to_string(ctx.seed));
    if (const char* artifacts = std::getenv(ipc::kArtifactDirVariable))
      env_.push_back(std::string(ipc::kArtifactDirVariable) + "=" + artifacts);
    for (const auto& [axis, value] : params.items())
      env_.push_back("ISOBENCH_PARAM_" + upper(axis) + "=" +
                     (value.is_string() ? value.get<std::string>() : value.dump()));

    std::filesystem::path program = argv_[0];
    if (argv_[0].find('/') == std::string::npos) program = bp::environment::find_executable(argv_[0]);
    if (program.empty()) throw std::runtime_error("command " + shown_ + ": \"" + argv_[0] + "\" is not in PATH");
    program_ = program;
  }

  void launch() override {
    boost::asio::io_context ctx;
    boost::asio::readable_pipe out(ctx);
    std::string text;
    int status = 0;
    try {
      bp::process proc(ctx, program_, std::vector<std::string>(argv_.begin() + 1, argv_.end()),
                       bp::process_stdio{nullptr, out, {}}, bp::process_environment(env_), bp::process_start_dir(dir_),
                       DiesWithWorker{});
      const GuardedChildGroup group(proc.id());
      boost::system::error_code ec;
      boost::asio::read(out, boost::asio::dynamic_buffer(text), ec);  // to EOF: the program closed stdout
      proc.wait();
      status = proc.native_exit_code();
    } catch (const std::exception& e) {
      throw std::runtime_error("command " + shown_ + ": cannot run: " + e.what());
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      throw std::runtime_error("command " + shown_ + " " + describe_wait_status(status) +
                               " (its stderr is in workers.log)");
    try {
      values_ = parse_protocol_output(text);
    } catch (const std::exception& e) {
      throw std::runtime_error("command " + shown_ + ": " + e.what());
    }
    if (values_.empty())
      throw std::runtime_error("command " + shown_ + " printed no sample: expected a line {\"isobench\": " +
                               std::to_string(kCommandProtocolVersion) + ", \"value\": <seconds>} on stdout");
  }

  nlohmann::json describe() const override { return {{"command", argv_}, {"dir", dir_}}; }

  const std::vector<double>& values() const { return values_; }

 private:
  std::vector<std::string> argv_;
  std::string dir_, id_, shown_;
  std::filesystem::path program_;
  std::vector<std::string> env_;
  std::vector<double> values_;
};

class CommandTimer final : public Timer {
 public:
  CommandTimer(CommandBenchmark& bench, const TimerOptions& options) : bench_(bench), options_(options) {}

  Measurement measure() override {
    bench_.launch();
    const auto& v = bench_.values();
    Measurement m;
    m.sample.value_s = options_.statistic == SampleStatistic::min ? *std::min_element(v.begin(), v.end())
                                                           : std::accumulate(v.begin(), v.end(), 0.0) / v.size();
    // host_enqueue_s stays 0 (unknown): the program times itself, its launches are not seen here.
    return m;
  }

  std::string setup_note() const override { return "one invocation per sample; values from the program"; }

 private:
  CommandBenchmark& bench_;
  TimerOptions options_;
};

}  // namespace

std::unique_ptr<kernels::Benchmark> make_command_benchmark(const ipc::WorkerInstance& instance) {
  return std::make_unique<CommandBenchmark>(instance);
}

std::unique_ptr<Timer> make_command_timer(kernels::Benchmark& bench, const TimerOptions& options) {
  auto* command = dynamic_cast<CommandBenchmark*>(&bench);
  if (!command) throw std::logic_error("make_command_timer: not a command benchmark");
  return std::make_unique<CommandTimer>(*command, options);
}

}  // namespace isobench::worker
