#!/usr/bin/env bash
# Fresh machine to first results: installs the dependencies, builds, and runs the quick sweep
# in fresh worker processes (GPU kernels when a GPU is present, CPU kernels otherwise).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
exec build/bin/orchestrate --isolation process configs/quick.yaml "$@"
