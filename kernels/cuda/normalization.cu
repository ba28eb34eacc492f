// rmsnorm and layernorm forward: one block per row. The row is read from global memory once,
// with 16-byte loads, into shared memory, so the statistics pass and the output pass never go
// back to DRAM: the kernel moves 2 bytes in and 2 bytes out per element, like a copy.
// Statistics accumulate in fp32 in one pass and one block reduction (LayerNorm on shifted data,
// see below). Each thread keeps kInFlight 16-byte loads in flight and blocks are small, so many
// rows overlap per SM: on the H200 both kernels run near device copy bandwidth, where a first
// version (512 threads with one load in flight and a second reduction for LayerNorm's variance)
// fell well short (docs/evidence.md#behind-the-code).

#include <cuda_bf16.h>

#include <cmath>
#include <string>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_buffer.hpp"
#include "random_fill.hpp"

namespace isobench::kernels::cuda {

namespace {

constexpr float kRmsEps = 1e-6f;
constexpr float kLayerEps = 1e-5f;
constexpr int kVec = 8;  // bf16 per 16-byte vector
constexpr int kInFlight = 4;  // 16-byte loads per thread in flight

// Block-wide sums of two values; every thread gets the totals.
__device__ float2 block_sum2(float2 value, float2* scratch) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value.x += __shfl_xor_sync(0xffffffffu, value.x, offset);
    value.y += __shfl_xor_sync(0xffffffffu, value.y, offset);
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) scratch[warp] = value;
  __syncthreads();
  value = lane < warps ? scratch[lane] : make_float2(0.0f, 0.0f);
  for (int offset = 16; offset > 0; offset /= 2) {
    value.x += __shfl_xor_sync(0xffffffffu, value.x, offset);
    value.y += __shfl_xor_sync(0xffffffffu, value.y, offset);
  }
  return value;
}

__device__ inline void unpack(const uint4& raw, float* f) {
  const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    const float2 p = __bfloat1622float2(pairs[j]);
    f[2 * j] = p.x;
    f[2 * j + 1] = p.y;
  }
}

__device__ inline uint4 pack(const float* f) {
  uint4 raw;
  __nv_bfloat162* pairs = reinterpret_cast<__nv_bfloat162*>(&raw);
#pragma unroll
  for (int j = 0; j < 4; ++j) pairs[j] = __floats2bfloat162_rn(f[2 * j], f[2 * j + 1]);
  return raw;
}

// hidden % 8 == 0 takes the vector path; other widths fall back to 2-byte accesses.
template <bool kLayerNorm>
__global__ void norm_kernel(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ weight,
                            const __nv_bfloat16* __restrict__ bias, __nv_bfloat16* __restrict__ y,
                            int hidden, float eps) {
  extern __shared__ uint4 row_cache[];
  __shared__ float2 scratch[32];
  const std::size_t row_offset = std::size_t(blockIdx.x) * hidden;
  const bool vectorised = hidden % kVec == 0;
  const int vectors = hidden / kVec;
  __nv_bfloat16* cache = reinterpret_cast<__nv_bfloat16*>(row_cache);

  // LayerNorm accumulates deviations from a shift, sum(x - s) and sum((x - s)^2), so that
  // var = E[(x-s)^2] - E[x-s]^2 does not cancel catastrophically when the mean is far from zero.
  // Each thread first shifts by its own first element (a shared shift read before the loop cost
  // bandwidth), then re-centres its sums exactly on the row's first element K:
  //   sum(x-K) = S + n d,  sum((x-K)^2) = SS + 2 d S + n d^2,  d = s - K.
  // (Chan's pairwise merge of per-thread moments was stable too, but its divisions in every
  // shuffle step made LayerNorm compute-bound, far below copy bandwidth.)
  float shift = 0, sum = 0, sum_sq = 0, count = 0;
  if (vectorised) {
    // kInFlight loads issued before any is used: one row's latency is paid once, not per vector.
    const uint4* in = reinterpret_cast<const uint4*>(x + row_offset);
    for (int base = 0; base < vectors; base += blockDim.x * kInFlight) {
      uint4 raw[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int v = base + u * blockDim.x + threadIdx.x;
        if (v < vectors) raw[u] = in[v];
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int v = base + u * blockDim.x + threadIdx.x;
        if (v >= vectors) break;
        row_cache[v] = raw[u];
        float f[kVec];
        unpack(raw[u], f);
        if (kLayerNorm && count == 0.0f) shift = f[0];
#pragma unroll
        for (int j = 0; j < kVec; ++j) {
          const float d = f[j] - shift;
          sum += d;
          sum_sq += d * d;
        }
        count += kVec;
      }
    }
  } else {
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
      const __nv_bfloat16 raw = x[row_offset + i];
      cache[i] = raw;
      const float f = __bfloat162float(raw);
      if (kLayerNorm && count == 0.0f) shift = f;
      const float d = f - shift;
      sum += d;
      sum_sq += d * d;
      count += 1;
    }
  }
  float row_shift = 0;
  if (kLayerNorm) {
    __syncthreads();  // the row's first element is in shared memory now
    row_shift = __bfloat162float(cache[0]);
    const float d = shift - row_shift;
    sum_sq += 2.0f * d * sum + count * d * d;
    sum += count * d;
  }
  const float2 totals = block_sum2(make_float2(sum, sum_sq), scratch);
  const float shifted_mean = totals.x / hidden;
  const float mean = kLayerNorm ? row_shift + shifted_mean : 0.0f;
  const float variance = kLayerNorm ? fmaxf(totals.y / hidden - shifted_mean * shifted_mean, 0.0f)
                                    : totals.y / hidden;  // RMSNorm: the mean of squares
  const float inv_std = rsqrtf(variance + eps);

  if (vectorised) {
    const uint4* w = reinterpret_cast<const uint4*>(weight);
    const uint4* b = reinterpret_cast<const uint4*>(bias);
    uint4* out = reinterpret_cast<uint4*>(y + row_offset);
    for (int base = 0; base < vectors; base += blockDim.x * kInFlight) {
      uint4 w_raw[kInFlight], b_raw[kInFlight];
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int v = base + u * blockDim.x + threadIdx.x;
        if (v < vectors) {
          w_raw[u] = w[v];
          if (kLayerNorm) b_raw[u] = b[v];
        }
      }
#pragma unroll
      for (int u = 0; u < kInFlight; ++u) {
        const int v = base + u * blockDim.x + threadIdx.x;
        if (v >= vectors) break;
        float f[kVec], wf[kVec], bf[kVec];
        unpack(row_cache[v], f);
        unpack(w_raw[u], wf);
        if (kLayerNorm) unpack(b_raw[u], bf);
#pragma unroll
        for (int j = 0; j < kVec; ++j) f[j] = (f[j] - mean) * inv_std * wf[j] + (kLayerNorm ? bf[j] : 0.0f);
        out[v] = pack(f);
      }
    }
  } else {
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) {
      float f = (__bfloat162float(cache[i]) - mean) * inv_std * __bfloat162float(weight[i]);
      if (kLayerNorm) f += __bfloat162float(bias[i]);
      y[row_offset + i] = __float2bfloat16_rn(f);
    }
  }
}

class NormalizationBenchmark final : public Benchmark {
 public:
  explicit NormalizationBenchmark(bool layer_norm) : layer_norm_(layer_norm) {}

  void setup(const Params& params, const SetupContext& ctx) override {
    rows_ = params.at("rows").get<std::size_t>();
    hidden_ = params.at("hidden").get<int>();
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    const std::size_t elements = rows_ * std::size_t(hidden_);
    for (int r = 0; r < std::max(1, ctx.rotate_buffers); ++r) {
      inputs_.emplace_back(elements * 2);
      fill_random(inputs_.back().get(), Element::bf16, elements, ctx.seed + r, 0.1f, 3.0f, stream_);
    }
    weight_ = DeviceBuffer(std::size_t(hidden_) * 2);
    fill_random(weight_.get(), Element::bf16, hidden_, ctx.seed ^ 0x5745494748ull, 0.5f, 1.5f, stream_);
    if (layer_norm_) {
      bias_ = DeviceBuffer(std::size_t(hidden_) * 2);
      fill_random(bias_.get(), Element::bf16, hidden_, ctx.seed ^ 0x42494153ull, 0.01f, 0.5f, stream_);
    }
    output_ = DeviceBuffer(elements * 2);

    // kInFlight vectors per thread (8192 -> 256 threads): small blocks keep more rows in flight
    // per SM, which hides the load / reduce / store phases of one row behind other rows. With
    // 512 threads and one load in flight RMSNorm fell short of copy bandwidth on the H200.
    const int vectors = (hidden_ + kVec - 1) / kVec;
    const int threads_wanted = (vectors + kInFlight - 1) / kInFlight;
    threads_ = std::min(1024, std::max(32, (threads_wanted + 31) / 32 * 32));
    shared_bytes_ = std::size_t((hidden_ + kVec - 1) / kVec) * 16;
    auto kernel = layer_norm_ ? norm_kernel<true> : norm_kernel<false>;
    // The limit belongs to the kernel function, shared by every instance in this process: only
    // ever raise it, or an instance set up later with a smaller row would break the larger ones.
    cudaFuncAttributes attributes{};
    ISOBENCH_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    if (attributes.maxDynamicSharedSizeBytes < int(shared_bytes_))
      ISOBENCH_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                               int(shared_bytes_)));
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void launch() override {
    last_ = next_;
    next_ = (next_ + 1) % inputs_.size();
    auto kernel = layer_norm_ ? norm_kernel<true> : norm_kernel<false>;
    kernel<<<unsigned(rows_), threads_, shared_bytes_, stream_>>>(
        inputs_[last_].as<__nv_bfloat16>(), weight_.as<__nv_bfloat16>(),
        bias_.as<__nv_bfloat16>(), output_.as<__nv_bfloat16>(), hidden_,
        layer_norm_ ? kLayerEps : kRmsEps);
    ISOBENCH_CUDA_CHECK(cudaGetLastError());
  }

  std::string check() override {
    const std::size_t elements = rows_ * std::size_t(hidden_);
    const auto x = download_as_float(inputs_[last_].get(), Element::bf16, elements, stream_);
    const auto w = download_as_float(weight_.get(), Element::bf16, hidden_, stream_);
    const auto b = layer_norm_ ? download_as_float(bias_.get(), Element::bf16, hidden_, stream_)
                               : std::vector<float>(hidden_, 0.0f);
    const auto y = download_as_float(output_.get(), Element::bf16, elements, stream_);
    std::vector<double> want(elements);
    for (std::size_t r = 0; r < rows_; ++r) {
      const float* xr = x.data() + r * hidden_;
      double mean = 0, var = 0;
      if (layer_norm_) {
        for (int i = 0; i < hidden_; ++i) mean += xr[i];
        mean /= hidden_;
      }
      for (int i = 0; i < hidden_; ++i) var += (xr[i] - mean) * (xr[i] - mean);
      const double inv = 1.0 / std::sqrt(var / hidden_ + (layer_norm_ ? kLayerEps : kRmsEps));
      for (int i = 0; i < hidden_; ++i) want[r * hidden_ + i] = (xr[i] - mean) * inv * w[i] + b[i];
    }
    // bf16 output: rounding is 2^-9 relative; fp32 statistics add far less. The absolute term
    // covers outputs that cancel to near zero (LayerNorm's bias).
    return compare_close(y, want, 0x1p-7, 0x1p-7);
  }

  nlohmann::json describe() const override {
    return {{"block_threads", threads_}, {"shared_bytes", shared_bytes_},
            {"vectorised", hidden_ % kVec == 0}};
  }

 private:
  bool layer_norm_;
  std::size_t rows_ = 0;
  int hidden_ = 0;
  cudaStream_t stream_ = nullptr;
  std::vector<DeviceBuffer> inputs_;
  DeviceBuffer weight_, bias_, output_;
  int threads_ = 32;
  std::size_t shared_bytes_ = 0;
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace

std::unique_ptr<Benchmark> make_rmsnorm() { return std::make_unique<NormalizationBenchmark>(false); }
std::unique_ptr<Benchmark> make_layernorm() { return std::make_unique<NormalizationBenchmark>(true); }

}  // namespace isobench::kernels::cuda
