#include "settings.hpp"

#include <algorithm>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace isobench::ipc {

using nlohmann::json;

namespace {

// A number written as 1.6e7 or 50.0 where an integer is expected means the integer.
json integral(const json& value) {
  if (value.is_number_float()) {
    const double v = value.get<double>();
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e18) return static_cast<std::int64_t>(v);
  }
  return value;
}

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::ostringstream os;
  os << v;
  return os.str();
}

// Accessors of one field, generated from its member pointer so that no setting spells its field
// twice. Run settings live in RunSettings, measurement settings in MeasureSettings.
template <auto Member>
json get_measure(const RunSettings&, const MeasureSettings& m) {
  return json(m.*Member);
}
template <auto Member>
void set_measure(const json& v, RunSettings&, MeasureSettings& m) {
  using T = std::remove_reference_t<decltype(m.*Member)>;
  m.*Member = v.get<T>();
}
template <auto Member>
json get_run(const RunSettings& r, const MeasureSettings&) {
  return json(r.*Member);
}
template <auto Member>
void set_run(const json& v, RunSettings& r, MeasureSettings&) {
  using T = std::remove_reference_t<decltype(r.*Member)>;
  r.*Member = v.get<T>();
}

template <auto Member>
SettingSpec measure_setting(std::string_view name, SettingType type, SettingTravel travel, bool changes_sample,
                            std::string_view help) {
  SettingSpec s{};
  s.name = name;
  s.scope = SettingScope::measure;
  s.type = type;
  s.travel = travel;
  s.changes_sample = changes_sample;
  s.help = help;
  s.get = &get_measure<Member>;
  s.set = &set_measure<Member>;
  return s;
}

template <auto Member>
SettingSpec run_setting(std::string_view name, SettingType type, std::string_view help) {
  SettingSpec s{};
  s.name = name;
  s.scope = SettingScope::run;
  s.type = type;
  s.help = help;
  s.get = &get_run<Member>;
  s.set = &set_run<Member>;
  return s;
}

SettingSpec bounded(SettingSpec s, double min, double max, bool min_exclusive = false, std::string_view max_note = {}) {
  s.min = min;
  s.max = max;
  s.min_exclusive = min_exclusive;
  s.max_note = max_note;
  return s;
}

SettingSpec one_of(SettingSpec s, std::vector<std::string_view> choices) {
  s.choices = std::move(choices);
  return s;
}

std::vector<SettingSpec> make_specs() {
  using M = MeasureSettings;
  using R = RunSettings;
  using T = SettingType;
  using V = SettingTravel;
  std::vector<SettingSpec> specs;
  // A million samples of one instance is past any run worth making; beyond it planning alone would
  // take gigabytes (the segment holds 2^28 samples in all).
  specs.push_back(bounded(run_setting<&R::samples>("samples", T::integer, "samples per instance (and per side)"), 2,
                          1'000'000));
  specs.push_back(bounded(measure_setting<&M::warmup>("warmup", T::integer, V::pinned, false,
                                                      "warm-up launches per instance and worker, untimed"),
                          0, INT_MAX));
  {
    SettingSpec inner{};
    inner.name = "inner";
    inner.scope = SettingScope::measure;
    inner.type = T::inner;
    inner.travel = V::pinned;
    // The pinned count, not the setting, is what compare checks (plan.json's "inner").
    inner.help = "launches per sample: auto (calibrated once, pinned for every worker and both sides) or an integer";
    inner.get = [](const RunSettings&, const MeasureSettings& m) { return m.inner ? json(*m.inner) : json("auto"); };
    inner.set = [](const json& v, RunSettings&, MeasureSettings& m) {
      if (v.is_string())
        m.inner.reset();
      else
        m.inner = v.get<int>();
    };
    specs.push_back(bounded(inner, 1, INT_MAX));
  }
  {
    SettingSpec time{};
    time.name = "min_sample_time_ms";
    time.scope = SettingScope::measure;
    time.type = T::number;
    time.travel = V::pinned;
    time.help = "the sample length inner: auto calibrates towards, in milliseconds";
    time.get = [](const RunSettings&, const MeasureSettings& m) { return json(m.min_sample_time_s * 1000.0); };
    time.set = [](const json& v, RunSettings&, MeasureSettings& m) { m.min_sample_time_s = v.get<double>() / 1000.0; };
    specs.push_back(bounded(time, 0, 1e12, /*min_exclusive=*/true));
  }
  specs.push_back(one_of(measure_setting<&M::statistic>("statistic", T::choice, V::instance_table, true,
                                                        "per sample: the mean or the min of the inner launches"),
                         {"mean", "min"}));
  specs.push_back(one_of(run_setting<&R::isolation>(
                             "isolation", T::choice,
                             "sequential (one worker, back to back), interleave (one worker, reshuffled rounds) or "
                             "process (fresh workers)"),
                         {"sequential", "interleave", "process"}));
  specs.push_back(one_of(run_setting<&R::per>("per", T::choice,
                                              "isolation process: a fresh worker per sample or per batch (round)"),
                         {"sample", "batch"}));
  specs.push_back(run_setting<&R::seed>("seed", T::seed, "seed of the schedule and of every instance's inputs"));
  specs.push_back(one_of(measure_setting<&M::timer>("timer", T::choice, V::instance_table, true,
                                                    "CUDA timer: events around the launches, or the launches "
                                                    "captured in a CUDA graph"),
                         {"events", "graph"}));
  // Chunking measures the same per-launch time as one graph of all launches (replays queued back
  // to back run as one), so runs with and without it stay comparable: not a sample-changing
  // setting, and plans from before it (full capture) pair with new ones.
  {
    SettingSpec chunk = bounded(measure_setting<&M::graph_chunk>(
                                    "graph_chunk", T::integer, V::instance_table, false,
                                    "timer graph, statistic mean: capture at most this many launches into the graph "
                                    "and replay it as often as a sample needs (0: capture all inner launches)"),
                                0, INT_MAX);
    chunk.before_it_existed = 0;  // one graph of all inner launches: a resumed old run goes on so
    specs.push_back(chunk);
  }
  specs.push_back(measure_setting<&M::cold_cache>("cold_cache", T::boolean, V::instance_table, true,
                                                  "flush L2 before each sample (forces inner 1)"));
  specs.push_back(measure_setting<&M::cold_launches>(
      "cold_launches", T::boolean, V::instance_table, true,
      "flush L2 before every launch and time each launch between its own events (triton.testing.do_bench's "
      "way); the sample is their mean (min with statistic min); inner as set, auto included"));
  specs.push_back(bounded(measure_setting<&M::rotate_buffers>("rotate_buffers", T::integer, V::instance_table, true,
                                                              "copies of every input, cycled through"),
                          1, INT_MAX));
  specs.push_back(measure_setting<&M::blocking_kernel>("blocking_kernel", T::boolean, V::instance_table, true,
                                                       "queue the launches behind a kernel that holds the stream "
                                                       "until all are queued"));
  // A slowdown is the injected regression a power experiment compares against: not a setting
  // whose difference makes two instances incomparable.
  specs.push_back(bounded(measure_setting<&M::slowdown_pct>("slowdown_pct", T::number, V::instance_table, false,
                                                            "inject a real extra cost per launch, in percent"),
                          0, 1e6));
  {
    SettingSpec record = measure_setting<&M::record_kernels>(
        "record_kernels", T::boolean, V::instance_table, false,
        "record the CUDA kernels each instance runs (CUPTI, one untimed pass per worker after warm-up) into "
        "kernels.json; compare and ab then say when the two sides ran different kernels");
    record.bare_flag = true;
    specs.push_back(record);
  }
  // A pause is seconds at most: the bound keeps a typo from parking every worker for hours.
  specs.push_back(bounded(measure_setting<&M::idle_gap_ms>("idle_gap_ms", T::number, V::instance_table, true,
                                                           "milliseconds the worker idles (host and device) before "
                                                           "each sample, untimed"),
                          0, 60000, false, "one minute"));
  specs.push_back(measure_setting<&M::realloc>("realloc", T::boolean, V::instance_table, true,
                                               "set every instance up again (fresh buffers, same inputs) before "
                                               "each sample, untimed"));
  return specs;
}

std::string expected(const SettingSpec& spec, const json& v) {
  switch (spec.type) {
    case SettingType::integer:
    case SettingType::seed: return "expected an integer, got " + v.dump();
    case SettingType::number: return "expected a number, got " + v.dump();
    case SettingType::boolean: return "expected true or false, got " + v.dump();
    case SettingType::inner: return "expected \"auto\" or an integer, got " + v.dump();
    case SettingType::choice: break;
  }
  std::string list;
  for (const auto c : spec.choices) list += (list.empty() ? "" : ", ") + std::string(c);
  return "must be one of " + list + ", got " + v.dump();
}

// The bound of `spec` that `x` breaks, as a message; empty when none.
std::string bound_problem(const SettingSpec& spec, double x, const json& v) {
  if (spec.min_exclusive ? x <= spec.min : x < spec.min)
    return (spec.min_exclusive ? "must be greater than " : "must be at least ") + number_text(spec.min) + ", got " +
           v.dump();
  if (x > spec.max)
    return "must be at most " + number_text(spec.max) +
           (spec.max_note.empty() ? "" : " (" + std::string(spec.max_note) + ")") + ", got " + v.dump();
  return {};
}

// The value, checked and in its stored type; empty problem when valid.
std::string validate(const SettingSpec& spec, const json& v, json& out) {
  switch (spec.type) {
    case SettingType::inner:
      if (v.is_string() && v.get<std::string>() == "auto") {
        out = v;
        return {};
      }
      [[fallthrough]];
    case SettingType::integer: {
      const json n = integral(v);
      if (!n.is_number_integer()) return expected(spec, v);
      if (n.is_number_unsigned() && n.get<std::uint64_t>() > static_cast<std::uint64_t>(spec.max))
        return bound_problem(spec, spec.max + 1, v);
      const auto x = n.get<long long>();
      if (auto problem = bound_problem(spec, static_cast<double>(x), v); !problem.empty()) return problem;
      out = x;
      return {};
    }
    case SettingType::seed: {
      const json n = integral(v);
      if (!n.is_number_integer()) return expected(spec, v);
      if (!n.is_number_unsigned() && n.get<long long>() < 0) return "must be at least 0, got " + v.dump();
      out = n.get<std::uint64_t>();
      return {};
    }
    case SettingType::number: {
      if (!v.is_number()) return expected(spec, v);
      const double x = v.get<double>();
      if (!std::isfinite(x)) return "must be finite, got " + v.dump();
      if (auto problem = bound_problem(spec, x, v); !problem.empty()) return problem;
      out = x;
      return {};
    }
    case SettingType::boolean:
      if (!v.is_boolean()) return expected(spec, v);
      out = v;
      return {};
    case SettingType::choice:
      if (v.is_string() && std::find(spec.choices.begin(), spec.choices.end(), v.get<std::string>()) != spec.choices.end()) {
        out = v;
        return {};
      }
      return expected(spec, v);
  }
  return expected(spec, v);
}

}  // namespace

std::string SettingSpec::flag() const {
  std::string f = "--" + std::string(name);
  std::replace(f.begin(), f.end(), '_', '-');
  return f;
}

const std::vector<SettingSpec>& setting_specs() {
  static const std::vector<SettingSpec> specs = make_specs();
  return specs;
}

const SettingSpec* find_setting(std::string_view name) {
  for (const auto& spec : setting_specs())
    if (spec.name == name) return &spec;
  return nullptr;
}

std::vector<std::string> setting_names(std::optional<SettingScope> scope) {
  std::vector<std::string> names;
  for (const auto& spec : setting_specs())
    if (!scope || spec.scope == *scope) names.emplace_back(spec.name);
  return names;
}

std::vector<const SettingSpec*> sample_changing_settings() {
  std::vector<const SettingSpec*> specs;
  for (const auto& spec : setting_specs())
    if (spec.changes_sample && spec.travel == SettingTravel::instance_table) specs.push_back(&spec);
  return specs;
}

std::string apply_setting(const SettingSpec& spec, const json& value, RunSettings& run, MeasureSettings& measure) {
  json checked;
  if (auto problem = validate(spec, value, checked); !problem.empty()) return problem;
  spec.set(checked, run, measure);
  return {};
}

json setting_value_from_text(const SettingSpec& spec, const std::string& text) {
  const char* first = text.data();
  const char* last = first + text.size();
  switch (spec.type) {
    case SettingType::boolean:
      if (text == "true" || text == "1") return true;
      if (text == "false" || text == "0") return false;
      return text;
    case SettingType::integer:
    case SettingType::seed:
    case SettingType::inner: {
      long long x = 0;
      if (auto [end, ec] = std::from_chars(first, last, x); ec == std::errc() && end == last) return x;
      unsigned long long u = 0;
      if (auto [end, ec] = std::from_chars(first, last, u); ec == std::errc() && end == last) return u;
      return text;
    }
    case SettingType::number: {
      double x = 0;
      if (auto [end, ec] = std::from_chars(first, last, x); ec == std::errc() && end == last) return x;
      return text;
    }
    case SettingType::choice: break;
  }
  return text;
}

std::string setting_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", value.get<double>());
    return buf;
  }
  return value.dump();
}

void finalize(MeasureSettings& measure) {
  // each sample is one launch after a flush; cold_launches flushes before every launch instead
  if (measure.cold_cache && !measure.cold_launches) measure.inner = 1;
}

json instance_table_json(const MeasureSettings& measure) {
  json j = json::object();
  const RunSettings none;
  for (const auto& spec : setting_specs())
    if (spec.travel == SettingTravel::instance_table) j[std::string(spec.name)] = spec.get(none, measure);
  return j;
}

MeasureSettings instance_table_settings(const json& j) {
  MeasureSettings measure;
  RunSettings unused;
  for (const auto& spec : setting_specs()) {
    if (spec.travel != SettingTravel::instance_table) continue;
    const std::string name(spec.name);
    if (!j.contains(name) && spec.before_it_existed.is_null()) continue;  // written before the setting existed
    const json& value = j.contains(name) ? j.at(name) : spec.before_it_existed;
    if (auto problem = apply_setting(spec, value, unused, measure); !problem.empty())
      throw std::runtime_error(name + ": " + problem);
  }
  return measure;
}

json MeasureSettings::to_json() const {
  json j = json::object();
  const RunSettings none;
  for (const auto& spec : setting_specs())
    if (spec.scope == SettingScope::measure) j[std::string(spec.name)] = spec.get(none, *this);
  return j;
}

json RunSettings::to_json() const {
  json j = json::object();
  for (const auto& spec : setting_specs())
    if (spec.scope == SettingScope::run) j[std::string(spec.name)] = spec.get(*this, measure);
  j["measure"] = measure.to_json();
  return j;
}

}  // namespace isobench::ipc
