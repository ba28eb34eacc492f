// cpu_spin: busy-waits a given time on the steady clock. A cost known in advance, so tests of
// the timer, the schedule and the statistics can assert on what was measured.
#include <chrono>
#include <sstream>

#include "kernels/cpu/cpu_kernels.hpp"

namespace isobench::kernels {
namespace {

class CpuSpin final : public Benchmark {
 public:
  void setup(const Params& params, const SetupContext&) override {
    duration_ = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double, std::micro>(params.at("microseconds").get<double>()));
    last_elapsed_ = Clock::duration::zero();
    launched_ = false;
  }

  void launch() override {
    const auto start = Clock::now();
    auto now = start;
    while (now - start < duration_) now = Clock::now();
    last_elapsed_ = now - start;
    launched_ = true;
  }

  std::string check() override {
    if (!launched_) return "check() called before any launch";
    if (last_elapsed_ >= duration_) return {};
    std::ostringstream os;
    os << "spun " << std::chrono::duration<double, std::micro>(last_elapsed_).count()
       << " us, asked for " << std::chrono::duration<double, std::micro>(duration_).count()
       << " us";
    return os.str();
  }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::duration duration_{};
  Clock::duration last_elapsed_{};
  bool launched_ = false;
};

}  // namespace

std::unique_ptr<Benchmark> make_cpu_spin() { return std::make_unique<CpuSpin>(); }

}  // namespace isobench::kernels
