"""Shared helpers of the stand-in scripts, shaped like a benchmark-script suite's utils module: a
run input per (x, provider, mode), run_benchmarks looping over them and writing the results to
../data/all_benchmark_data.csv relative to this file. FAKE_LIGER_LOG, when set, names a file each
run appends its progress to ("call KERNEL PROVIDER MODE X KIND PID" per timing call returned,
"csv PATH PID" when the CSV is written)."""

import argparse
import csv
import os
from dataclasses import dataclass
from typing import Any, Optional

from triton.testing import do_bench  # bound by name when imported: isobench's must be there by then

QUANTILES = [0.5, 0.2, 0.8]


@dataclass
class SingleBenchmarkRunInput:
    x: Any
    kernel_provider: str
    kernel_operation_mode: Optional[str] = ""
    extra_benchmark_config: Optional[dict] = None


def log(*words):
    path = os.environ.get("FAKE_LIGER_LOG")
    if path:
        with open(path, "a") as f:
            f.write(" ".join(str(w) for w in words) + " %d\n" % os.getpid())


def measure(fn):
    """The quantiles of fn's time, through Triton's timer: a list of three."""
    return do_bench(fn, rep=10, quantiles=QUANTILES)


def run_benchmarks(bench_test_fn, kernel_name, x_values, kernel_providers, kernel_operation_modes=("",),
                   extra_benchmark_configs=(None,), data_file="all_benchmark_data.csv"):
    rows = []
    for extra in extra_benchmark_configs:
        for mode in kernel_operation_modes:
            for provider in kernel_providers:
                for x in x_values:
                    run_input = SingleBenchmarkRunInput(x, provider, mode, extra)
                    median, low, high = bench_test_fn(run_input)
                    rows.append([kernel_name, provider, mode, x, median, low, high])
    folder = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, data_file)
    with open(path, "a", newline="") as f:
        csv.writer(f).writerows(rows)
    log("csv", os.path.realpath(path))


def parse_benchmark_script_args():
    parser = argparse.ArgumentParser(description="a stand-in benchmark script")
    parser.add_argument("--x-values", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--modes", nargs="+", default=["forward", "full"], choices=["forward", "backward", "full"])
    return parser.parse_args()
