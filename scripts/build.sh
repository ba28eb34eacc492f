#!/usr/bin/env bash
# Configures and builds one flavour of isobench.
#   scripts/build.sh release    build/            Release, CUDA when the toolkit is there
#   scripts/build.sh sanitize   build-sanitize/   host code with AddressSanitizer + UBSan
#   scripts/build.sh device     build-device/     Release for the H200: static libstdc++,
#                                                 cuBLAS dynamic (docs/device.md)
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
jobs=${JOBS:-$(nproc)}
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi
case "$flavour" in
  release)  dir=build;          args=(-DCMAKE_BUILD_TYPE=Release) ;;
  # -O1 -g1: ASan's advice for a usable speed, line tables for its stack traces (full -g and -O0
  # made the sanitizer build and its tests the larger part of CI's time).
  sanitize) dir=build-sanitize; args=(-DCMAKE_BUILD_TYPE=Debug -DISOBENCH_SANITIZE=ON -DISOBENCH_CUDA=OFF
                                      "-DCMAKE_CXX_FLAGS_DEBUG=-O1 -g1") ;;
  device)   dir=build-device;   args=(-DCMAKE_BUILD_TYPE=Release -DISOBENCH_STATIC_RUNTIME=ON -DCMAKE_CUDA_ARCHITECTURES=90) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, sanitize, device)" >&2; exit 2 ;;
esac
# ccache, where installed, serves objects compiled before, in this checkout or another: paths are
# taken relative to the checkout (CCACHE_BASEDIR) and the build folder is not hashed, so a fresh
# clone of the same sources hits the cache that an earlier one filled.
if command -v ccache >/dev/null 2>&1 && [ "${ISOBENCH_CCACHE:-1}" != 0 ]; then
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$PWD} CCACHE_NOHASHDIR=1
  args+=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
