#pragma once
// Inputs from the seed, generated on the device (a counter-based hash, so 128M elements take
// microseconds instead of a host loop and a copy) and never zero: values lie in +-[lo, hi].

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

namespace isobench::kernels::cuda {

enum class Element { f32, bf16, f16, fp8e4m3 };

std::size_t element_bytes(Element e);

// Fills `count` elements at `dst` with magnitudes uniform in [lo, hi] and random signs. `stream`
// ordered; no synchronisation.
void fill_random(void* dst, Element e, std::size_t count, std::uint64_t seed, float lo, float hi,
                 cudaStream_t stream);

// Copies `count` elements back and widens them to float (synchronises the stream), for checks.
std::vector<float> download_as_float(const void* src, Element e, std::size_t count,
                                     cudaStream_t stream);

// Compares `got` with `want` element by element: |got - want| <= atol + rtol * |want| (`scale`
// per element widens atol where the reference says the result is ill-conditioned; empty: 1).
// Returns "" or a message naming the first failure and the count of failures.
std::string compare_close(const std::vector<float>& got, const std::vector<double>& want,
                          double rtol, double atol, const std::vector<double>& scale = {});

}  // namespace isobench::kernels::cuda
