#pragma once
// Triton IR without its source locations: what is left to compare when the same kernel was
// compiled from two folders (the usual A/B of two checkouts), or moved by a line. The IR names
// its source file and line everywhere: MLIR's `loc("/path/a/kernels.py":13:0)` and `#loc = ...`
// definitions (TTIR, TTGIR), LLVM's `!dbg` attachments and `!DI...` metadata (LLIR), PTX's
// `.file`/`.loc` directives and its DWARF `.debug_*` sections. Two files equal once those are
// gone "differ only in source locations"; anything else is a real difference. The raw artifacts
// stay as the compiler wrote them: this is applied when they are compared.

#include <string>
#include <string_view>
#include <vector>

namespace isobench::orchestrator {

// The IR stage a Triton artifact path holds ("ttir", "ttgir", "llir", "ptx", "sass"), from its
// extension; empty for anything else.
std::string ir_stage_of(std::string_view path);

// `text` (a file of `stage`) with every source location removed. Stages without locations
// (sass, or an unknown one) come back unchanged.
std::string without_source_locations(std::string_view text, std::string_view stage);

// The source files the IR names (MLIR loc("..."), PTX .file, LLVM DIFile), in order of first
// appearance: what a location-only difference is between.
std::vector<std::string> ir_source_files(std::string_view text);

// How two files of one stage compare.
enum class IrDifference { identical, source_locations, real };
IrDifference compare_ir(std::string_view a, std::string_view b, std::string_view stage);

}  // namespace isobench::orchestrator
