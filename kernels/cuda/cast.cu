// cast: element-wise conversion, memory-bound. Vectors of 4 elements, so the wider side moves 16
// bytes per access (LDG/STG.128) and the narrower side 8 or 4. Each thread keeps kUnroll vectors in
// flight, spaced a block apart, so every load and store instruction of a warp covers one contiguous
// range (fully coalesced); wider per-thread structs strided by their own size lost much of the
// bandwidth bf16->fp32 on the H200 (docs/evidence.md#behind-the-code). The grid is sized to the
// resident-block limit, not to n, so large n does not pay for millions of block launches.

#include <algorithm>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_buffer.hpp"
#include "random_fill.hpp"

namespace isobench::kernels::cuda {

namespace {

template <class T, int N>
struct alignas(sizeof(T) * N) Vec {
  T v[N];
};

// Each conversion: its element types, elements per thread-step, and a pair converter (the
// hardware converts two elements per instruction for bf16, fp16 and fp8).
struct Fp32ToBf16 {
  using In = float;
  using Out = __nv_bfloat16;
  static constexpr int kVec = 4;
  __device__ static void pair(const In* x, Out* y, float) {
    *reinterpret_cast<__nv_bfloat162*>(y) = __floats2bfloat162_rn(x[0], x[1]);
  }
  __device__ static Out one(In x, float) { return __float2bfloat16_rn(x); }
};
struct Fp32ToFp16 {
  using In = float;
  using Out = __half;
  static constexpr int kVec = 4;
  __device__ static void pair(const In* x, Out* y, float) {
    *reinterpret_cast<__half2*>(y) = __floats2half2_rn(x[0], x[1]);
  }
  __device__ static Out one(In x, float) { return __float2half_rn(x); }
};
struct Fp32ToFp8e4m3 {
  using In = float;
  using Out = __nv_fp8_e4m3;
  static constexpr int kVec = 4;
  __device__ static void pair(const In* x, Out* y, float scale) {
    *reinterpret_cast<__nv_fp8x2_storage_t*>(y) =
        __nv_cvt_float2_to_fp8x2(make_float2(x[0] * scale, x[1] * scale), __NV_SATFINITE, __NV_E4M3);
  }
  __device__ static Out one(In x, float scale) {
    Out y;
    y.__x = __nv_cvt_float_to_fp8(x * scale, __NV_SATFINITE, __NV_E4M3);
    return y;
  }
};
struct Bf16ToFp32 {
  using In = __nv_bfloat16;
  using Out = float;
  static constexpr int kVec = 4;
  __device__ static void pair(const In* x, Out* y, float) {
    const float2 f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(x));
    y[0] = f.x;
    y[1] = f.y;
  }
  __device__ static Out one(In x, float) { return __bfloat162float(x); }
};

constexpr int kThreads = 256;
constexpr int kUnroll = 4;

template <class Op>
__global__ void __launch_bounds__(kThreads) cast_kernel(const typename Op::In* __restrict__ in,
                                                        typename Op::Out* __restrict__ out,
                                                        std::size_t n, float scale) {
  using InVec = Vec<typename Op::In, Op::kVec>;
  using OutVec = Vec<typename Op::Out, Op::kVec>;
  const std::size_t vectors = n / Op::kVec;
  const std::size_t tile = std::size_t(kThreads) * kUnroll;
  const InVec* in_vec = reinterpret_cast<const InVec*>(in);
  OutVec* out_vec = reinterpret_cast<OutVec*>(out);
  for (std::size_t base = blockIdx.x * tile; base < vectors; base += std::size_t(gridDim.x) * tile) {
    InVec a[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t v = base + u * kThreads + threadIdx.x;
      if (v < vectors) a[u] = in_vec[v];
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::size_t v = base + u * kThreads + threadIdx.x;
      if (v >= vectors) break;
      OutVec b;
#pragma unroll
      for (int j = 0; j < Op::kVec; j += 2) Op::pair(a[u].v + j, b.v + j, scale);
      out_vec[v] = b;
    }
  }
  const std::size_t stride = std::size_t(gridDim.x) * kThreads;
  for (std::size_t i = vectors * Op::kVec + std::size_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    out[i] = Op::one(in[i], scale);
}

enum class Conversion { fp32_bf16, fp32_fp16, fp32_fp8e4m3, bf16_fp32 };

struct ConversionTypes {
  Element from;
  Element to;
};

ConversionTypes types_of(Conversion c) {
  switch (c) {
    case Conversion::fp32_bf16: return {Element::f32, Element::bf16};
    case Conversion::fp32_fp16: return {Element::f32, Element::f16};
    case Conversion::fp32_fp8e4m3: return {Element::f32, Element::fp8e4m3};
    case Conversion::bf16_fp32: return {Element::bf16, Element::f32};
  }
  return {Element::f32, Element::f32};
}

Conversion parse_conversion(const std::string& name) {
  if (name == "fp32_bf16") return Conversion::fp32_bf16;
  if (name == "fp32_fp16") return Conversion::fp32_fp16;
  if (name == "fp32_fp8e4m3") return Conversion::fp32_fp8e4m3;
  if (name == "bf16_fp32") return Conversion::bf16_fp32;
  throw std::runtime_error("cast: unknown conversion '" + name + "'");
}

// Resident blocks of kThreads threads the whole device holds for this kernel.
template <class Op>
unsigned resident_blocks() {
  int device = 0, sms = 0, per_sm = 0;
  ISOBENCH_CUDA_CHECK(cudaGetDevice(&device));
  ISOBENCH_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  ISOBENCH_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cast_kernel<Op>, kThreads, 0));
  return unsigned(std::max(1, sms * std::max(1, per_sm)));
}

class CastBenchmark final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    n_ = params.at("n").get<std::size_t>();
    conversion_ = parse_conversion(params.at("conversion").get<std::string>());
    scale_ = params.at("scale").get<float>();
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    const auto types = types_of(conversion_);
    for (int r = 0; r < std::max(1, ctx.rotate_buffers); ++r) {
      inputs_.emplace_back(n_ * element_bytes(types.from));
      fill_random(inputs_.back().get(), types.from, n_, ctx.seed + r, 0.1f, 4.0f, stream_);
    }
    output_ = DeviceBuffer(n_ * element_bytes(types.to));
    switch (conversion_) {
      case Conversion::fp32_bf16: grid_ = grid_for<Fp32ToBf16>(); break;
      case Conversion::fp32_fp16: grid_ = grid_for<Fp32ToFp16>(); break;
      case Conversion::fp32_fp8e4m3: grid_ = grid_for<Fp32ToFp8e4m3>(); break;
      case Conversion::bf16_fp32: grid_ = grid_for<Bf16ToFp32>(); break;
    }
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void launch() override {
    last_ = next_;
    next_ = (next_ + 1) % inputs_.size();
    const void* in = inputs_[last_].get();
    switch (conversion_) {
      case Conversion::fp32_bf16: return run<Fp32ToBf16>(in);
      case Conversion::fp32_fp16: return run<Fp32ToFp16>(in);
      case Conversion::fp32_fp8e4m3: return run<Fp32ToFp8e4m3>(in);
      case Conversion::bf16_fp32: return run<Bf16ToFp32>(in);
    }
  }

  std::string check() override {
    const auto types = types_of(conversion_);
    const auto in = download_as_float(inputs_[last_].get(), types.from, n_, stream_);
    const auto out = download_as_float(output_.get(), types.to, n_, stream_);
    std::vector<double> want(n_);
    for (std::size_t i = 0; i < n_; ++i) {
      want[i] = in[i];
      if (conversion_ == Conversion::fp32_fp8e4m3)
        want[i] = std::clamp(double(in[i]) * scale_, -448.0, 448.0);  // SATFINITE
    }
    // Round-to-nearest error bounds: half an ulp of the destination type, relative, doubled;
    // fp8 e4m3 adds an absolute term for its subnormals (spacing 2^-9).
    switch (conversion_) {
      case Conversion::fp32_bf16: return compare_close(out, want, 0x1p-8, 0);
      case Conversion::fp32_fp16: return compare_close(out, want, 0x1p-10, 0);
      case Conversion::fp32_fp8e4m3: return compare_close(out, want, 0x1p-4, 0x1p-9);
      case Conversion::bf16_fp32: return compare_close(out, want, 0, 0);
    }
    return {};
  }

  nlohmann::json describe() const override {
    return {{"grid_blocks", grid_}, {"block_threads", kThreads}, {"vectors_in_flight_per_thread", kUnroll}};
  }

 private:
  template <class Op>
  unsigned grid_for() const {
    const std::size_t tile = std::size_t(kThreads) * kUnroll * Op::kVec;  // elements per block step
    return unsigned(std::min<std::size_t>(std::max<std::size_t>(1, (n_ + tile - 1) / tile), resident_blocks<Op>()));
  }

  template <class Op>
  void run(const void* in) {
    cast_kernel<Op><<<grid_, kThreads, 0, stream_>>>(static_cast<const typename Op::In*>(in),
                                                output_.as<typename Op::Out>(), n_, scale_);
    ISOBENCH_CUDA_CHECK(cudaGetLastError());
  }

  std::size_t n_ = 0;
  Conversion conversion_ = Conversion::fp32_bf16;
  float scale_ = 1;
  cudaStream_t stream_ = nullptr;
  std::vector<DeviceBuffer> inputs_;
  DeviceBuffer output_;
  unsigned grid_ = 1;
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace

std::unique_ptr<Benchmark> make_cast() { return std::make_unique<CastBenchmark>(); }

}  // namespace isobench::kernels::cuda
