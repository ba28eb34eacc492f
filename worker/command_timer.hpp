#pragma once
// Any program as a benchmark (docs/command-protocol.md). One launch is one fresh invocation of
// the user's program with the instance's parameters in its environment; the sample is the time
// the program itself measured and printed as protocol lines on stdout, not the invocation's
// wall time. The process is the unit of replication, so the plan pins inner to 1.

#include <memory>
#include <string>
#include <vector>

#include "ipc/instance_table.hpp"
#include "kernels/benchmark.hpp"
#include "timer.hpp"

namespace isobench::worker {

inline constexpr int kCommandProtocolVersion = 1;

// The values (seconds) in the protocol lines of a program's stdout, in order. Other lines are
// ignored. Throws std::runtime_error on a protocol line of another version, or a value that is
// not a positive finite number. Empty when no protocol line was printed.
std::vector<double> parse_protocol_output(const std::string& stdout_text);

// The benchmark of a "command" instance: launch() runs the program once and throws
// std::runtime_error when it fails (non-zero exit, a signal, no sample, a bad sample).
std::unique_ptr<kernels::Benchmark> make_command_benchmark(const ipc::WorkerInstance& instance);

// Times a command benchmark: one invocation per sample; several protocol lines from one
// invocation reduce to their mean or min (options.statistic). `bench` must come from
// make_command_benchmark.
std::unique_ptr<Timer> make_command_timer(kernels::Benchmark& bench, const TimerOptions& options);

}  // namespace isobench::worker
