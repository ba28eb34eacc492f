#!/usr/bin/env bash
# Downloads packages of Debian 13 (trixie; main, contrib and non-free) into a folder, as .deb files,
# without installing them and without touching the system's apt sources or state: apt-get runs
# with a sources list, package lists and cache of its own, verified with the system's Debian
# keyring. For scripts/cuda12-toolkit.sh (Debian 13's CUDA 12.4.1) and
# bench/gpu/cu12_cublas_carry.sh (its cuBLASLt, carried to the H200).
#   scripts/debian13-download.sh DIR PACKAGE...
# The mirror: scripts/debian-mirror.sh (ISOBENCH_DEBIAN_MIRROR, or the system's).
set -euo pipefail
dir=$(realpath -m "${1:?give a folder}")
shift
[ $# -gt 0 ] || { echo "debian13-download.sh: give the packages" >&2; exit 2; }
mirror=$("$(dirname "$0")/debian-mirror.sh")
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || { echo "debian13-download.sh: $keyring is missing (apt-get install debian-archive-keyring)" >&2; exit 2; }
mkdir -p "$dir"
state=$(mktemp -d)
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
echo "deb [signed-by=$keyring] $mirror trixie main contrib non-free" >"$state/sources.list"
apt=(-o "Dir::Etc::SourceList=$state/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$state/lists"
     -o "Dir::Cache=$state/cache" -o Dir::State::Status=/dev/null -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update -qq
(cd "$dir" && apt-get "${apt[@]}" download -qq "$@")
