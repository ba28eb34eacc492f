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
  sanitize) dir=build-sanitize; args=(-DCMAKE_BUILD_TYPE=Debug -DISOBENCH_SANITIZE=ON -DISOBENCH_CUDA=OFF) ;;
  device)   dir=build-device;   args=(-DCMAKE_BUILD_TYPE=Release -DISOBENCH_STATIC_RUNTIME=ON -DCMAKE_CUDA_ARCHITECTURES=90) ;;
  *) echo "build.sh: unknown flavour '$flavour' (release, sanitize, device)" >&2; exit 2 ;;
esac
cmake -S . -B "$dir" -G Ninja "${args[@]}" >/dev/null
cmake --build "$dir" -j "$jobs"
