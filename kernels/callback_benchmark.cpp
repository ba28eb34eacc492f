#include "callback_benchmark.hpp"

#include <isobench/plugin.h>

#include <stdexcept>

namespace isobench::kernels {

namespace {

// The reason a callback wrote, or what it returned when it wrote none.
std::string reason(const char* buffer, int rc) {
  return buffer[0] ? std::string(buffer) : "returned " + std::to_string(rc) + " without a reason";
}

class CallbackBenchmark final : public Benchmark {
 public:
  explicit CallbackBenchmark(CallbackKernel k) : k_(std::move(k)), kernel_(*k_.kernel) {
    self_ = kernel_.create();
    if (!self_) throw std::runtime_error(k_.origin + ": kernel " + kernel_.name + ": create() returned NULL");
  }
  ~CallbackBenchmark() override {
    if (set_up_ && kernel_.teardown) kernel_.teardown(self_);
    if (kernel_.destroy) kernel_.destroy(self_);
  }

  void setup(const Params& params, const SetupContext& ctx) override {
    const std::string text = params.dump();
    char error[512] = {};
    void* stream = k_.backend == Backend::cuda ? ctx.cuda_stream : nullptr;
    if (k_.replay_fn && ctx.replay.is_object()) k_.replay_fn(self_, ctx.replay.dump().c_str());
    const int rc = kernel_.setup(self_, text.c_str(), stream, ctx.seed, error, sizeof error);
    error[sizeof error - 1] = '\0';
    if (rc != 0) throw std::runtime_error(std::string(kernel_.name) + " setup: " + reason(error, rc));
    set_up_ = true;
  }

  void launch() override {
    const int rc = kernel_.launch(self_);
    if (rc == 0) return;
    std::string why = "returned " + std::to_string(rc);
    if (k_.launch_error) {
      char error[512] = {};
      k_.launch_error(self_, error, sizeof error);
      error[sizeof error - 1] = '\0';
      if (error[0]) why = error;
    }
    throw std::runtime_error(k_.origin + ": " + kernel_.name + " launch failed: " + why);
  }

  std::string check() override {
    if (!kernel_.check) return {};
    char error[512] = {};
    const int rc = kernel_.check(self_, error, sizeof error);
    error[sizeof error - 1] = '\0';
    return rc == 0 ? std::string() : reason(error, rc);
  }

  // The fixed description and what the set-up says it chose; a choice that is not a JSON object
  // is reported as such rather than pinned.
  nlohmann::json describe() const override {
    nlohmann::json out = k_.describe;
    if (!k_.describe_fn || !set_up_) return out;
    std::string text(64 * 1024, '\0');
    if (k_.describe_fn(self_, text.data(), text.size()) != 0) {
      out["describe_error"] = "the choice does not fit in " + std::to_string(text.size()) + " bytes";
      return out;
    }
    auto chosen = nlohmann::json::parse(text.c_str(), nullptr, false);
    if (chosen.is_discarded() || !chosen.is_object()) {
      out["describe_error"] = "the choice is not a JSON object";
      return out;
    }
    out.update(chosen);
    return out;
  }

 private:
  CallbackKernel k_;
  const isobench_kernel& kernel_;
  void* self_ = nullptr;
  bool set_up_ = false;
};

}  // namespace

std::unique_ptr<Benchmark> make_callback_benchmark(CallbackKernel kernel) {
  if (!kernel.kernel) throw std::logic_error("make_callback_benchmark: no kernel");
  return std::make_unique<CallbackBenchmark>(std::move(kernel));
}

}  // namespace isobench::kernels
