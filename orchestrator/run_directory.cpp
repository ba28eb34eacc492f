#include "run_directory.hpp"

#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>

#include "orchestrator/directory_lock.hpp"

namespace fs = std::filesystem;

namespace isobench::orchestrator {

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void RunDirectory::check_unused(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec) && !fs::is_directory(path, ec)) throw UsageError(path + ": exists and is not a directory");
  if (fs::exists(path, ec) && !fs::is_empty(path, ec))
    throw UsageError(path + ": run directory exists and is not empty" +
                     (DirectoryLock::held((fs::path(path) / "run.lock").string())
                          ? " (another orchestrate is measuring it now)"
                      : fs::exists(fs::path(path) / "run.json", ec) ? " (use --resume to finish it)"
                                                                    : ""));
}

RunDirectory RunDirectory::create_checked(const std::string& path) {
  std::error_code ec;
  fs::create_directories(path, ec);
  if (ec) throw UsageError(path + ": cannot create run directory: " + ec.message());
  return RunDirectory(path);
}

RunDirectory RunDirectory::create(const std::string& path) {
  check_unused(path);
  return create_checked(path);
}

RunDirectory RunDirectory::open(const std::string& path) {
  RunDirectory dir = open_record(path, "run.json", "run directory");
  check_schema_version(dir.read_json("run.json"), dir.file("run.json"));
  return dir;
}

RunDirectory RunDirectory::open_record(const std::string& path, const std::string& record, const std::string& what) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) throw UsageError(path + ": not a " + what);
  RunDirectory dir(path);
  if (!dir.exists(record)) throw UsageError(path + ": no " + record + ": not a " + what);
  return dir;
}

void RunDirectory::write_text(const std::string& name, const std::string& text) const {
  write_with(name, [&](std::ostream& out) { out << text; });
}

void RunDirectory::write_with(const std::string& name, const std::function<void(std::ostream&)>& write) const {
  const std::string final_path = file(name);
  const std::string tmp = final_path + ".tmp";
  std::error_code ec;
  try {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    write(out);
    out.flush();
    if (!out) throw std::runtime_error(tmp + ": cannot write");
  } catch (...) {
    fs::remove(tmp, ec);  // the file as it was stays; no half-written one beside it
    throw;
  }
  fs::rename(tmp, final_path, ec);
  if (ec) throw std::runtime_error(final_path + ": cannot write: " + ec.message());
}

void RunDirectory::write_json(const std::string& name, const nlohmann::json& j) const {
  write_text(name, dump_json(j, 2) + "\n");
}

nlohmann::json RunDirectory::read_json(const std::string& name) const {
  std::ifstream in(file(name));
  if (!in) throw std::runtime_error(file(name) + ": cannot read");
  std::stringstream buf;
  buf << in.rdbuf();
  auto j = nlohmann::json::parse(buf.str(), nullptr, false);
  if (j.is_discarded()) throw std::runtime_error(file(name) + ": not valid JSON");
  return j;
}

bool RunDirectory::exists(const std::string& name) const {
  std::error_code ec;
  return fs::exists(file(name), ec);
}

void check_schema_version(const nlohmann::json& j, const std::string& file) {
  if (!j.is_object() || !j.contains("schema_version") || !j["schema_version"].is_number_integer())
    throw std::runtime_error(file + ": schema_version: missing");
  const int v = j["schema_version"].get<int>();
  if (v > kRunSchemaVersion)
    throw std::runtime_error(file + ": schema_version: " + std::to_string(v) +
                             " is newer than this build reads (" + std::to_string(kRunSchemaVersion) +
                             "); upgrade isobench");
}

RunLog::RunLog(const std::string& path) {
  file_ = std::fopen(path.c_str(), "a");
  if (!file_) throw std::runtime_error(path + ": cannot open log");
}

RunLog::~RunLog() {
  if (file_) std::fclose(file_);
}

void RunLog::write(const std::string& tag, const std::string& message) { write({utc_timestamp(), tag, message}); }

void RunLog::write(const LogLine& line) {
  std::fprintf(file_, "%s [%s] %s\n", line.time.c_str(), line.tag.c_str(), line.message.c_str());
  std::fflush(file_);
}

std::string utc_timestamp() { return utc_timestamp(std::chrono::system_clock::now()); }

std::string utc_timestamp(std::chrono::system_clock::time_point now) {
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  char out[48];
  std::snprintf(out, sizeof out, "%s.%03dZ", buf, static_cast<int>(ms));
  return out;
}

std::string compact_utc_timestamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

std::optional<std::chrono::system_clock::time_point> process_start_time() {
  // Field 22 of /proc/self/stat, after the command name in parentheses (which may hold spaces):
  // the start in clock ticks since boot, on the clock CLOCK_BOOTTIME reads.
  std::ifstream in("/proc/self/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto close = stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i)
    if (i == 22) {
      const long ticks = ::sysconf(_SC_CLK_TCK);
      timespec boot{};
      if (ticks <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &boot) != 0) return std::nullopt;
      char* end = nullptr;
      const double start = std::strtod(field.c_str(), &end);
      if (end == field.c_str()) return std::nullopt;
      const double age = boot.tv_sec + boot.tv_nsec / 1e9 - start / static_cast<double>(ticks);
      return std::chrono::system_clock::now() -
             std::chrono::duration_cast<std::chrono::system_clock::duration>(std::chrono::duration<double>(age));
    }
  return std::nullopt;
}

double unix_time_now() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

}  // namespace isobench::orchestrator
