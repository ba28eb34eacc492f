#!/usr/bin/env bash
# Fresh machine to first results: installs what the build needs (Debian 12, Ubuntu 24.04), builds
# only orchestrate, the workers and the Python package (no tests: scripts/test.sh builds those),
# and runs the quick sweep in fresh worker processes (GPU kernels when a GPU is present, CPU
# kernels otherwise). Without root or on another distribution: pip install the wheel (docs/install.md).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --build
scripts/build.sh quick
exec "${BUILD_DIR:-build-quick}/bin/orchestrate" --isolation process configs/quick.yaml "$@"
