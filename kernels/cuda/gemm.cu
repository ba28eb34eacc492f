// gemm: one cuBLASLt matmul per launch. The algorithm is fixed at setup (heuristic list entry
// `algo`; else the run's pinned algorithm, replayed exactly; else the heuristic's first), so
// every launch runs the same kernel, and describe() records which one so that another worker,
// the other side of an A/B run or a later run can replay it.

#include <cmath>
#include <string>
#include <vector>

#include "cuda_kernels.hpp"
#include "device_buffer.hpp"
#include "gemm_dtypes.hpp"
#include "lt_matmul.hpp"
#include "random_fill.hpp"

namespace isobench::kernels::cuda {

namespace {

struct GemmTypes {
  Element input, output;
  cudaDataType_t input_type, output_type;
  cublasComputeType_t compute;
};

GemmTypes gemm_types(const std::string& dtype) {
  if (dtype == "bf16") return {Element::bf16, Element::bf16, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  if (dtype == "fp16") return {Element::f16, Element::f16, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F};
  if (dtype == "fp8e4m3")
    return {Element::fp8e4m3, Element::bf16, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLAS_COMPUTE_32F};
  if (dtype == "tf32")
    return {Element::f32, Element::f32, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32};
  throw std::runtime_error("gemm: unknown dtype '" + dtype + "'");
}

class GemmBenchmark final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    m_ = params.at("m").get<int>();
    n_ = params.at("n").get<int>();
    k_ = params.at("k").get<int>();
    dtype_ = params.at("dtype").get<std::string>();
    const std::string trans = params.at("trans").get<std::string>();
    const int algo_index = params.at("algo").get<int>();
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    types_ = gemm_types(dtype_);
    if (dtype_ == "fp8e4m3" && trans != "tn")
      throw std::runtime_error("gemm: fp8e4m3 needs trans=tn (cuBLASLt's only fp8 layout on Hopper), got " + trans);
    trans_a_ = trans[0] == 't';
    trans_b_ = trans[1] == 't';

    const std::size_t a_elements = std::size_t(m_) * k_, b_elements = std::size_t(k_) * n_;
    for (int r = 0; r < std::max(1, ctx.rotate_buffers); ++r) {
      a_.emplace_back(a_elements * element_bytes(types_.input));
      b_.emplace_back(b_elements * element_bytes(types_.input));
      fill_random(a_.back().get(), types_.input, a_elements, ctx.seed + 2 * r, 0.05f, 1.0f, stream_);
      fill_random(b_.back().get(), types_.input, b_elements, ctx.seed + 2 * r + 1, 0.05f, 1.0f, stream_);
    }
    d_ = DeviceBuffer(std::size_t(m_) * n_ * element_bytes(types_.output));
    workspace_ = DeviceBuffer(kGemmWorkspaceBytes);

    try {
      matmul_ = std::make_unique<LtMatmul>(
          LtProblem{types_.input_type, types_.output_type, types_.compute, trans_a_, trans_b_, m_, n_, k_},
          algo_index, ctx.replay);
    } catch (const std::exception& e) {
      throw std::runtime_error("gemm " + dtype_ + ": " + e.what());
    }
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void launch() override {
    last_ = next_;
    next_ = (next_ + 1) % a_.size();
    matmul_->run(a_[last_].get(), b_[last_].get(), d_.get(), workspace_.get(), stream_);
  }

  std::string check() override {
    const auto a = download_as_float(a_[last_].get(), types_.input, std::size_t(m_) * k_, stream_);
    const auto b = download_as_float(b_[last_].get(), types_.input, std::size_t(k_) * n_, stream_);
    const auto d = download_as_float(d_.get(), types_.output, std::size_t(m_) * n_, stream_);
    std::vector<double> want(d.size()), magnitude(d.size());
    for (int j = 0; j < n_; ++j)
      for (int i = 0; i < m_; ++i) {
        double sum = 0, abs_sum = 0;
        for (int l = 0; l < k_; ++l) {
          const double av = trans_a_ ? a[l + std::size_t(i) * k_] : a[i + std::size_t(l) * m_];
          const double bv = trans_b_ ? b[j + std::size_t(l) * n_] : b[l + std::size_t(j) * k_];
          sum += av * bv;
          abs_sum += std::fabs(av * bv);
        }
        want[i + std::size_t(j) * m_] = sum;
        magnitude[i + std::size_t(j) * m_] = abs_sum;
      }
    // Relative term: rounding of the output type. Absolute term, scaled by sum |a*b|: fp32
    // accumulation in any order (and split-K), and for tf32 the inputs' rounding to 10 bits.
    const double output_rtol = types_.output == Element::f32 ? 1e-6
                               : types_.output == Element::f16 ? 0x1p-10 : 0x1p-7;
    const double accumulate_atol = dtype_ == "tf32" ? 0x1p-9 : 1e-4;
    return compare_close(d, want, output_rtol, accumulate_atol, magnitude);
  }

  nlohmann::json describe() const override { return matmul_ ? matmul_->describe() : nlohmann::json::object(); }

 private:
  int m_ = 0, n_ = 0, k_ = 0;
  std::string dtype_;
  bool trans_a_ = true, trans_b_ = false;
  GemmTypes types_{};
  cudaStream_t stream_ = nullptr;
  std::vector<DeviceBuffer> a_, b_;
  DeviceBuffer d_, workspace_;
  std::unique_ptr<LtMatmul> matmul_;
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace

std::unique_ptr<Benchmark> make_gemm() { return std::make_unique<GemmBenchmark>(); }

}  // namespace isobench::kernels::cuda
