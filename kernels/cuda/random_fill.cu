#include "random_fill.hpp"

#include <cmath>
#include <sstream>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cuda_check.hpp"

namespace isobench::kernels::cuda {

namespace {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
__device__ inline T from_float(float v);
template <>
__device__ inline float from_float<float>(float v) { return v; }
template <>
__device__ inline __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16(v); }
template <>
__device__ inline __half from_float<__half>(float v) { return __float2half(v); }
template <>
__device__ inline __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) { return __nv_fp8_e4m3(v); }

template <class T>
__global__ void fill_kernel(T* dst, std::size_t count, std::uint64_t seed, float lo, float hi) {
  const std::size_t stride = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const std::uint64_t bits = splitmix64(seed ^ splitmix64(i));
    const float unit = float(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
    const float magnitude = lo + (hi - lo) * unit;
    dst[i] = from_float<T>((bits & 1) ? -magnitude : magnitude);
  }
}

template <class T>
void launch_fill(void* dst, std::size_t count, std::uint64_t seed, float lo, float hi,
                 cudaStream_t stream) {
  const unsigned blocks = unsigned(std::min<std::size_t>((count + 255) / 256, 4096));
  fill_kernel<T><<<blocks, 256, 0, stream>>>(static_cast<T*>(dst), count, splitmix64(seed), lo, hi);
  ISOBENCH_CUDA_CHECK(cudaGetLastError());
}

template <class T>
std::vector<float> widen(const std::vector<unsigned char>& raw, std::size_t count) {
  std::vector<float> out(count);
  const T* typed = reinterpret_cast<const T*>(raw.data());
  for (std::size_t i = 0; i < count; ++i) out[i] = float(typed[i]);
  return out;
}

}  // namespace

std::size_t element_bytes(Element e) {
  switch (e) {
    case Element::f32: return 4;
    case Element::bf16: return 2;
    case Element::f16: return 2;
    case Element::fp8e4m3: return 1;
  }
  return 0;
}

void fill_random(void* dst, Element e, std::size_t count, std::uint64_t seed, float lo, float hi,
                 cudaStream_t stream) {
  if (count == 0) return;
  switch (e) {
    case Element::f32: return launch_fill<float>(dst, count, seed, lo, hi, stream);
    case Element::bf16: return launch_fill<__nv_bfloat16>(dst, count, seed, lo, hi, stream);
    case Element::f16: return launch_fill<__half>(dst, count, seed, lo, hi, stream);
    case Element::fp8e4m3: return launch_fill<__nv_fp8_e4m3>(dst, count, seed, lo, hi, stream);
  }
}

std::vector<float> download_as_float(const void* src, Element e, std::size_t count,
                                     cudaStream_t stream) {
  std::vector<unsigned char> raw(count * element_bytes(e));
  ISOBENCH_CUDA_CHECK(cudaMemcpyAsync(raw.data(), src, raw.size(), cudaMemcpyDeviceToHost, stream));
  ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream));
  switch (e) {
    case Element::f32: return widen<float>(raw, count);
    case Element::bf16: return widen<__nv_bfloat16>(raw, count);
    case Element::f16: return widen<__half>(raw, count);
    case Element::fp8e4m3: return widen<__nv_fp8_e4m3>(raw, count);
  }
  return {};
}

std::string compare_close(const std::vector<float>& got, const std::vector<double>& want,
                          double rtol, double atol, const std::vector<double>& scale) {
  if (got.size() != want.size())
    return "size mismatch: got " + std::to_string(got.size()) + ", want " +
           std::to_string(want.size());
  std::size_t failures = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double bound = atol * (scale.empty() ? 1.0 : scale[i]) + rtol * std::fabs(want[i]);
    const double error = std::fabs(double(got[i]) - want[i]);
    if (!(error <= bound)) {  // also catches NaN
      if (failures == 0)
        first << "element " << i << ": got " << got[i] << ", want " << want[i] << " (|error| "
              << error << " > " << bound << ")";
      ++failures;
    }
  }
  if (failures == 0) return {};
  return first.str() + "; " + std::to_string(failures) + " of " + std::to_string(got.size()) +
         " elements out of tolerance";
}

}  // namespace isobench::kernels::cuda
