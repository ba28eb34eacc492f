// grouped_gemm: one expert per group, Y_e[m_per_group, n] = X_e[m_per_group, k] W_e[n, k]^T in
// row-major terms. impl grouped_batched: all experts in one cublasGemmGroupedBatchedEx call
// (cuBLAS >= 12.5 has it, so CUDA 13 always does; with an older cuBLAS its set-up says so and the
// instance fails: lt_loop runs everywhere). impl lt_loop: one cuBLASLt matmul per expert, queued
// on the stream; kept because on the H200 (cuBLAS 13.1) the grouped call ran the MoE shapes at well
// under half of torch.bmm's throughput (docs/evidence.md#behind-the-code). In cuBLAS's column-major
// view each problem is C(n x m) = W-stored(k x n) op T times X-stored(k x m) op N: the TN layout,
// ldA = ldB = k, ldC = n.

#include <cublas_v2.h>

#include <cmath>
#include <string>
#include <vector>

#include "cublas_library.hpp"
#include "cuda_kernels.hpp"
#include "device_buffer.hpp"
#include "gemm_dtypes.hpp"
#include "lt_matmul.hpp"
#include "random_fill.hpp"

namespace isobench::kernels::cuda {

namespace {

// Each expert's matrix starts on a 256-byte boundary, the alignment cuBLAS's fast paths want.
std::size_t aligned_elements(std::size_t elements) { return (elements * 2 + 255) / 256 * 128; }

class GroupedGemmBenchmark final : public Benchmark {
 public:
  ~GroupedGemmBenchmark() override {
    if (handle_) cublas().Destroy(handle_);
  }

  void setup(const Params& params, const SetupContext& ctx) override {
    groups_ = params.at("groups").get<int>();
    m_ = params.at("m_per_group").get<int>();
    n_ = params.at("n").get<int>();
    k_ = params.at("k").get<int>();
    lt_loop_ = params.at("impl").get<std::string>() == "lt_loop";
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    x_stride_ = aligned_elements(std::size_t(m_) * k_);
    w_stride_ = aligned_elements(std::size_t(n_) * k_);
    y_stride_ = aligned_elements(std::size_t(m_) * n_);

    y_ = DeviceBuffer(y_stride_ * groups_ * 2);
    for (int r = 0; r < std::max(1, ctx.rotate_buffers); ++r) {
      x_.emplace_back(x_stride_ * groups_ * 2);
      w_.emplace_back(w_stride_ * groups_ * 2);
      fill_random(x_.back().get(), Element::bf16, x_stride_ * groups_, ctx.seed + 2 * r, 0.05f, 1.0f, stream_);
      fill_random(w_.back().get(), Element::bf16, w_stride_ * groups_, ctx.seed + 2 * r + 1, 0.05f, 1.0f, stream_);
      if (lt_loop_) continue;
      // Device arrays of per-group pointers, one set per rotation: A = weights, B = tokens.
      std::vector<const void*> pointers(3 * std::size_t(groups_));
      for (int g = 0; g < groups_; ++g) {
        pointers[g] = w_.back().as<char>() + w_stride_ * 2 * g;
        pointers[groups_ + g] = x_.back().as<char>() + x_stride_ * 2 * g;
        pointers[2 * groups_ + g] = y_.as<char>() + y_stride_ * 2 * g;
      }
      pointer_arrays_.emplace_back(pointers.size() * sizeof(void*));
      ISOBENCH_CUDA_CHECK(cudaMemcpyAsync(pointer_arrays_.back().get(), pointers.data(),
                                          pointers.size() * sizeof(void*), cudaMemcpyHostToDevice, stream_));
      ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));  // `pointers` dies at scope end
    }
    workspace_ = DeviceBuffer(kGemmWorkspaceBytes);

    if (lt_loop_) {
      try {
        matmul_ = std::make_unique<LtMatmul>(LtProblem{CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, true, false, n_, m_, k_},
                                             -1, ctx.replay.is_object() ? ctx.replay.value("algo", nlohmann::json()) : nlohmann::json());
      } catch (const std::exception& e) {
        throw std::runtime_error(std::string("grouped_gemm lt_loop: ") + e.what());
      }
      ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
      return;
    }
    const auto& blas = cublas();
    if (!blas.GemmGroupedBatchedEx)
      throw std::runtime_error(
          "grouped_gemm impl grouped_batched: the libcublas.so." + std::to_string(CUBLAS_VER_MAJOR) +
          " loaded has no cublasGemmGroupedBatchedEx (cuBLAS 12.5 and newer have it): use impl lt_loop, or install "
          "a newer cuBLAS");
    ISOBENCH_CUDA_CHECK(blas.Create(&handle_));
    ISOBENCH_CUDA_CHECK(blas.SetStream(handle_, stream_));
    // A workspace of our own: cuBLAS then allocates nothing during launches or graph capture.
    ISOBENCH_CUDA_CHECK(blas.SetWorkspace(handle_, workspace_.get(), kGemmWorkspaceBytes));

    trans_a_.assign(groups_, CUBLAS_OP_T);
    trans_b_.assign(groups_, CUBLAS_OP_N);
    rows_.assign(groups_, n_);
    cols_.assign(groups_, m_);
    depth_.assign(groups_, k_);
    ld_ab_.assign(groups_, k_);
    ld_c_.assign(groups_, n_);
    alpha_.assign(groups_, 1.0f);
    beta_.assign(groups_, 0.0f);
    group_size_.assign(groups_, 1);
  }

  void launch() override {
    last_ = next_;
    next_ = (next_ + 1) % x_.size();
    if (lt_loop_) {
      for (int g = 0; g < groups_; ++g)
        matmul_->run(w_[last_].as<char>() + w_stride_ * 2 * g, x_[last_].as<char>() + x_stride_ * 2 * g,
                     y_.as<char>() + y_stride_ * 2 * g, workspace_.get(), stream_);
      return;
    }
    const void* const* pointers = pointer_arrays_[last_].as<const void*>();
    ISOBENCH_CUDA_CHECK(cublas().GemmGroupedBatchedEx(
        handle_, trans_a_.data(), trans_b_.data(), rows_.data(), cols_.data(), depth_.data(),
        alpha_.data(), pointers, CUDA_R_16BF, ld_ab_.data(), pointers + groups_, CUDA_R_16BF,
        ld_ab_.data(), beta_.data(), const_cast<void* const*>(pointers + 2 * groups_), CUDA_R_16BF,
        ld_c_.data(), groups_, group_size_.data(), CUBLAS_COMPUTE_32F));
  }

  std::string check() override {
    const auto x = download_as_float(x_[last_].get(), Element::bf16, x_stride_ * groups_, stream_);
    const auto w = download_as_float(w_[last_].get(), Element::bf16, w_stride_ * groups_, stream_);
    const auto y_all = download_as_float(y_.get(), Element::bf16, y_stride_ * groups_, stream_);
    std::vector<float> got;
    std::vector<double> want, magnitude;
    for (int g = 0; g < groups_; ++g)
      for (int t = 0; t < m_; ++t)
        for (int o = 0; o < n_; ++o) {
          double sum = 0, abs_sum = 0;
          for (int l = 0; l < k_; ++l) {
            const double p = double(x[g * x_stride_ + std::size_t(t) * k_ + l]) *
                             w[g * w_stride_ + std::size_t(o) * k_ + l];
            sum += p;
            abs_sum += std::fabs(p);
          }
          got.push_back(y_all[g * y_stride_ + std::size_t(t) * n_ + o]);
          want.push_back(sum);
          magnitude.push_back(abs_sum);
        }
    return compare_close(got, want, 0x1p-7, 1e-4, magnitude);
  }

  nlohmann::json describe() const override {
    if (lt_loop_)
      return {{"library", "cublasLt"}, {"call", "cublasLtMatmul per group"}, {"groups", groups_},
              {"layout", "row-major Y = X W^T (cuBLAS TN)"}, {"algo", matmul_->describe()}};
    return {{"library", "cublas"},
            {"call", "cublasGemmGroupedBatchedEx"},
            {"cublas_version", CUBLAS_VERSION},
            {"groups", groups_},
            {"layout", "row-major Y = X W^T (cuBLAS TN)"}};
  }

 private:
  int groups_ = 0, m_ = 0, n_ = 0, k_ = 0;
  std::size_t x_stride_ = 0, w_stride_ = 0, y_stride_ = 0;  // elements between experts
  cudaStream_t stream_ = nullptr;
  std::vector<DeviceBuffer> x_, w_, pointer_arrays_;
  DeviceBuffer y_, workspace_;
  bool lt_loop_ = false;
  cublasHandle_t handle_ = nullptr;
  std::unique_ptr<LtMatmul> matmul_;
  std::vector<cublasOperation_t> trans_a_, trans_b_;
  std::vector<int> rows_, cols_, depth_, ld_ab_, ld_c_, group_size_;
  std::vector<float> alpha_, beta_;
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace

std::unique_ptr<Benchmark> make_grouped_gemm() { return std::make_unique<GroupedGemmBenchmark>(); }

}  // namespace isobench::kernels::cuda
