// A CPU plugin that tells the tests what the worker did with it: every setup() and teardown()
// appends a line ("setup PID SEED BUFFER BEGIN_NS END_NS" / "teardown PID NS", times on
// CLOCK_MONOTONIC, the clock of the journal's) to the file named by ISOBENCH_TEST_SETUP_LOG, so
// test_isolation_measures.cpp can count how often the worker set an instance up (realloc: once
// more before every sample) and with which seed, and test_setup_batches.cpp when. Its setup_ms
// axis makes setup() take that long, as a careful user's set-up does, and setup_stagger_ms that
// much more times the process id modulo 4, so that workers set up at once end apart.
#include <isobench/plugin.h>

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Counter {
  std::vector<unsigned> buffer;
};

// One write() per line with O_APPEND: lines of several workers never interleave.
void log_line(const char* line) {
  const char* path = std::getenv("ISOBENCH_TEST_SETUP_LOG");
  if (!path) return;
  const int fd = open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  const ssize_t written = write(fd, line, std::strlen(line));
  (void)written;  // a test helper: a lost line shows up as a wrong count
  close(fd);
}

unsigned long long monotonic_ns() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<unsigned long long>(t.tv_sec) * 1000000000ull + static_cast<unsigned long long>(t.tv_nsec);
}

// An integer axis of the parameters, e.g. "setup_ms" of {"n":1,"setup_ms":150}.
long axis(const char* params_json, const std::string& name) {
  const std::string key = "\"" + name + "\":";
  const char* at = std::strstr(params_json ? params_json : "", key.c_str());
  return at ? std::strtol(at + key.size(), nullptr, 10) : 0;
}

void* create() { return new Counter; }

int setup(void* self, const char* params_json, void*, uint64_t seed, char*, size_t) {
  const auto begin = monotonic_ns();
  auto* c = static_cast<Counter*>(self);
  c->buffer.assign(4096, static_cast<unsigned>(seed));
  std::this_thread::sleep_for(std::chrono::milliseconds(axis(params_json, "setup_ms") +
                                                        axis(params_json, "setup_stagger_ms") * (getpid() % 4)));
  char line[160];
  std::snprintf(line, sizeof line, "setup %ld %llu %p %llu %llu\n", static_cast<long>(getpid()),
                static_cast<unsigned long long>(seed), static_cast<void*>(c->buffer.data()), begin, monotonic_ns());
  log_line(line);
  return 0;
}

int launch(void* self) {
  auto* c = static_cast<Counter*>(self);
  for (auto& x : c->buffer) x = x * 1664525u + 1013904223u;
  return 0;
}

void teardown(void* self) {
  static_cast<Counter*>(self)->buffer.clear();
  char line[64];
  std::snprintf(line, sizeof line, "teardown %ld %llu\n", static_cast<long>(getpid()), monotonic_ns());
  log_line(line);
}

void destroy(void* self) { delete static_cast<Counter*>(self); }

const isobench_axis kAxes[] = {
    {"n", ISOBENCH_AXIS_INTEGER, "1", nullptr, 0, 1, 100, nullptr},
    {"setup_ms", ISOBENCH_AXIS_INTEGER, "0", nullptr, 0, 0, 5000, "setup() sleeps this long"},
    {"setup_stagger_ms", ISOBENCH_AXIS_INTEGER, "0", nullptr, 0, 0, 1000,
     "and this much more times the process id modulo 4"}};
const isobench_kernel kKernels[] = {{"setup_counter", "test", ISOBENCH_BACKEND_CPU, "logs every setup and teardown",
                                     kAxes, 3, create, setup, launch, teardown, destroy, nullptr, nullptr, nullptr}};
const isobench_plugin kPlugin = {"setup_counter", kKernels, 1};

}  // namespace

extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
