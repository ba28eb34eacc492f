// allgather_gemm: the all-gather + GEMM of tensor parallelism, one rank per GPU. Each rank holds
// m/ranks rows of A and its own B; a launch all-gathers A with NCCL and multiplies it by B with
// cuBLASLt. impl sequence runs the all-gather, then the GEMM, on the timed stream. impl overlap
// splits every rank's rows into `chunks`: chunk c's all-gather runs on a communication stream
// and its GEMM on a compute stream as soon as the chunk has arrived (an event), so the GEMM of
// chunk c overlaps the all-gather of chunk c+1. The timed stream waits for both.
//
// Layout (row-major): the all-gather of chunk c stacks each rank's c-th row block in rank order,
// so C holds the rows of A * B chunk by chunk: row (c, r, i) of C is row
// r * m/ranks + c * m/(ranks*chunks) + i of the stacked A. With one chunk that is A's own order.

#include <cmath>
#include <string>
#include <vector>

#include "cuda_check.hpp"
#include "cuda_kernels.hpp"
#include "device_buffer.hpp"
#include "gemm_dtypes.hpp"
#include "lt_matmul.hpp"
#include "nccl_library.hpp"
#include "random_fill.hpp"

namespace isobench::kernels::cuda {

namespace {

struct Types {
  Element element;
  cudaDataType_t cuda;
  ncclDataType_t nccl;
};

Types types_of(const std::string& dtype) {
  if (dtype == "bf16") return {Element::bf16, CUDA_R_16BF, ncclBfloat16};
  if (dtype == "fp32") return {Element::f32, CUDA_R_32F, ncclFloat32};
  throw std::runtime_error("allgather_gemm: unknown dtype '" + dtype + "'");
}

// Every rank's inputs come from the seed and its rank, so any rank can rebuild any other's rows
// (check()'s reference) and no two ranks hold the same rows.
std::uint64_t a_seed(std::uint64_t seed, int rank, int copy) {
  return seed + 0x9e3779b97f4a7c15ull * static_cast<std::uint64_t>(rank + 1) + 2 * static_cast<std::uint64_t>(copy);
}
std::uint64_t b_seed(std::uint64_t seed, int rank) { return a_seed(seed, rank, 0) + 1; }

class Stream {
 public:
  Stream() { ISOBENCH_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() { cudaStreamDestroy(stream_); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// An ordering event (no timing): one stream waits for work another has queued.
class Event {
 public:
  Event() { ISOBENCH_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() { cudaEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  // `waiter` runs its later work only after what `on` has queued so far.
  void order(cudaStream_t on, cudaStream_t waiter) const {
    ISOBENCH_CUDA_CHECK(cudaEventRecord(event_, on));
    ISOBENCH_CUDA_CHECK(cudaStreamWaitEvent(waiter, event_, 0));
  }

 private:
  cudaEvent_t event_ = nullptr;
};

class AllgatherGemm final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    m_ = params.at("m").get<int>();
    k_ = params.at("k").get<int>();
    n_ = params.at("n").get<int>();
    world_ = params.at("ranks").get<int>();
    overlap_ = params.at("impl").get<std::string>() == "overlap";
    chunks_ = params.at("chunks").get<int>();
    types_ = types_of(params.at("dtype").get<std::string>());
    if (chunks_ != 1 && chunks_ != 2 && chunks_ != 4 && chunks_ != 8)
      throw std::runtime_error("allgather_gemm: chunks must be 1, 2, 4 or 8, got " + std::to_string(chunks_));
    if (!overlap_ && chunks_ != 1)
      throw std::runtime_error("allgather_gemm: impl sequence runs one chunk, got chunks " + std::to_string(chunks_));
    if (m_ % (world_ * chunks_) != 0)
      throw std::runtime_error("allgather_gemm: m " + std::to_string(m_) + " is not a multiple of ranks * chunks (" +
                               std::to_string(world_ * chunks_) + ")");
    if (world_ > 1 && (!ctx.ranks || ctx.ranks->world() != world_))
      throw std::runtime_error("allgather_gemm: ranks " + std::to_string(world_) +
                               " needs that many worker ranks (run it through orchestrate)");
    rank_ = ctx.ranks ? ctx.ranks->rank() : 0;
    stream_ = static_cast<cudaStream_t>(ctx.cuda_stream);
    seed_ = ctx.seed;

    const std::size_t bytes = element_bytes(types_.element);
    for (int c = 0; c < std::max(1, ctx.rotate_buffers); ++c) {
      a_local_.emplace_back(local_rows() * k_ * bytes);
      fill_random(a_local_.back().get(), types_.element, local_rows() * k_, a_seed(seed_, rank_, c), 0.05f, 1.0f,
                  stream_);
    }
    b_ = DeviceBuffer(std::size_t(k_) * n_ * bytes);
    fill_random(b_.get(), types_.element, std::size_t(k_) * n_, b_seed(seed_, rank_), 0.05f, 1.0f, stream_);
    a_gathered_ = DeviceBuffer(std::size_t(m_) * k_ * bytes);
    c_ = DeviceBuffer(std::size_t(m_) * n_ * bytes);
    workspace_ = DeviceBuffer(kGemmWorkspaceBytes);

    // Row-major C[rows, n] = A[rows, k] B[k, n] is column-major C^T = B^T A^T: cuBLASLt's
    // D[n, rows] = B'[n, k] A'[k, rows], neither transposed, with B and A as they lie.
    const cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
    try {
      gemm_ = std::make_unique<LtMatmul>(
          LtProblem{types_.cuda, types_.cuda, compute, false, false, n_, chunk_rows() * world_, k_}, -1, ctx.replay);
    } catch (const std::exception& e) {
      throw std::runtime_error("allgather_gemm: " + std::string(e.what()));
    }
    ISOBENCH_CUDA_CHECK(cudaStreamSynchronize(stream_));
    comm_ = std::make_unique<NcclCommunicator>(ctx.ranks);
    if (overlap_) {
      comm_stream_ = std::make_unique<Stream>();
      compute_stream_ = std::make_unique<Stream>();
      start_ = std::make_unique<Event>();
      done_ = std::make_unique<Event>();
      arrived_ = std::vector<Event>(static_cast<std::size_t>(chunks_));
    }
  }

  void launch() override {
    last_ = next_;
    next_ = (next_ + 1) % a_local_.size();
    if (!overlap_) {
      gather_chunk(0, stream_);
      multiply_chunk(0, stream_);
      return;
    }
    const cudaStream_t comm = comm_stream_->get(), compute = compute_stream_->get();
    // Both streams start after what the timed stream queued before (the previous launch).
    start_->order(stream_, comm);
    start_->order(stream_, compute);
    for (int c = 0; c < chunks_; ++c) {
      gather_chunk(c, comm);
      arrived_[static_cast<std::size_t>(c)].order(comm, compute);
      multiply_chunk(c, compute);
    }
    // Every all-gather precedes the last chunk's GEMM: the compute stream's end is the launch's.
    done_->order(compute, stream_);
  }

  // Against a host reference in double precision built from every rank's inputs, which this
  // rank regenerates from the seed: the all-gather (rows, order) and the GEMM are checked together.
  std::string check() override {
    const std::size_t bytes = element_bytes(types_.element);
    std::vector<float> a;  // the stacked A, rank by rank
    DeviceBuffer scratch(local_rows() * k_ * bytes);
    for (int r = 0; r < world_; ++r) {
      fill_random(scratch.get(), types_.element, local_rows() * k_, a_seed(seed_, r, static_cast<int>(last_)), 0.05f,
                  1.0f, stream_);
      const auto block = download_as_float(scratch.get(), types_.element, local_rows() * k_, stream_);
      a.insert(a.end(), block.begin(), block.end());
    }
    const auto b = download_as_float(b_.get(), types_.element, std::size_t(k_) * n_, stream_);
    const auto c = download_as_float(c_.get(), types_.element, std::size_t(m_) * n_, stream_);
    std::vector<double> want(c.size()), magnitude(c.size());
    const std::size_t rows = chunk_rows();
    for (std::size_t out = 0; out < std::size_t(m_); ++out) {
      const std::size_t chunk = out / (rows * world_), rank = out / rows % world_, i = out % rows;
      const std::size_t in = rank * local_rows() + chunk * rows + i;
      for (std::size_t j = 0; j < std::size_t(n_); ++j) {
        double sum = 0, abs_sum = 0;
        for (std::size_t p = 0; p < std::size_t(k_); ++p) {
          const double x = double(a[in * k_ + p]) * b[p * n_ + j];
          sum += x;
          abs_sum += std::fabs(x);
        }
        want[out * n_ + j] = sum;
        magnitude[out * n_ + j] = abs_sum;
      }
    }
    // As gemm's check: the output type's rounding, and fp32 accumulation in any order.
    const double output_rtol = types_.element == Element::f32 ? 1e-6 : 0x1p-7;
    const std::string problem = compare_close(c, want, output_rtol, 1e-4, magnitude);
    return problem.empty() ? "" : "rank " + std::to_string(rank_) + ": " + problem;
  }

  nlohmann::json describe() const override { return gemm_ ? gemm_->describe() : nlohmann::json::object(); }

 private:
  std::size_t local_rows() const { return std::size_t(m_) / world_; }
  int chunk_rows() const { return m_ / (world_ * chunks_); }
  // Bytes of `rows` rows of `cols` elements: offsets into A and C.
  std::size_t row_bytes(std::size_t rows, int cols) const {
    return rows * cols * element_bytes(types_.element);
  }

  void gather_chunk(int c, cudaStream_t stream) {
    const auto* send = a_local_[last_].as<char>() + row_bytes(std::size_t(c) * chunk_rows(), k_);
    auto* receive = a_gathered_.as<char>() + row_bytes(std::size_t(c) * chunk_rows() * world_, k_);
    ISOBENCH_NCCL_CHECK(nccl().AllGather(send, receive, std::size_t(chunk_rows()) * k_, types_.nccl, comm_->get(), stream));
  }

  void multiply_chunk(int c, cudaStream_t stream) {
    const std::size_t first_row = std::size_t(c) * chunk_rows() * world_;
    gemm_->run(b_.get(), a_gathered_.as<char>() + row_bytes(first_row, k_),
               c_.as<char>() + row_bytes(first_row, n_), workspace_.get(), stream);
  }

  int m_ = 0, k_ = 0, n_ = 0, world_ = 1, rank_ = 0, chunks_ = 1;
  bool overlap_ = false;
  Types types_{};
  std::uint64_t seed_ = 0;
  cudaStream_t stream_ = nullptr;
  std::vector<DeviceBuffer> a_local_;
  DeviceBuffer b_, a_gathered_, c_, workspace_;
  std::unique_ptr<LtMatmul> gemm_;
  std::unique_ptr<NcclCommunicator> comm_;
  // overlap only, made in setup(): a benchmark object is also made where no device is (--list-kernels)
  std::unique_ptr<Stream> comm_stream_, compute_stream_;
  std::unique_ptr<Event> start_, done_;
  std::vector<Event> arrived_;
  std::size_t next_ = 0, last_ = 0;
};

}  // namespace

std::unique_ptr<Benchmark> make_allgather_gemm() { return std::make_unique<AllgatherGemm>(); }

}  // namespace isobench::kernels::cuda
