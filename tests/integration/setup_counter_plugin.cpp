// A CPU plugin that tells the tests what the worker did with it: every setup() and teardown()
// appends a line ("setup PID SEED BUFFER" / "teardown PID") to the file named by
// ISOBENCH_TEST_SETUP_LOG, so test_isolation_measures.cpp can count how often the worker set an
// instance up (realloc: once more before every sample) and with which seed.
#include <isobench/plugin.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

void* create() { return new Counter; }

int setup(void* self, const char*, void*, uint64_t seed, char*, size_t) {
  auto* c = static_cast<Counter*>(self);
  c->buffer.assign(4096, static_cast<unsigned>(seed));
  char line[128];
  std::snprintf(line, sizeof line, "setup %ld %llu %p\n", static_cast<long>(getpid()),
                static_cast<unsigned long long>(seed), static_cast<void*>(c->buffer.data()));
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
  std::snprintf(line, sizeof line, "teardown %ld\n", static_cast<long>(getpid()));
  log_line(line);
}

void destroy(void* self) { delete static_cast<Counter*>(self); }

const isobench_axis kAxes[] = {{"n", ISOBENCH_AXIS_INTEGER, "1", nullptr, 0, 1, 100, nullptr}};
const isobench_kernel kKernels[] = {{"setup_counter", "test", ISOBENCH_BACKEND_CPU, "logs every setup and teardown",
                                     kAxes, 1, create, setup, launch, teardown, destroy, nullptr, nullptr, nullptr}};
const isobench_plugin kPlugin = {"setup_counter", kKernels, 1};

}  // namespace

extern "C" int isobench_plugin_abi_version(void) { return ISOBENCH_PLUGIN_ABI_VERSION; }
extern "C" const isobench_plugin* isobench_plugin_describe(void) { return &kPlugin; }
