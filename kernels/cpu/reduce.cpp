// cpu_reduce: the sum of n values, a bandwidth- and latency-bound reduction.
#include <cmath>
#include <limits>
#include <random>
#include <sstream>
#include <vector>

#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/cpu/random_fill.hpp"

namespace isobench::kernels {
namespace {

template <typename T>
class CpuReduce final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    n_ = params.at("n").get<std::size_t>();
    const int copies = cpu_detail::checked_rotation(ctx.rotate_buffers);
    std::mt19937_64 rng(ctx.seed);
    inputs_.assign(static_cast<std::size_t>(copies), std::vector<T>(n_));
    // Positive values: the sum cannot cancel, so a relative tolerance is meaningful.
    for (auto& input : inputs_) cpu_detail::fill_uniform(input.data(), n_, rng, 0.5, 1.5);
    next_ = 0;
    last_ = -1;
  }

  void launch() override {
    const T* x = inputs_[next_].data();
    // Four independent partial sums: the loop is bound by memory, not by one add chain.
    T s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    std::size_t i = 0;
    for (; i + 4 <= n_; i += 4) {
      s0 += x[i];
      s1 += x[i + 1];
      s2 += x[i + 2];
      s3 += x[i + 3];
    }
    for (; i < n_; ++i) s0 += x[i];
    // Stored in the object, which outlives launch(): the compiler cannot drop the loop.
    result_ = (s0 + s1) + (s2 + s3);
    last_ = static_cast<int>(next_);
    next_ = (next_ + 1) % inputs_.size();
  }

  std::string check() override {
    if (last_ < 0) return "check() called before any launch";
    long double ref = 0;
    for (T v : inputs_[static_cast<std::size_t>(last_)]) ref += v;
    const double tolerance =
        static_cast<double>(n_) * std::numeric_limits<T>::epsilon() * static_cast<double>(ref);
    const double error = std::fabs(static_cast<double>(result_) - static_cast<double>(ref));
    if (error <= tolerance) return {};
    std::ostringstream os;
    os << "sum = " << static_cast<double>(result_) << ", reference " << static_cast<double>(ref)
       << " (error " << error << ", tolerance " << tolerance << ")";
    return os.str();
  }

 private:
  std::size_t n_ = 0;
  std::vector<std::vector<T>> inputs_;
  T result_ = 0;
  std::size_t next_ = 0;
  int last_ = -1;
};

}  // namespace

std::unique_ptr<Benchmark> make_cpu_reduce() { return std::make_unique<FloatDtypeDispatch<CpuReduce>>("cpu_reduce"); }

}  // namespace isobench::kernels
