#include "orchestrator/sequential_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "orchestrator/format/numbers.hpp"

namespace isobench::orchestrator {

namespace {

const char* spending_name(stats::SpendingFunction s) {
  return s == stats::SpendingFunction::pocock ? "pocock" : "obrien_fleming";
}

}  // namespace

stats::SequentialDesign SequentialPlan::design() const {
  auto d = stats::sequential_design(looks, alpha, instances, spending, confidence, separation, extension);
  d.futility = futility;
  return d;
}

bool SequentialPlan::can_reject() const {
  const auto d = design();
  return std::any_of(d.looks.begin(), d.looks.end(), [](const auto& l) { return l.alpha > 0; });
}

nlohmann::json SequentialPlan::to_json() const {
  return {{"looks", looks},
          {"alpha", alpha},
          {"threshold", threshold},
          {"confidence", confidence},
          {"instances", instances},
          {"spending", spending_name(spending)},
          {"separation_looks", separation},
          {"extension", extension.from > 0 ? nlohmann::json{{"from", extension.from}, {"share", extension.share}}
                                           : nlohmann::json()},
          {"futility", futility}};
}

SequentialPlan SequentialPlan::from_json(const nlohmann::json& j) {
  try {
    SequentialPlan p;
    p.looks = j.at("looks").get<std::vector<std::size_t>>();
    p.alpha = j.at("alpha").get<double>();
    p.threshold = j.at("threshold").get<double>();
    p.confidence = j.at("confidence").get<double>();
    p.instances = j.at("instances").get<std::size_t>();
    const std::string spending = j.at("spending").get<std::string>();
    if (spending != "pocock" && spending != "obrien_fleming") throw std::runtime_error("spending " + spending);
    p.spending = spending == "pocock" ? stats::SpendingFunction::pocock : stats::SpendingFunction::obrien_fleming;
    p.separation = j.value("separation_looks", std::vector<std::size_t>{});
    if (j.contains("extension") && !j.at("extension").is_null())
      p.extension = {j.at("extension").at("from").get<std::size_t>(), j.at("extension").at("share").get<double>()};
    p.futility = j.value("futility", 0.0);
    if (!(p.futility >= 0 && p.futility <= kMaxFutility))
      throw std::runtime_error("futility must lie in [0, " + format("%g", kMaxFutility) + "]");
    p.design();  // the design must be one sequential_design accepts
    return p;
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("sequential: ") + e.what());
  }
}

std::vector<std::size_t> default_looks(std::size_t max_samples) {
  std::vector<std::size_t> looks;
  for (std::size_t n = 8; n < max_samples; n = n < 16 ? n + 4 : n + n / 2) looks.push_back(n);
  looks.push_back(max_samples);
  return looks;
}

void extend_looks(SequentialPlan& plan, std::size_t extend_to) {
  plan.extension = {};
  if (plan.looks.empty() || extend_to <= plan.looks.back()) return;
  const std::size_t from = plan.looks.back();
  for (std::size_t n = from + from / 2; n < extend_to; n += n / 2) plan.looks.push_back(n);
  plan.looks.push_back(extend_to);
  plan.extension = {from, kExtensionShare};
}

void use_default_looks(SequentialPlan& plan, std::size_t max_samples, std::size_t extend_to) {
  plan.looks = default_looks(max_samples);
  plan.separation.clear();
  extend_looks(plan, extend_to);
  if (const auto n = stats::early_separation_look(plan.looks, plan.alpha, plan.instances, plan.spending,
                                                  plan.confidence, plan.extension)) {
    plan.looks.insert(plan.looks.begin() + 1, *n);
    plan.separation = {*n};
  }
}

}  // namespace isobench::orchestrator
