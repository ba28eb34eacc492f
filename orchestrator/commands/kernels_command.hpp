#pragma once
// `orchestrate kernels`: the kernel catalog, what a sweep may name under `kernel:` and write
// under `axes:` (docs/sweep-format.md). Every built-in kernel, and every kernel of the plugins
// named with --plugin, with its backend, family and description, and each axis's type, default
// (or none: the sweep must give a value), bounds or choices and help.
//
//   orchestrate kernels [--plugin LIB]... [--json]
//
// Exit codes: 0 listed; 2 bad input (a plugin that does not load: one line naming it).

#include <iosfwd>
#include <string>
#include <vector>

#include "orchestrator/printers/printer.hpp"  // kKernelsSchemaVersion, the version of --json's document

namespace CLI {
class App;
}

namespace isobench::orchestrator {

struct KernelsOptions {
  std::vector<std::string> plugins;  // libraries whose kernels are listed after the built-in ones
  bool json = false;
};

// Prints the catalog (orchestrator/printers/: text, or JSON with --json); returns the process
// exit code (0 or 2).
int run_kernels(const KernelsOptions& options, std::ostream& out, std::ostream& err);

// Adds the `kernels` subcommand; its callback stores run_kernels's result in exit_code.
void register_kernels_command(CLI::App& app, int& exit_code);

}  // namespace isobench::orchestrator
