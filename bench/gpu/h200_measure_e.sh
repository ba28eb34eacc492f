#!/usr/bin/env bash
# Fifth H200 session (docs/results/2026-11-29-h200-e): issue 8's code on the one GPU lent. The
# multi-rank protocol with CPU ranks on the H200's host, and allgather_gemm with one rank (an
# NCCL communicator of one): its check against the host reference, and a timed sweep.
#   bench/gpu/h200_measure_e.sh OUT_DIR
set -u
out=${1:?usage: h200_measure_e.sh OUT_DIR}
mkdir -p "$out"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib:${LD_LIBRARY_PATH:-}
bin=build-device/bin
log="$out/commands.log"
source "$(dirname "$0")/step.sh"
nvidia-smi >"$out/nvidia-smi-before.txt" 2>&1
ls -l /usr/local/cuda/lib*/libnccl* /usr/lib/x86_64-linux-gnu/libnccl* >"$out/nccl-libraries.txt" 2>&1
step check-allgather "$bin/test_cuda_kernels" -tc='allgather_gemm*' -s
step cpu-ranks "$bin/orchestrate" --quiet --device cpu --samples 12 --out "$out/cpu-ranks" \
  bench/gpu/cpu_ranks.yaml
step allgather-1gpu "$bin/orchestrate" --quiet --out "$out/allgather-1gpu" bench/gpu/allgather_gemm_1gpu.yaml
step allgather-2ranks-1gpu "$bin/orchestrate" --quiet --samples 2 --out "$out/allgather-2ranks-1gpu" \
  configs/allgather_gemm.yaml
