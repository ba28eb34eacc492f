#!/usr/bin/env bash
# CUDA 12's cuBLASLt for bench/gpu/wheel_cu12_h200.sh, cut into pieces that travel to the H200: its
# machine has CUDA 13's cuBLAS only, nothing there can be downloaded, and a device call carries at
# most 64 MiB together with the working tree. Downloads Debian 13's libcublaslt12 (cuBLAS 12.4.5.8,
# its smallest packaging: docs/results/wheel-glibc-2.28.md) and splits it into
# pieces of PIECE_MIB MiB (default 40) in OUT/1, OUT/2, ..., each folder with the sha256 of the
# whole file. Carry the folders one a call, back to back (the device machine keeps ignored files
# of earlier calls while it stays warm); wheel_cu12_h200.sh joins and checks them.
#   bench/gpu/cu12_cublas_carry.sh OUT [PIECE_MIB]
set -euo pipefail
out=$(realpath -m "${1:?give a folder}")
piece=${2:-40}
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out"
mkdir -p "$out/debs"
"$root/scripts/debian13-download.sh" "$out/debs" libcublaslt12
deb=$(echo "$out"/debs/libcublaslt12_*.deb)
sum=$(sha256sum "$deb" | cut -d' ' -f1)
(cd "$out" && split -b "${piece}M" -d -a 2 "$deb" libcublaslt12.deb.part-)
n=0
for part in "$out"/libcublaslt12.deb.part-*; do
  n=$((n + 1))
  mkdir -p "$out/$n"
  mv "$part" "$out/$n/"
  echo "$sum  libcublaslt12.deb" >"$out/$n/libcublaslt12.deb.sha256"
done
rm -rf "$out/debs"
echo "$n pieces of $(basename "$deb") (sha256 $sum):"
du -sh "$out"/*/
