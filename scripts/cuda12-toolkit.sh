#!/usr/bin/env bash
# A CUDA 12 toolkit for scripts/build.sh wheel-cu12, made without root or a system install from
# Debian 13's CUDA packages (non-free: nvidia-cuda-toolkit, nvidia-cuda-dev, libcudart12,
# libcupti-dev, libnccl-dev; CUDA 12.4.1 there), downloaded by scripts/debian13-download.sh (the
# system's apt sources and packages are not touched). Only what building isobench needs is
# unpacked, into one folder laid out as NVIDIA's: bin/ (nvcc, cicc, ptxas, fatbinary, nvlink,
# cudafe++), include/ (CUDA, cuBLAS, CUPTI, NCCL headers), lib64/ (libcudart_static.a,
# libcudadevrt.a, libculibos.a, libcudart.so, stubs/libcuda.so), nvvm/libdevice, with an
# nvcc.profile that points there. PyPI's nvidia-cuda-nvcc-cu12 wheels do not serve: they hold
# ptxas and libnvvm, not nvcc, cicc or fatbinary (docs/install.md, "CUDA 12").
#   scripts/cuda12-toolkit.sh [DIR]     DIR: default build-wheel/cuda-12; prints DIR/bin/nvcc
# Downloads once (the headers come in the same package as every static library; docs/install.md
# says how much); a second run with the folder there does nothing.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-build-wheel/cuda-12}")
if [ -x "$dir/bin/nvcc" ] && [ -f "$dir/stamp" ]; then
  echo "$dir/bin/nvcc"
  exit 0
fi
work=$(mktemp -d "$(dirname "$dir")/.cuda12-toolkit.XXXXXX" 2>/dev/null ||
  { mkdir -p "$(dirname "$dir")"; mktemp -d "$(dirname "$dir")/.cuda12-toolkit.XXXXXX"; })
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root"
scripts/debian13-download.sh "$work/debs" nvidia-cuda-toolkit nvidia-cuda-dev libcudart12 libcupti-dev libnccl-dev
unpack() {  # unpack DEB PATTERN...: only those paths of the package
  local deb=$1
  shift
  dpkg-deb --fsys-tarfile "$deb" | tar -x -C "$work/root" --wildcards "$@"
}
unpack "$work"/debs/nvidia-cuda-toolkit_*.deb './usr/lib/nvidia-cuda-toolkit/bin/*' './usr/lib/nvidia-cuda-toolkit/libdevice/*' \
  ./usr/bin/ptxas ./usr/bin/fatbinary ./usr/bin/nvlink ./usr/bin/cudafe++ ./usr/bin/bin2c ./usr/bin/cuobjdump
unpack "$work"/debs/nvidia-cuda-dev_*.deb './usr/include/*' ./usr/lib/x86_64-linux-gnu/libcudart_static.a \
  ./usr/lib/x86_64-linux-gnu/libcudadevrt.a ./usr/lib/x86_64-linux-gnu/libculibos.a ./usr/lib/x86_64-linux-gnu/stubs/libcuda.so
unpack "$work"/debs/libcudart12_*.deb './usr/lib/x86_64-linux-gnu/libcudart.so.*'
unpack "$work"/debs/libcupti-dev_*.deb './usr/include/*'
unpack "$work"/debs/libnccl-dev_*.deb ./usr/include/nccl.h

new="$work/toolkit"
mkdir -p "$new/bin" "$new/lib64/stubs" "$new/nvvm"
r=$work/root
# Debian's nvcc is the real one in usr/lib/nvidia-cuda-toolkit/bin (its usr/bin/nvcc is a
# wrapper script, and its g++ there picks a host compiler: CMake names GCC itself).
cp -a "$r"/usr/lib/nvidia-cuda-toolkit/bin/{nvcc,cicc,crt} "$new/bin/"
cp -a "$r"/usr/bin/{ptxas,fatbinary,nvlink,cudafe++,bin2c,cuobjdump} "$new/bin/"
cp -a "$r/usr/lib/nvidia-cuda-toolkit/libdevice" "$new/nvvm/"
cp -a "$r/usr/include" "$new/include"
# libcudart.so too, though isobench links the static one: CMake's FindCUDAToolkit takes the
# toolkit's library folder from where it finds libcudart.so.
cp -a "$r"/usr/lib/x86_64-linux-gnu/{libcudart_static.a,libcudadevrt.a,libculibos.a,libcudart.so.*} "$new/lib64/"
ln -s libcudart.so.12 "$new/lib64/libcudart.so"
cp -a "$r/usr/lib/x86_64-linux-gnu/stubs/libcuda.so" "$new/lib64/stubs/"
ln -s lib64 "$new/lib"
# NVIDIA's own profile, with this folder's layout (lib64 and include beside bin).
cat >"$new/bin/nvcc.profile" <<'EOF'
TOP              = $(_HERE_)/..
NVVMIR_LIBRARY_DIR = $(TOP)/nvvm/libdevice
LD_LIBRARY_PATH += $(TOP)/lib64:
PATH            += $(_HERE_):
INCLUDES        +=  "-I$(TOP)/include" $(_SPACE_)
LIBRARIES        =+ $(_SPACE_) "-L$(TOP)/lib64/stubs" "-L$(TOP)/lib64"
CUDAFE_FLAGS    +=
PTXAS_FLAGS     +=
EOF
release=$("$new/bin/nvcc" --version | grep -oE 'release 12\.[0-9]+' || true)
[ -n "$release" ] || { "$new/bin/nvcc" --version >&2; echo "cuda12-toolkit.sh: the nvcc unpacked is not CUDA 12" >&2; exit 1; }
(cd "$work/debs" && for deb in *.deb; do dpkg-deb -f "$deb" Package Version | paste -sd' '; done) >"$new/stamp"
rm -rf "$dir"
mv "$new" "$dir"
echo "$dir/bin/nvcc"
