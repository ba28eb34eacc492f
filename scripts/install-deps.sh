#!/usr/bin/env bash
# Installs isobench's build dependencies from Debian 12 packages. Safe to run again: it only
# calls apt-get when something is missing. The CUDA toolkit (nvcc, cuBLAS) is used when present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  ccache                  # scripts/build.sh compiles through it: a second build of the same sources is minutes shorter
  libboost1.81-dev        # Process v2, Interprocess, Math (headers)
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev doctest-dev
  python3                 # command-benchmark tests; Python benchmarks: the zygote, the isobench package and
                          # their tests (test_python*, python_*), standard library only (3.11 on Debian 12)
  python3-jsonschema      # tools/check_trace.py checks iteration traces against the trace format's schema (trace_schema)
  python3-pip             # pytest for the pytest bridge's tests (below)
  libsqlite3-dev          # the history file (orchestrate history)
  libxml2-utils           # xmllint: test_summary_printers checks --junit output against tests/orchestrator/junit.xsd
  chromium fonts-dejavu-core  # test_report opens the HTML report in headless Chromium (about 30 s to install)
)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
# The pytest bridge's tests (tests/python/test_pytest_bridge.py, tests/integration/test_pytest_bridge.cpp)
# collect and run pytest files: a current pytest from pip (the H200 has one; Debian's
# python3-pytest is 7.2), into the system's python3, which CI runs them with.
if ! python3 -c "import pytest, sys; sys.exit(int(pytest.__version__.split('.')[0]) < 8)" >/dev/null 2>&1; then
  echo "install-deps: installing pytest (pip)"
  python3 -m pip install --quiet "pytest>=8" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "pytest>=8"
fi
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: CUDA toolkit found: the GPU kernels will be built"
else
  echo "install-deps: no CUDA toolkit: building the CPU backend only"
fi
