#pragma once
// `compare` on run directories: which archived artifacts (artifacts.json) differ between the
// baseline (A) and the candidate (B). A listing beside the verdicts, which it never changes: a
// different IR or autotuning decision explains a verdict, it is not one.

#include <cstddef>
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "orchestrator/artifacts.hpp"

namespace isobench::orchestrator {

struct ArtifactChange {
  // source_locations: Triton IR whose only difference is where its source lies (file paths,
  // lines, columns: compare/ir_locations.hpp), e.g. one kernel file in two checkouts.
  enum class Kind { content, source_locations, only_a, only_b };
  std::string instance;
  std::string path;
  Kind kind = Kind::content;
  ArtifactFile a, b;  // the side that lacks the file leaves its entry empty
};

struct ArtifactComparison {
  bool available = false;                  // both sides have an artifacts.json
  std::size_t files_a = 0, files_b = 0;    // archived files of the instances compared
  std::vector<ArtifactChange> changes;     // in the order of the ids given, then by path
  // Printed only when there is something to say, so runs without artifacts compare as before.
  bool shown() const { return available && files_a + files_b > 0; }
};

// The files of `ids` on side A against side B.
ArtifactComparison compare_artifacts(const ArtifactSide& a, const ArtifactSide& b, const std::vector<std::string>& ids);

// The artifacts of the runs `compare` was given: one A/B run (side 0 against side 1) or two runs
// (side 0 of each). Not available when either has no artifacts.json (a run from before
// artifacts existed); a malformed one is a UsageError naming the file. Triton IR files that
// differ are read from the instance folders, and those equal but for their source locations
// are marked so.
ArtifactComparison compare_run_artifacts(const std::vector<std::string>& runs, const std::vector<std::string>& ids);

// The instances whose Triton TTGIR (triton/.../*.ttgir, python/isobench/triton_ir.py) differs
// between the sides, in the comparison's order: the line compare prints and "ttgir_differ" in JSON.
// A TTGIR that differs only in source locations is not among them: it is in
// ttgir_location_differences ("ttgir_differ_in_locations_only").
std::vector<std::string> ttgir_differences(const ArtifactComparison& comparison);
std::vector<std::string> ttgir_location_differences(const ArtifactComparison& comparison);
// The instances whose autotune choices differ between the sides: their triton_autotune.json
// (python/isobench/autotune.py, ChoiceWatch) differs or one side lacks it; "autotune_differ" in JSON.
inline constexpr const char* kAutotuneChoicesFile = "triton_autotune.json";
std::vector<std::string> autotune_differences(const ArtifactComparison& comparison);
// The lines that name them: "autotune choices differ for 1 instance: a (...)", "TTGIR differs for 2
// instances: a, b (orchestrate ir-diff ...)", then "TTGIR differs only in source locations (file
// paths, lines) for 1 instance: c"; none when none.
std::vector<std::string> ttgir_lines(const ArtifactComparison& comparison);

// The printers' pieces: the JSON value of "artifacts", the text section of the terminal and
// markdown outputs, and the CSV cell of one instance (its changed paths, "; "-separated).
nlohmann::json artifact_changes_json(const ArtifactComparison& comparison);
void print_artifact_changes(const ArtifactComparison& comparison, bool markdown, std::ostream& out);
std::string artifact_changes_cell(const ArtifactComparison& comparison, const std::string& instance);

}  // namespace isobench::orchestrator
