"""A stand-in benchmark script (run as `python benchmark_norm.py [--x-values N...] [--modes M...]`):
a "norm" kernel of two providers, reference and liger, whose work is a spin of x/4 us per pass
(a backward pass twice that). FAKE_LIGER_SLOW=PROVIDER/MODE doubles that provider's work in that
mode: the planted regression of an A/B."""

import os
import time

from utils import SingleBenchmarkRunInput, log, measure, parse_benchmark_script_args, run_benchmarks

SLOW = os.environ.get("FAKE_LIGER_SLOW", "")


def spin(us):
    end = time.perf_counter() + us * 1e-6
    while time.perf_counter() < end:
        pass


def norm(run_input: SingleBenchmarkRunInput, passes):
    us = run_input.x / 4 * passes
    if SLOW == "%s/%s" % (run_input.kernel_provider, run_input.kernel_operation_mode):
        us *= 2
    spin(us)


def bench_speed_norm(run_input):
    passes = {"forward": 1, "backward": 2, "full": 3}[run_input.kernel_operation_mode]
    quantiles = measure(lambda: norm(run_input, passes))
    log("call", "norm", run_input.kernel_provider, run_input.kernel_operation_mode, run_input.x,
        "list%d" % len(quantiles))
    return quantiles


if __name__ == "__main__":
    args = parse_benchmark_script_args()
    run_benchmarks(bench_speed_norm, kernel_name="norm", x_values=args.x_values,
                   kernel_providers=["reference", "liger"], kernel_operation_modes=args.modes)
    log("end")
