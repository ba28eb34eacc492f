#!/usr/bin/env bash
# Multi-rank instances on one GPU (docs/results/2026-11-29-h200-e): the rank protocol with CPU
# ranks on the H200's host, and allgather_gemm with one rank (an NCCL communicator of one): its
# check against the host reference, a timed sweep, and the refusal of 2 ranks on one GPU.
#   bench/gpu/ranks_one_gpu.sh OUT_DIR
# (Named h200_measure_e.sh when session E ran it.)
out=${1:?usage: ranks_one_gpu.sh OUT_DIR}
source "$(dirname "$0")/preamble.sh"
ls -l /usr/local/cuda/lib*/libnccl* /usr/lib/x86_64-linux-gnu/libnccl* >"$out/nccl-libraries.txt" 2>&1
step check-allgather "$bin/test_cuda_kernels" -tc='allgather_gemm*' -s
step cpu-ranks "$bin/orchestrate" --quiet --device cpu --samples 12 --out "$out/cpu-ranks" \
  bench/gpu/cpu_ranks.yaml
step allgather-1gpu "$bin/orchestrate" --quiet --out "$out/allgather-1gpu" bench/gpu/allgather_gemm_1gpu.yaml
step allgather-2ranks-1gpu "$bin/orchestrate" --quiet --samples 2 --out "$out/allgather-2ranks-1gpu" \
  configs/allgather_gemm.yaml
