// cpu_matmul: C = A * B for n x n row-major matrices, cache-blocked, single thread.
#include <algorithm>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/cpu/product_entry_check.hpp"
#include "kernels/cpu/random_fill.hpp"

namespace isobench::kernels {
namespace {

// Beyond this size the reference would take longer than the benchmark run itself, so check()
// compares a seeded sample of entries instead of all n*n.
constexpr std::size_t kFullCheckMaxN = 256;
constexpr std::size_t kSampledEntries = 256;
constexpr std::size_t kBlock = 64;

template <typename T>
class CpuMatmul final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    n_ = params.at("n").get<std::size_t>();
    const int copies = cpu_detail::checked_rotation(ctx.rotate_buffers);
    std::mt19937_64 rng(ctx.seed);
    a_.assign(static_cast<std::size_t>(copies), std::vector<T>(n_ * n_));
    b_.assign(static_cast<std::size_t>(copies), std::vector<T>(n_ * n_));
    for (int r = 0; r < copies; ++r) {
      cpu_detail::fill_uniform(a_[r].data(), n_ * n_, rng, -1.0, 1.0);
      cpu_detail::fill_uniform(b_[r].data(), n_ * n_, rng, -1.0, 1.0);
    }
    c_.assign(n_ * n_, T(0));
    check_seed_ = ctx.seed;
    next_ = 0;
    last_ = -1;
  }

  void launch() override {
    const T* a = a_[next_].data();
    const T* b = b_[next_].data();
    T* c = c_.data();
    const std::size_t n = n_;
    std::fill(c_.begin(), c_.end(), T(0));
    for (std::size_t i0 = 0; i0 < n; i0 += kBlock) {
      const std::size_t i1 = std::min(i0 + kBlock, n);
      for (std::size_t k0 = 0; k0 < n; k0 += kBlock) {
        const std::size_t k1 = std::min(k0 + kBlock, n);
        for (std::size_t j0 = 0; j0 < n; j0 += kBlock) {
          const std::size_t j1 = std::min(j0 + kBlock, n);
          for (std::size_t i = i0; i < i1; ++i) {
            T* c_row = c + i * n;
            for (std::size_t k = k0; k < k1; ++k) {
              const T a_ik = a[i * n + k];
              const T* b_row = b + k * n;
              for (std::size_t j = j0; j < j1; ++j) c_row[j] += a_ik * b_row[j];
            }
          }
        }
      }
    }
    last_ = static_cast<int>(next_);
    next_ = (next_ + 1) % a_.size();
  }

  std::string check() override {
    if (last_ < 0) return "check() called before any launch";
    const auto& a = a_[static_cast<std::size_t>(last_)];
    const auto& b = b_[static_cast<std::size_t>(last_)];
    auto check_entry = [&](std::size_t i, std::size_t j) {
      return cpu_detail::check_product_entry(a.data(), n_, b.data(), n_, n_, i, j, c_[i * n_ + j]);
    };
    if (n_ <= kFullCheckMaxN) {
      for (std::size_t i = 0; i < n_; ++i)
        for (std::size_t j = 0; j < n_; ++j)
          if (auto problem = check_entry(i, j); !problem.empty()) return problem;
      return {};
    }
    std::mt19937_64 rng(check_seed_ ^ 0x9e3779b97f4a7c15ULL);
    std::uniform_int_distribution<std::size_t> index(0, n_ - 1);
    for (std::size_t s = 0; s < kSampledEntries; ++s) {
      const std::size_t i = index(rng), j = index(rng);
      if (auto problem = check_entry(i, j); !problem.empty()) return problem;
    }
    return {};
  }

 private:
  std::size_t n_ = 0;
  std::vector<std::vector<T>> a_, b_;
  std::vector<T> c_;
  std::uint64_t check_seed_ = 0;
  std::size_t next_ = 0;
  int last_ = -1;
};

}  // namespace

std::unique_ptr<Benchmark> make_cpu_matmul() { return std::make_unique<FloatDtypeDispatch<CpuMatmul>>("cpu_matmul"); }

}  // namespace isobench::kernels
