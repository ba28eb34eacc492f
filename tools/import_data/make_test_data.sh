#!/usr/bin/env bash
# Writes tests/data/import/: results of the real Google Benchmark (Debian's libbenchmark-dev) and
# pytest-benchmark (PyPI) for `orchestrate import`'s tests, and an nvbench file laid out as
# nvbench writes it (nvbench_example.py says why it is not nvbench's own). Run from the
# repository root; needs g++, libbenchmark-dev and a Python with pytest and pytest-benchmark:
#   PYTHON=/tmp/venv/bin/python tools/import_data/make_test_data.sh
set -euo pipefail
out=tests/data/import
python=${PYTHON:-python3}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
g++ -O2 -std=c++17 tools/import_data/google_benchmark_example.cpp -lbenchmark -lpthread -o "$work/gb"
"$work/gb" --benchmark_repetitions=5 --benchmark_min_time=0.01 \
  --benchmark_out="$out/google_benchmark.json" --benchmark_out_format=json >/dev/null
"$work/gb" --benchmark_min_time=0.01 --benchmark_filter=BM_sum \
  --benchmark_out="$out/google_benchmark_single.json" --benchmark_out_format=json >/dev/null
"$work/gb" --benchmark_repetitions=3 --benchmark_min_time=0.01 --benchmark_report_aggregates_only=true \
  --benchmark_out="$out/google_benchmark_aggregates.json" --benchmark_out_format=json >/dev/null
cp tools/import_data/test_pytest_benchmark_example.py "$work/"
(cd "$work" && "$python" -m pytest -q -p no:cacheprovider test_pytest_benchmark_example.py \
   --benchmark-min-rounds=5 --benchmark-max-time=0.0005 --benchmark-save-data --benchmark-json=pytest_benchmark.json >/dev/null)
# --benchmark-json always holds every round; a file saved to the storage (--benchmark-save)
# holds them only with --benchmark-save-data: without it, the summary alone.
(cd "$work" && "$python" -m pytest -q -p no:cacheprovider test_pytest_benchmark_example.py \
   --benchmark-min-rounds=5 --benchmark-max-time=0.0005 --benchmark-storage="file://$work/storage" \
   --benchmark-save=summary >/dev/null)
cp "$work/pytest_benchmark.json" "$out/"
cp "$(find "$work/storage" -name '*summary.json')" "$out/pytest_benchmark_summary.json"
"$python" tools/import_data/nvbench_example.py "$out"
ls -l "$out"
