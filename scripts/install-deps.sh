#!/usr/bin/env bash
# Installs isobench's build dependencies from the distribution's packages: Debian 12 and Ubuntu
# 24.04. Safe to run again: it only calls apt-get when something is missing. The CUDA toolkit
# (nvcc, cuBLAS) is used when present.
#   scripts/install-deps.sh          what the build and the whole test suite need (CI)
#   scripts/install-deps.sh --build  what building and running orchestrate needs (scripts/quickstart.sh)
# Elsewhere (Ubuntu 22.04 has Boost 1.74; isobench needs 1.80 or newer for Process v2) it says what
# to do and exits 2: install the wheel (pip install isobench-*.whl; docs/install.md), which needs
# none of these.
set -euo pipefail

scope=all
case "${1:-}" in
  "") ;;
  --build) scope=build ;;
  *) echo "install-deps: unknown option '$1' (expected --build or nothing)" >&2; exit 2 ;;
esac

id="" version=""
if [ -r /etc/os-release ]; then
  id=$(. /etc/os-release && echo "${ID:-}")
  version=$(. /etc/os-release && echo "${VERSION_ID:-}")
fi
case "$id $version" in
  "debian 12")    boost=libboost1.81-dev; chromium=chromium ;;
  "ubuntu 24.04") boost=libboost1.83-dev; chromium="" ;;  # Ubuntu's chromium is a snap: test_report needs one on PATH
  *)
    echo "install-deps: ${id:-this system} ${version} is not one this script knows (Debian 12, Ubuntu 24.04)." >&2
    echo "  isobench needs Boost 1.80 to 1.89 (headers), nlohmann/json >= 3.10, CLI11, yaml-cpp, SQLite and CMake >= 3.25;" >&2
    echo "  where the distribution has no Boost >= 1.80 (Ubuntu 22.04 has 1.74, RHEL 9 1.75), install the wheel instead:" >&2
    echo "  pip install isobench-*.whl (docs/install.md), which needs none of them." >&2
    exit 2 ;;
esac

packages=(
  build-essential cmake ninja-build pkg-config
  "$boost"                # Process v2, Interprocess, Math (headers)
  nlohmann-json3-dev libcli11-dev libyaml-cpp-dev
  ccache                  # scripts/build.sh compiles through it: a second build of the same sources is minutes shorter
  libsqlite3-dev          # the history file (orchestrate history)
  python3                 # command benchmarks; Python benchmarks: the zygote and the isobench package
)
if [ "$scope" = all ]; then
  packages+=(
    doctest-dev
    python3-jsonschema    # tools/check_trace.py checks iteration traces against the trace format's schema (trace_schema)
    python3-pip           # pytest for the pytest bridge's tests (below)
    python3-venv          # the pytest plugin venvs of the pytest suites' tests (below)
    libxml2-utils         # xmllint: test_ci_printers checks --junit output against tests/orchestrator/junit.xsd
    fonts-dejavu-core
  )
  # test_report opens the HTML report in headless Chromium (about 30 s to install)
  [ -n "$chromium" ] && packages+=("$chromium")
fi
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
if [ "$scope" = all ]; then
  # The pytest bridge's tests (tests/python/test_pytest_bridge.py, tests/integration/test_pytest_bridge.cpp)
  # collect and run pytest files: a current pytest from pip (the H200 has one; Debian's
  # python3-pytest is 7.2), into the system's python3, which CI runs them with.
  if ! python3 -c "import pytest, sys; sys.exit(int(pytest.__version__.split('.')[0]) < 8)" >/dev/null 2>&1; then
    echo "install-deps: installing pytest (pip)"
    python3 -m pip install --quiet "pytest>=8" 2>/dev/null || python3 -m pip install --quiet --break-system-packages "pytest>=8"
  fi
  # The pytest suites' tests (tests/python/test_pytest_suites.py, tests/integration/test_pytest_suites.cpp)
  # run a suite configured as projects configure theirs where pytest-benchmark and pytest-codspeed
  # (and pytest-cov) are installed, and where pytest-codspeed alone is: two venvs, made once per machine (1.5 min and
  # 100 MB on the 2-core CI machine, most of it pip's downloads) under $ISOBENCH_TEST_VENVS, else
  # $XDG_CACHE_HOME/isobench/test-venvs, else ~/.cache/isobench/test-venvs; python3's own packages
  # are left as they are.
  venvs="${ISOBENCH_TEST_VENVS:-${XDG_CACHE_HOME:-$HOME/.cache}/isobench/test-venvs}"
  for venv in "benchmark-codspeed:pytest-benchmark pytest-codspeed pytest-cov" "codspeed:pytest-codspeed"; do
    name=${venv%%:*}
    modules=$(echo "${venv#*:}" | tr ' -' ',_')
    if ! "$venvs/$name/bin/python" -c "import pytest, $modules" >/dev/null 2>&1; then
      echo "install-deps: making the test venv $venvs/$name (pip: pytest ${venv#*:})"
      rm -rf "${venvs:?}/$name"
      python3 -m venv "$venvs/$name"
      # shellcheck disable=SC2086  # the package names are words
      "$venvs/$name/bin/python" -m pip install --quiet "pytest>=8" ${venv#*:}
    fi
  done
  if [ -z "$chromium" ] && ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    echo "install-deps: no chromium: test_report needs /usr/bin/chromium or /usr/bin/chromium-browser (Ubuntu: apt install chromium-browser, which installs the snap)"
  fi
fi
if command -v nvcc >/dev/null 2>&1 || [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "install-deps: CUDA toolkit found: the GPU kernels will be built"
else
  echo "install-deps: no CUDA toolkit: building the CPU backend only"
fi
