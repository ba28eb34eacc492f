// compat/glibc_compat.cpp's functions, linked into this suite as into the wheel's binaries (hidden,
// so this executable's calls reach them), against the build machine's glibc, which has every one
// of them (glibc >= 2.36): each is compared with glibc's own, found through dlsym.

#include <doctest/doctest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/single_threaded.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace {

template <class F>
F glibc(const char* name) {
  void* libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(libc != nullptr);
  void* f = dlsym(libc, name);
  REQUIRE_MESSAGE(f != nullptr, name);
  return reinterpret_cast<F>(f);
}

bool is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

std::vector<int> open_descriptors(int count) {
  std::vector<int> fds;
  for (int i = 0; i < count; ++i) fds.push_back(open("/dev/null", O_RDONLY));
  return fds;
}

// In a child: the kernel answers close_range with ENOSYS, as Linux before 5.9 does.
void forbid_close_range() {
  sock_filter filter[] = {
      BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
      BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_close_range, 0, 1),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
      BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  sock_fprog program{static_cast<unsigned short>(sizeof filter / sizeof filter[0]), filter};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) _exit(3);
}

int eh_marker() { return 42; }

}  // namespace

TEST_CASE("sigabbrev_np: glibc's abbreviation of every signal number, none for others") {
  const auto theirs = glibc<const char* (*)(int)>("sigabbrev_np");
  for (int signal = -2; signal <= 70; ++signal) {
    const char* ours = sigabbrev_np(signal);
    const char* expected = theirs(signal);
    CAPTURE(signal);
    REQUIRE((ours == nullptr) == (expected == nullptr));
    if (ours) CHECK(std::string(ours) == expected);
  }
}

TEST_CASE("close_range closes the descriptors in the range and no others") {
  const auto fds = open_descriptors(4);
  REQUIRE(fds[3] == fds[0] + 3);  // four in a row (the lowest free ones)
  CHECK(close_range(fds[1], fds[2], 0) == 0);
  CHECK(is_open(fds[0]));
  CHECK_FALSE(is_open(fds[1]));
  CHECK_FALSE(is_open(fds[2]));
  CHECK(is_open(fds[3]));
  close(fds[0]);
  close(fds[3]);
}

TEST_CASE("close_range where the kernel has none (ENOSYS): the descriptors are closed one by one") {
  const auto fds = open_descriptors(4);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    forbid_close_range();
    if (syscall(SYS_close_range, fds[3], fds[3], 0) != -1 || errno != ENOSYS) _exit(4);  // the filter works
    if (close_range(fds[1], ~0U, CLOSE_RANGE_UNSHARE) != 0) _exit(5);
    _exit(is_open(fds[0]) && !is_open(fds[1]) && !is_open(fds[2]) && !is_open(fds[3]) ? 0 : 6);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  CHECK_MESSAGE(WEXITSTATUS(status) == 0, "3: no seccomp filter here; 4: it did not refuse close_range; 5: close_range "
                                          "failed; 6: a descriptor stayed open or one outside the range closed");
  for (const int fd : fds) close(fd);
}

TEST_CASE("pthread_cond_clockwait: a steady deadline is kept, the other clocks as glibc's") {
  using Wait = int (*)(pthread_cond_t*, pthread_mutex_t*, clockid_t, const timespec*);
  const auto theirs = glibc<Wait>("pthread_cond_clockwait");
  pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_lock(&mutex);
  timespec deadline{};
  clock_gettime(CLOCK_MONOTONIC, &deadline);
  const auto began = std::chrono::steady_clock::now();
  deadline.tv_nsec += 50'000'000;
  if (deadline.tv_nsec >= 1'000'000'000) deadline.tv_sec += 1, deadline.tv_nsec -= 1'000'000'000;
  CHECK(pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &deadline) == ETIMEDOUT);
  CHECK(std::chrono::steady_clock::now() - began >= std::chrono::milliseconds(49));  // not before the deadline
  timespec passed{};
  clock_gettime(CLOCK_MONOTONIC, &passed);
  passed.tv_sec -= 1;
  CHECK(pthread_cond_clockwait(&cond, &mutex, CLOCK_MONOTONIC, &passed) == ETIMEDOUT);  // at once
  timespec past{};
  clock_gettime(CLOCK_REALTIME, &past);
  past.tv_sec -= 1;
  CHECK(pthread_cond_clockwait(&cond, &mutex, CLOCK_REALTIME, &past) == theirs(&cond, &mutex, CLOCK_REALTIME, &past));
  CHECK(pthread_cond_clockwait(&cond, &mutex, CLOCK_PROCESS_CPUTIME_ID, &past) ==
        theirs(&cond, &mutex, CLOCK_PROCESS_CPUTIME_ID, &past));
  pthread_mutex_unlock(&mutex);
}

TEST_CASE("_dl_find_object: the object and exception tables glibc's finds, for this program and for libc") {
  const auto theirs = glibc<int (*)(void*, dl_find_object*)>("_dl_find_object");
  void* in_libc = dlsym(dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD), "printf");
  for (void* address : {reinterpret_cast<void*>(&eh_marker), in_libc}) {
    dl_find_object ours{}, expected{};
    REQUIRE(theirs(address, &expected) == 0);
    REQUIRE(_dl_find_object(address, &ours) == 0);
    CHECK(ours.dlfo_link_map == expected.dlfo_link_map);
    CHECK(ours.dlfo_eh_frame == expected.dlfo_eh_frame);  // all the unwinder reads
    CHECK(ours.dlfo_map_start <= address);
    CHECK(address < ours.dlfo_map_end);
  }
  dl_find_object none{};
  CHECK(_dl_find_object(nullptr, &none) == -1);
}

TEST_CASE("arc4random draws: 64 draws are not all alike") {
  std::set<std::uint32_t> values;
  for (int i = 0; i < 64; ++i) values.insert(arc4random());
  CHECK(values.size() > 60);  // 64 equal 32-bit draws would be a broken source
}

TEST_CASE("__libc_single_threaded stays 0: libstdc++ keeps its reference counts atomic") {
  CHECK(__libc_single_threaded == 0);
}
