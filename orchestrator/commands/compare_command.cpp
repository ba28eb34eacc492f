#include "orchestrator/commands/compare_command.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

namespace isobench::orchestrator {

void add_verdict_options(CLI::App& app, VerdictRule& rule) {
  app.add_option("--alpha", rule.alpha, "significance level, after Holm's correction across instances")
      ->capture_default_str();
  app.add_option("--threshold", rule.threshold,
                 "noise floor as a fraction: SLOWER needs the whole interval above 1+threshold, FASTER below "
                 "1/(1+threshold), SAME inside both")
      ->capture_default_str();
  app.add_option("--confidence", rule.confidence, "confidence of the Hodges-Lehmann interval")->capture_default_str();
  app.add_option_function<std::string>(
         "--fail-on",
         [&rule](const std::string& v) {
           rule.fail_on = v == "faster"       ? FailOn::faster
                          : v == "any-change" ? FailOn::any_change
                          : v == "uncertain"  ? FailOn::uncertain
                          : v == "never"      ? FailOn::never
                                              : FailOn::slower;
         },
         "which verdicts make the exit code 1: slower (default), faster, any-change, uncertain (SLOWER or "
         "UNCERTAIN: a gate that passes only what the run showed is no slower) or never")
      ->check(CLI::IsMember({"slower", "faster", "any-change", "uncertain", "never"}));
}

void print_outcome_line(const ComparisonReport& report, int exit_code, std::optional<Format> format,
                        std::ostream& out, std::ostream& err) {
  const std::string line = "outcome: " + report.outcome() + " -> exit " + std::to_string(exit_code) + "\n";
  if (format == Format::table || format == Format::markdown)
    out << (format == Format::markdown ? "\n" : "") << line;
  else if (format != Format::json)
    err << line;
}

int run_compare(const CompareOptions& options, std::ostream& out, std::ostream& err) {
  return exit_code_of("compare", err, [&] {
    std::vector<GuardedPath> inputs;
    for (const auto& dir : options.runs) inputs.push_back({"run directory", dir, true});
    for (const auto& file : options.samples) inputs.push_back({"sample file", file, false});
    check_ci_outputs(options.ci, inputs);
    const ComparisonReport report = compare(options, err);
    // Every refused instance is named before giving up, so one run shows all there is to fix.
    if (!report.gpu_refusals.empty()) {
      for (const auto& refusal : report.gpu_refusals) err << "compare: " << refusal << "\n";
      return exit_bad_input;
    }
    // On stderr like the warning, whatever the format (JSON holds it as "caveat" too).
    if (!report.caveat.empty()) err << "compare: caveat: " << report.caveat << "\n";
    if (!report.unreachable.empty()) err << "compare: warning: " << report.unreachable << "\n";
    make_printer(options.format)->comparison(out, report);
    const int code = report.exit_code();
    write_ci_outputs(options.ci, ci_report(report, "orchestrate compare", code));
    // What was left out and why, or what UNCERTAIN instances could not resolve, closes the output
    // (a comparison that decided everything needs no line).
    const bool outcome = !report.excluded.empty() || report.count(stats::Verdict::uncertain) > 0;
    if (outcome) print_outcome_line(report, code, options.format, out, err);
    // Nothing compared is an exit code 2 like bad input, and like it says why on stderr: the
    // outcome line goes there only beside CSV (on stdout beside a table, nowhere beside JSON).
    const bool outcome_on_stderr = outcome && options.format == Format::csv;
    if (code == exit_bad_input && !outcome_on_stderr) err << "compare: " << report.outcome() << "\n";
    return code;
  });
}

void register_compare_command(CLI::App& app, int& exit_code) {
  auto request = std::make_shared<CompareOptions>();
  auto& format = request->format;
  CLI::App* cmd = app.add_subcommand(
      "compare",
      "Is B slower than A? Brunner-Munzel test, Hodges-Lehmann ratio B/A with its interval, and a verdict "
      "(SLOWER / FASTER / SAME / UNCERTAIN) per benchmark instance. Two run directories were made at different "
      "times: one caveat line says that the machine's drift between them is not controlled (orchestrate ab "
      "measures a change; orchestrate --like RUN_A makes a run plan as RUN_A did). Every instance left out names "
      "its remedy. Exit code 0: no verdict named by --fail-on; 1: one is; 2: bad input, or nothing compared.");
  cmd->add_option("runs", request->runs,
                  "two run directories RUN_A RUN_B (plan.json + samples.jsonl), joined by instance id; or one "
                  "A/B run directory (orchestrate ab), baseline against candidate")
      ->expected(1, 2)
      ->type_name("RUN_A [RUN_B]");
  cmd->add_option("--samples", request->samples,
                  "compare two sample files A B instead: one time in seconds per line (blank lines and # comments "
                  "allowed) or a JSON array of numbers")
      ->expected(2);
  add_verdict_options(*cmd, request->rule);
  auto* json_flag =
      cmd->add_flag_callback("--json", [&format] { format = Format::json; }, "print JSON (the same data as the table)");
  auto* markdown_flag =
      cmd->add_flag_callback("--markdown", [&format] { format = Format::markdown; }, "print a Markdown table");
  auto* csv_flag = cmd->add_flag_callback("--csv", [&format] { format = Format::csv; }, "print CSV");
  json_flag->excludes(markdown_flag)->excludes(csv_flag);
  markdown_flag->excludes(csv_flag);
  add_ci_output_options(*cmd, request->ci);
  cmd->add_option_function<std::string>(
         "--gpu-match",
         [request](const std::string& v) {
           request->gpu_match = v == "model" ? GpuMatch::model : v == "any" ? GpuMatch::any : GpuMatch::uuid;
         },
         "run directories: where both sides' samples name their GPU, the GPUs the two sides of an instance may "
         "have run on: one and the same GPU (uuid, the default), one GPU model (model), any (any); other instances "
         "are refused (exit code 2)")
      ->check(CLI::IsMember({"uuid", "model", "any"}));
  cmd->callback([request, &exit_code] { exit_code = run_compare(*request, std::cout, std::cerr); });
}

}  // namespace isobench::orchestrator
