// cpu_copy: a streaming copy between two buffers, the CPU analogue of a bandwidth-bound kernel.
#include <cstring>
#include <random>
#include <vector>

#include "kernels/cpu/cpu_kernels.hpp"
#include "kernels/cpu/random_fill.hpp"

namespace isobench::kernels {
namespace {

class CpuCopy final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext& ctx) override {
    bytes_ = params.at("bytes").get<std::size_t>();
    const int copies = cpu_detail::checked_rotation(ctx.rotate_buffers);
    std::mt19937_64 rng(ctx.seed);
    sources_.assign(static_cast<std::size_t>(copies), std::vector<unsigned char>(bytes_));
    for (auto& source : sources_) cpu_detail::fill_bytes(source.data(), bytes_, rng);
    destination_.assign(bytes_, 0);
    next_ = 0;
    last_ = -1;
  }

  void launch() override {
    std::memcpy(destination_.data(), sources_[next_].data(), bytes_);
    last_ = static_cast<int>(next_);
    next_ = (next_ + 1) % sources_.size();
  }

  std::string check() override {
    if (last_ < 0) return "check() called before any launch";
    const auto& source = sources_[static_cast<std::size_t>(last_)];
    if (std::memcmp(destination_.data(), source.data(), bytes_) == 0) return {};
    std::size_t first = 0;
    while (destination_[first] == source[first]) ++first;
    return "destination differs from source at byte " + std::to_string(first) + " of " +
           std::to_string(bytes_);
  }

 private:
  std::size_t bytes_ = 0;
  std::vector<std::vector<unsigned char>> sources_;
  std::vector<unsigned char> destination_;
  std::size_t next_ = 0;
  int last_ = -1;
};

}  // namespace

std::unique_ptr<Benchmark> make_cpu_copy() { return std::make_unique<CpuCopy>(); }

}  // namespace isobench::kernels
