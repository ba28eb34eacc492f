#pragma once
// The C APIs' error convention (plugin.h, worker.h, bench/gpu/kernel_capi.cpp): a one-line
// reason into the caller's buffer, truncated to fit and always NUL-terminated.

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>

namespace isobench::kernels {

inline void write_error_buffer(char* error, std::size_t error_len, const std::string& text) {
  if (!error || error_len == 0) return;
  const std::size_t n = std::min(error_len - 1, text.size());
  std::memcpy(error, text.data(), n);
  error[n] = '\0';
}

}  // namespace isobench::kernels
