// Two glibc functions newer than glibc 2.34, defined here for binaries that carry libstdc++ and
// libgcc inside them (ISOBENCH_STATIC_RUNTIME: the wheel, the device build). Debian 12's
// libstdc++.a and libgcc_eh.a were built against glibc 2.36 and call them, which would make the
// binaries need glibc 2.36; with these definitions linked first they need 2.34 at most, so the
// wheel installs on Ubuntu 22.04 and RHEL 9 (docs/install.md). Both do what glibc's do, through
// calls that glibc 2.34 has; hidden, so no other library in the process sees them.

#include <dlfcn.h>
#include <link.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

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
