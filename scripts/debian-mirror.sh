#!/usr/bin/env bash
# Prints the Debian mirror to download from: ISOBENCH_DEBIAN_MIRROR, else the first Debian mirror
# of the system's apt sources (scripts/debian13-download.sh, scripts/wheel-old-userland.sh).
set -euo pipefail
mirror=${ISOBENCH_DEBIAN_MIRROR:-$( { grep -rhoE 'https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null || true; } |
  head -1 | tr -d ' ')}
[ -n "$mirror" ] || { echo "debian-mirror.sh: no Debian mirror in the apt sources: set ISOBENCH_DEBIAN_MIRROR" >&2; exit 2; }
echo "$mirror"
