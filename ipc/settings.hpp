#pragma once
// Every setting a run takes, declared once: its name (the sweep's key, and --name-with-dashes on
// the command line), type, bounds, default, help, whether it belongs to the run or to each
// instance, and whether it changes what a sample measures. The sweep loader, the command line,
// calibrate's variants, the plan, the instance table the worker reads and compare's "measured
// alike" check all go through this table; nothing else spells a setting's rule.
//
// It lives in ipc/ because the measurement settings cross the segment: the orchestrator writes
// them into the instance table and the worker reads them from there.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace isobench::ipc {

// Launches per CUDA graph, by default, when timer graph replays a graph of at most this many
// launches several times per sample instead of capturing all of them (graph_chunk; 0: all).
// Capturing a Python benchmark's thousands of tiny launches costs a fresh worker a Python call
// per launch and an instantiation of that many nodes; a graph of 1024 costs a fraction of it and
// its replays, queued back to back, run as one. docs/measurement.md, "timer: graph".
inline constexpr int kDefaultGraphChunk = 1024;

// How one instance is measured: what the worker's timer needs.
struct MeasureSettings {
  int warmup = 3;
  std::optional<int> inner;           // nullopt: calibrated ("auto"); cold_cache forces 1 (not with cold_launches)
  double min_sample_time_s = 0.010;   // the sample length "auto" calibrates towards
  std::string statistic = "mean";     // mean | min
  std::string timer = "graph";        // graph | events: docs/measurement.md says why graph
  int graph_chunk = kDefaultGraphChunk;  // timer graph, statistic mean: launches per captured graph (0: all)
  bool cold_cache = false;
  bool cold_launches = false;  // an L2 flush before every launch, each launch timed alone
  int rotate_buffers = 1;
  bool blocking_kernel = false;
  double slowdown_pct = 0;
  bool record_kernels = false;
  double idle_gap_ms = 0;  // host sleep before each sample, outside the timed region
  bool realloc = false;    // destroy and set up the instance again before each sample

  bool operator==(const MeasureSettings&) const = default;
  nlohmann::json to_json() const;  // every measurement setting by name, as a sweep spells it
};

// The run's own settings, and the measurement settings every instance starts from.
struct RunSettings {
  int samples = 20;  // docs/measurement.md: 90% power at a 5% slowdown on the H200 with the graph timer
  std::string isolation = "process";  // sequential | interleave | process
  std::string per = "batch";          // sample | batch (isolation: process)
  std::uint64_t seed = 1;
  MeasureSettings measure;

  nlohmann::json to_json() const;  // the run settings by name, and "measure"
};

enum class SettingScope {
  run,      // one value for the run: top-level settings or the command line
  measure,  // per instance: also in a benchmark's own settings
};

enum class SettingType {
  integer,   // within [min, max]
  seed,      // an unsigned 64-bit integer
  number,    // finite, within [min, max] (min exclusive when min_exclusive)
  boolean,
  choice,    // one of `choices`
  inner,     // "auto" or an integer >= 1
};

// Where a measurement setting reaches the worker.
enum class SettingTravel {
  none,            // a run setting, or one the orchestrator alone uses
  instance_table,  // in the instance table's JSON, one value per instance
  pinned,          // in the segment's binary InstanceEntry (warm-up, the pinned inner count)
};

struct SettingSpec {
  std::string_view name;
  SettingScope scope;
  SettingType type;
  double min = 0, max = 0;
  bool min_exclusive = false;
  std::string_view max_note;  // what the upper bound amounts to, for messages ("one minute")
  std::vector<std::string_view> choices;
  SettingTravel travel = SettingTravel::none;
  // Instances whose values differ measure different things: compare never pairs them.
  bool changes_sample = false;
  // On the command line a bare flag that sets true (--record-kernels), not --name VALUE.
  bool bare_flag = false;
  // What an instance table (a plan.json) written before the setting existed measured with, where
  // that is not the default; null: the default.
  nlohmann::json before_it_existed;
  std::string_view help;
  // The setting's value, and its validated value stored back (run settings: in `run`;
  // measurement settings: in `measure`).
  nlohmann::json (*get)(const RunSettings& run, const MeasureSettings& measure);
  void (*set)(const nlohmann::json& value, RunSettings& run, MeasureSettings& measure);

  std::string flag() const;  // "--idle-gap-ms"
};

// In the order sweeps document them.
const std::vector<SettingSpec>& setting_specs();
const SettingSpec* find_setting(std::string_view name);
std::vector<std::string> setting_names(std::optional<SettingScope> scope = std::nullopt);
// The settings that make two instances measure different things, as each instance's entry in
// plan.json holds them: compare never pairs instances that differ in one, and --like takes them.
std::vector<const SettingSpec*> sample_changing_settings();

// Checks a value against the setting's rule and stores it; empty when it was valid, else the
// problem ("must be at most 60000 (one minute), got 70000"). A number written as 1.0 or 1e3 on
// an integer setting is that integer.
std::string apply_setting(const SettingSpec& spec, const nlohmann::json& value, RunSettings& run,
                          MeasureSettings& measure);

// A value typed on a command line or in a variant ("12", "auto", "true", "0.5") as the JSON
// value it stands for.
nlohmann::json setting_value_from_text(const SettingSpec& spec, const std::string& text);

// The value's text as a command line or a variant name spells it ("50", "true", "graph").
std::string setting_text(const nlohmann::json& value);

// Settings a cold cache implies: each sample is one launch after a flush.
void finalize(MeasureSettings& measure);

// The measurement settings that travel in the instance table, by name. A field absent from
// `j` (a plan written before the setting existed) takes the value such plans measured with
// (SettingSpec::before_it_existed, else the default); one present is checked by the setting's
// rule. Throws std::runtime_error naming the field.
nlohmann::json instance_table_json(const MeasureSettings& measure);
MeasureSettings instance_table_settings(const nlohmann::json& j);

}  // namespace isobench::ipc
