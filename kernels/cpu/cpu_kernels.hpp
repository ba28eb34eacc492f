#pragma once
// The CPU kernels: real work timed by the worker's monotonic clock. They are what CI runs the
// whole pipeline with, so each one is small, deterministic from the seed and checkable.

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/benchmark.hpp"

namespace isobench::kernels {

// A kernel whose `dtype` axis (fp32 | fp64) picks the element type: the concrete
// Impl<float> or Impl<double> is chosen in setup().
template <template <class> class Impl>
class FloatDtypeDispatch final : public Benchmark {
 public:
  explicit FloatDtypeDispatch(std::string kernel) : kernel_(std::move(kernel)) {}
  void setup(const Params& params, const SetupContext& ctx) override {
    const auto dtype = params.at("dtype").get<std::string>();
    if (dtype == "fp32")
      impl_ = std::make_unique<Impl<float>>();
    else if (dtype == "fp64")
      impl_ = std::make_unique<Impl<double>>();
    else
      throw std::runtime_error(kernel_ + ": unsupported dtype \"" + dtype + "\"");
    impl_->setup(params, ctx);
  }
  void launch() override { impl_->launch(); }
  std::string check() override { return impl_->check(); }

 private:
  std::string kernel_;
  std::unique_ptr<Benchmark> impl_;
};

std::unique_ptr<Benchmark> make_cpu_copy();    // copy.cpp
std::unique_ptr<Benchmark> make_cpu_matmul();  // matmul.cpp
std::unique_ptr<Benchmark> make_cpu_reduce();  // reduce.cpp
std::unique_ptr<Benchmark> make_cpu_spin();    // spin.cpp
std::unique_ptr<Benchmark> make_cpu_allgather_matmul();  // allgather_matmul.cpp

}  // namespace isobench::kernels
