#!/usr/bin/env bash
# The IR of one Triton kernel file in two folders, on the H200, as it ran there
# (docs/results/2026-12-02-h200-ir-two-folders): examples/python/triton_kernels.py copied into
# /tmp/src/a, /tmp/src/b and /tmp/src/m (m: one line added at the top, so every kernel moves down
# by one); each side imports its copy in a fresh python3 with its own TRITON_CACHE_DIR, launches
# triton_softmax and triton_layer_norm (4096 x 4096, bf16) once to compile, then once more under
# python/isobench/triton_ir.py's record(), as a worker does after an instance's set-up. Three
# pairs, side 0 always a/: same (b/), moved (m/), real (m/ with ISOBENCH_EXAMPLE_SOFTMAX_VARIANT=
# extra_pass: one more kernel launch). Writes $OUT/tf.tar.gz; triton_ir_two_folders_archive.py
# then writes each pair's artifacts.json so that `orchestrate ir-diff` reads it as an A/B run.
#   bench/gpu/triton_ir_two_folders.sh    (from the repository root, OUT set)
cat > /tmp/c.py <<'P'
import json,sys,torch,triton_kernels
from isobench import triton_ir
f,ax,d=sys.argv[1],json.loads(sys.argv[2]),sys.argv[3]
i=getattr(triton_kernels,f)(dtype="bf16",seed=1,device="cuda",stream=None,**ax)
i.launch();torch.cuda.synchronize()
triton_ir.record(i.launch,d,torch.cuda.synchronize)
P
R=$PWD;B=/tmp/src;mkdir -p $B/a $B/b $B/m
for s in a b m;do cp examples/python/triton_kernels.py examples/python/example_tensors.py $B/$s/;done
sed -i '1i # one line more' $B/m/triton_kernels.py
cap(){ # run side src extra-env
 for k in softmax:'{"rows":4096,"cols":4096}' layer_norm:'{"rows":4096,"hidden":4096}';do
  n=${k%%:*};d=/tmp/tf/$1/artifacts/side-$2/$n
  mkdir -p $d;env PYTHONPATH=$B/$3:$R/python TRITON_CACHE_DIR=$(mktemp -d) $4 python3 /tmp/c.py triton_$n "${k#*:}" $d||echo FAIL $1 $2 $n
 done;}
cap same 0 a X=1;cap same 1 b X=1
cap moved 0 a X=1;cap moved 1 m X=1
cap real 0 a X=1;cap real 1 m ISOBENCH_EXAMPLE_SOFTMAX_VARIANT=extra_pass
find /tmp/tf -name kernels.json|wc -l
tar -C /tmp -czf $OUT/tf.tar.gz tf; ls -la $OUT
