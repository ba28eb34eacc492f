// cpu_allgather_matmul: the CPU stand-in of the all-gather + GEMM family, so the rank protocol
// runs end to end without GPUs. Each of `ranks` ranks holds m/ranks rows of A and its own B
// (k x n); a launch all-gathers A through the run's shared memory, then computes
// C = A (m x k) * B (k x n). check() rebuilds every rank's rows from the seed in one process.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/cpu/product_entry_check.hpp"
#include "kernels/cpu/random_fill.hpp"

namespace isobench::kernels {
namespace {

// A rank's inputs come from their own stream of the instance's seed, so any process can rebuild
// any rank's rows (the reference) and the ranks never hold the same data.
std::mt19937_64 rank_rng(std::uint64_t seed, int rank) {
  std::seed_seq seq{static_cast<std::uint32_t>(seed), static_cast<std::uint32_t>(seed >> 32),
                    static_cast<std::uint32_t>(rank)};
  return std::mt19937_64(seq);
}

template <typename T>
class CpuAllgatherMatmul final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    m_ = params.at("m").get<std::size_t>();
    k_ = params.at("k").get<std::size_t>();
    n_ = params.at("n").get<std::size_t>();
    world_ = params.at("ranks").get<int>();
    comm_ = ctx.ranks;
    if (world_ > 1 && (!comm_ || comm_->world() != world_))
      throw std::runtime_error("cpu_allgather_matmul: ranks " + std::to_string(world_) +
                               " needs that many worker ranks (run it through orchestrate)");
    rank_ = comm_ ? comm_->rank() : 0;
    if (m_ % static_cast<std::size_t>(world_) != 0)
      throw std::runtime_error("cpu_allgather_matmul: m " + std::to_string(m_) + " is not a multiple of ranks " +
                               std::to_string(world_));
    copies_ = cpu_detail::checked_rotation(ctx.rotate_buffers);
    seed_ = ctx.seed;
    local_ = inputs_of(rank_, b_);
    gathered_.assign(m_ * k_, T(0));
    c_.assign(m_ * n_, T(0));
    next_ = 0;
    last_ = -1;
  }

  void launch() override {
    const auto& mine = local_[next_];
    if (comm_)
      comm_->all_gather(mine.data(), mine.size() * sizeof(T), gathered_.data());
    else
      gathered_ = mine;
    std::fill(c_.begin(), c_.end(), T(0));
    for (std::size_t i = 0; i < m_; ++i)
      for (std::size_t p = 0; p < k_; ++p) {
        const T a = gathered_[i * k_ + p];
        for (std::size_t j = 0; j < n_; ++j) c_[i * n_ + j] += a * b_[p * n_ + j];
      }
    last_ = static_cast<int>(next_);
    next_ = (next_ + 1) % local_.size();
  }

  std::string check() override {
    if (last_ < 0) return "check() called before any launch";
    // The reference: every rank's rows of the last launch's copy, rebuilt here, stacked in rank order.
    std::vector<T> a;
    for (int r = 0; r < world_; ++r) {
      std::vector<T> unused_b;
      const auto block = inputs_of(r, unused_b)[static_cast<std::size_t>(last_)];
      a.insert(a.end(), block.begin(), block.end());
    }
    for (std::size_t i = 0; i < m_; ++i)
      for (std::size_t j = 0; j < n_; ++j)
        if (auto problem = cpu_detail::check_product_entry(a.data(), k_, b_.data(), n_, k_, i, j, c_[i * n_ + j]);
            !problem.empty())
          return "rank " + std::to_string(rank_) + ": " + problem + " against the single-process reference";
    return {};
  }

 private:
  // Rank r's rotated copies of its rows of A, and its B.
  std::vector<std::vector<T>> inputs_of(int r, std::vector<T>& b) const {
    auto rng = rank_rng(seed_, r);
    const std::size_t rows = m_ / static_cast<std::size_t>(world_);
    std::vector<std::vector<T>> blocks(static_cast<std::size_t>(copies_), std::vector<T>(rows * k_));
    for (auto& block : blocks) cpu_detail::fill_uniform(block.data(), block.size(), rng, -1.0, 1.0);
    b.assign(k_ * n_, T(0));
    cpu_detail::fill_uniform(b.data(), b.size(), rng, -1.0, 1.0);
    return blocks;
  }

  std::size_t m_ = 0, k_ = 0, n_ = 0;
  int world_ = 1, rank_ = 0, copies_ = 1;
  RankComm* comm_ = nullptr;
  std::uint64_t seed_ = 0;
  std::vector<std::vector<T>> local_;
  std::vector<T> b_, gathered_, c_;
  std::size_t next_ = 0;
  int last_ = -1;
};

}  // namespace

std::unique_ptr<Benchmark> make_cpu_allgather_matmul() {
  return std::make_unique<FloatDtypeDispatch<CpuAllgatherMatmul>>("cpu_allgather_matmul");
}

}  // namespace isobench::kernels
