#!/usr/bin/env bash
# Gives a CUDA wheel of pyproject.toml's distribution, 'isobench', its flavour's name (isobench-cu12,
# isobench-cu13: the CUDA major of its runtime, as cupy-cuda12x and cupy-cuda13x) and the extra
# 'cublas', which installs a cuBLAS wheel of that major at least as new as the headers it was built
# with (nvidia-cublas-cu12; nvidia-cublas for CUDA 13), where the GEMM kernels look first.
# scikit-build-core cannot: a project's name is never dynamic (PEP 621). Run by scripts/build.sh,
# with the tools venv's `wheel` on PATH.
#   scripts/wheel-flavour.sh WHEEL X.Y      X.Y: the CUDA release built with (WHEEL is replaced by
#                                           isobench-cuX's wheel in its folder)
set -euo pipefail
wheel=$(realpath "${1:?give the wheel}")
release=${2:?give the CUDA release, X.Y}
[[ $release =~ ^([0-9]+)\.[0-9]+$ ]] || { echo "wheel-flavour.sh: '$release' is not a CUDA release X.Y" >&2; exit 2; }
major=${BASH_REMATCH[1]}
name=isobench-cu$major
cublas=$([ "$major" -ge 13 ] && echo "nvidia-cublas>=$release" || echo "nvidia-cublas-cu$major>=$release")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
wheel unpack -d "$work" "$wheel" >/dev/null
tree=$(echo "$work"/isobench-*)
version=${tree##*/isobench-}
new="$work/${name//-/_}-$version"
mv "$tree" "$new"
mv "$new/isobench-$version.dist-info" "$new/${name//-/_}-$version.dist-info"
metadata="$new/${name//-/_}-$version.dist-info/METADATA"
grep -qx "Name: isobench" "$metadata" || { echo "wheel-flavour.sh: $wheel is not the isobench distribution" >&2; exit 2; }
sed -i -e "s/^Name: isobench\$/Name: $name/" \
  -e "/^Requires-Python:/a Provides-Extra: cublas\\nRequires-Dist: $cublas; extra == \"cublas\"" "$metadata"
wheel pack -d "$(dirname "$wheel")" "$new" >/dev/null
rm "$wheel"
