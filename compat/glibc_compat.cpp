// glibc functions newer than glibc 2.28, defined here for binaries that carry libstdc++ and
// libgcc inside them (ISOBENCH_STATIC_RUNTIME: the wheel, the device build). Debian 12's
// libstdc++.a and libgcc_eh.a were built against glibc 2.36, and its headers inline calls of
// 2.30's and 2.32's additions into our own code; the wheel links against glibc 2.28's symbols
// (cmake/GlibcFloor.cmake), which refuses every one of these, so they are defined here, hidden
// (no other library in the process sees them), through calls that glibc 2.28 has. Each does
// what glibc's does, except where its comment says otherwise (docs/install.md, "Which glibc").

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <linux/close_range.h>
#include <pthread.h>
#include <sched.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <limits>

namespace {

struct Search {
  std::uintptr_t address;
  dl_find_object* result;
  bool found;
};

int find_in_object(dl_phdr_info* info, std::size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const ElfW(Phdr)* eh_frame = nullptr;
  std::uintptr_t start = 0, end = 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& header = info->dlpi_phdr[i];
    if (header.p_type == PT_GNU_EH_FRAME) eh_frame = &header;
    if (header.p_type != PT_LOAD) continue;
    const std::uintptr_t segment = info->dlpi_addr + header.p_vaddr;
    if (search->address >= segment && search->address < segment + header.p_memsz) {
      start = segment;
      end = segment + header.p_memsz;
    }
  }
  if (end == 0) return 0;
  search->result->dlfo_flags = 0;
  search->result->dlfo_map_start = reinterpret_cast<void*>(start);
  search->result->dlfo_map_end = reinterpret_cast<void*>(end);
  search->result->dlfo_eh_frame = eh_frame ? reinterpret_cast<void*>(info->dlpi_addr + eh_frame->p_vaddr) : nullptr;
  search->found = true;
  return 1;
}

}  // namespace

// The unwinder (libgcc_eh.a) finds the exception tables of the object an address lies in.
extern "C" __attribute__((visibility("hidden"))) int _dl_find_object(void* address, dl_find_object* result) noexcept {
  Search search{reinterpret_cast<std::uintptr_t>(address), result, false};
  dl_iterate_phdr(find_in_object, &search);
  if (!search.found) return -1;
  Dl_info info;
  link_map* map = nullptr;
  if (!dladdr1(address, &info, reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) || !map) return -1;
  result->dlfo_link_map = map;
  return 0;
}

// std::random_device (libstdc++.a) draws from it.
extern "C" __attribute__((visibility("hidden"))) std::uint32_t arc4random() noexcept {
  std::uint32_t value = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&value);
  std::size_t got = 0;
  while (got < sizeof value) {
    const ssize_t n = getrandom(bytes + got, sizeof value - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
    else if (errno != EINTR) std::abort();  // as glibc's does: no randomness is no answer
  }
  return value;
}

// libstdc++ skips atomic reference counts while this is non-zero (glibc 2.32 sets it while the
// process has one thread): never set, the counts are always atomic, which is right, if slower.
extern "C" {
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;
}

// std::condition_variable's waits on steady_clock (glibc 2.30). The condition variable measures
// CLOCK_REALTIME, so a steady deadline becomes the realtime instant as far away, as libstdc++
// itself does where glibc lacks the call: a wall-clock step during the wait moves its end.
extern "C" __attribute__((visibility("hidden"))) int pthread_cond_clockwait(pthread_cond_t* cond, pthread_mutex_t* mutex,
                                                                          clockid_t clock, const timespec* deadline) {
  if (clock == CLOCK_REALTIME) return pthread_cond_timedwait(cond, mutex, deadline);
  if (clock != CLOCK_MONOTONIC) return EINVAL;
  timespec now_clock{}, now_real{};
  clock_gettime(CLOCK_MONOTONIC, &now_clock);
  clock_gettime(CLOCK_REALTIME, &now_real);
  // How far off the deadline is (nothing once it has passed), added to the realtime now; a
  // deadline too far for time_t (steady_clock's max) waits until time_t's last second.
  time_t seconds = deadline->tv_sec - now_clock.tv_sec;
  long nanoseconds = deadline->tv_nsec - now_clock.tv_nsec;
  if (nanoseconds < 0) nanoseconds += 1000000000L, --seconds;
  if (seconds < 0) seconds = 0, nanoseconds = 0;
  nanoseconds += now_real.tv_nsec;
  if (nanoseconds >= 1000000000L) nanoseconds -= 1000000000L, ++seconds;
  const time_t latest = std::numeric_limits<time_t>::max();
  const timespec real{seconds > latest - now_real.tv_sec ? latest : now_real.tv_sec + seconds, nanoseconds};
  return pthread_cond_timedwait(cond, mutex, &real);
}

// The abbreviations of glibc 2.32's table (sigabbrev_np(29) is "POLL"); none for real-time signals.
extern "C" __attribute__((visibility("hidden"))) const char* sigabbrev_np(int signal) noexcept {
  static constexpr const char* names[] = {nullptr, "HUP",  "INT",  "QUIT",   "ILL",  "TRAP", "ABRT", "BUS",
                                          "FPE",   "KILL", "USR1", "SEGV",   "USR2", "PIPE", "ALRM", "TERM",
                                          "STKFLT", "CHLD", "CONT", "STOP",  "TSTP", "TTIN", "TTOU", "URG",
                                          "XCPU",  "XFSZ", "VTALRM", "PROF", "WINCH", "POLL", "PWR",  "SYS"};
  return signal >= 0 && signal < static_cast<int>(sizeof names / sizeof names[0]) ? names[signal] : nullptr;
}

namespace {

// Closes every open descriptor in [first, last], found by reading /proc/self/fd with raw system
// calls: Boost.Process calls close_range in the child between fork and exec, where only
// async-signal-safe calls are allowed. False when /proc cannot be read.
bool close_listed(unsigned first, unsigned last) {
  const int dir = static_cast<int>(::syscall(SYS_openat, AT_FDCWD, "/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (dir < 0) return false;
  alignas(8) char buffer[4096];
  for (long n; (n = ::syscall(SYS_getdents64, dir, buffer, sizeof buffer)) > 0;) {
    for (long at = 0; at < n;) {
      const auto* entry = reinterpret_cast<const dirent64*>(buffer + at);
      at += entry->d_reclen;
      unsigned fd = 0;
      bool number = entry->d_name[0] != '\0';
      for (const char* c = entry->d_name; *c && number; ++c) {
        number = *c >= '0' && *c <= '9';
        fd = fd * 10 + static_cast<unsigned>(*c - '0');
      }
      if (number && fd >= first && fd <= last && static_cast<int>(fd) != dir) ::syscall(SYS_close, fd);
    }
  }
  ::syscall(SYS_close, dir);
  return true;
}

}  // namespace

// Boost.Process closes the child's inherited descriptors with it (glibc 2.34, Linux 5.9). Where
// the kernel has no close_range (RHEL 8's 4.18, say), this closes them one by one instead of
// failing with ENOSYS as glibc's would, so no worker inherits another's pipes.
extern "C" __attribute__((visibility("hidden"))) int close_range(unsigned first, unsigned last, int flags) noexcept {
  const long done = ::syscall(SYS_close_range, first, last, flags);
  if (done == 0 || errno != ENOSYS) return static_cast<int>(done);
  if ((flags & ~CLOSE_RANGE_UNSHARE) != 0) return errno = EINVAL, -1;  // CLOEXEC: Boost does not ask for it
  if ((flags & CLOSE_RANGE_UNSHARE) && ::syscall(SYS_unshare, CLONE_FILES) != 0) return -1;
  return close_listed(first, last) ? 0 : (errno = ENOSYS, -1);
}
