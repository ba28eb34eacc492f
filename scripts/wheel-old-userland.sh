#!/usr/bin/env bash
# A wheel in an older userland than the one it was built on: a Debian 11 chroot (glibc 2.31,
# Python 3.9), where scripts/wheel-check.sh installs the wheel given (ISOBENCH_WHEEL) into a venv
# and runs what it runs in CI: --version, the quick sweep's CPU part, a Python benchmark sweep,
# ab --pytest and the one-line refusal of a GPU sweep. Debian's archive no longer serves Debian 10
# (glibc 2.28), so 2.31 is the oldest glibc this can run (docs/install.md, "Which glibc").
# The chroot is made by debootstrap the first time, in build-wheel/debian11 (apt-get install
# debootstrap); it runs in a mount namespace of its own (/proc, /dev, /dev/shm, the
# checkout read-only at /src), so no mount outlives it. Needs root. Not in CI: it downloads the
# chroot.
#   scripts/wheel-old-userland.sh [WHEEL]     (default: the CPU wheel scripts/build.sh wheel made;
#                                             a CUDA one runs its CPU part: there is no GPU here)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
wheel=$(realpath "${1:-$(ls build-wheel/cpu/wheelhouse/isobench-*.whl)}")
tree=$root/build-wheel/debian11
command -v debootstrap >/dev/null || { echo "wheel-old-userland.sh: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
if [ ! -x "$tree/usr/bin/python3" ]; then
  debootstrap --variant=minbase \
    --include=python3,python3-venv,python3-pip,python3-pytest,python3-pytest-benchmark,binutils \
    bullseye "$tree" "$(scripts/debian-mirror.sh)"
fi
mkdir -p "$tree/src" "$tree/wheel"
rm -f "$tree"/wheel/*.whl
cp "$wheel" "$tree/wheel/"
echo "wheel-old-userland: $(chroot "$tree" ldd --version | head -1), $(chroot "$tree" python3 --version)"
unshare --mount --propagation private -- sh -euc '
  tree=$1 root=$2 wheel=$3
  mount -t proc proc "$tree/proc"
  mount --bind /dev "$tree/dev"
  mount -t tmpfs tmpfs "$tree/dev/shm"
  mount --bind "$root" "$tree/src"
  mount -o remount,bind,ro "$tree/src"
  exec chroot "$tree" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 ISOBENCH_WHEEL="/wheel/$wheel" \
    bash /src/scripts/wheel-check.sh /tmp/wheel-check
' sh "$tree" "$root" "$(basename "$wheel")"
