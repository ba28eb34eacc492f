#!/usr/bin/env bash
# What `import torch` costs the zygotes on the H200, and whether it is bytecode:
# the interpreter's environment (PYTHONDONTWRITEBYTECODE, the .pyc files beside torch's and
# Triton's sources), then bench/gpu/softmax_mod.py's import (torch, Triton, the module) in fresh
# interpreters, alternately as the environment is and with bytecode kept under OUT/pycache
# (PYTHONPYCACHEPREFIX, bytecode writing on; the first such import writes it, the later ones read
# it), and `python -X importtime` of each kind.
#
#   bench/gpu/import_bytecode.sh OUT        (ISOBENCH_PYTHON: the interpreter, python3 by default)
#
# Needs no build. Times in OUT/times.txt as "NAME: S s (exit E)".
out=${1:?usage: import_bytecode.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
py=${ISOBENCH_PYTHON:-python3}
times=$out/times.txt
prefix=$out/pycache
mkdir -p "$out/folders/a"
cp "$here/softmax_mod.py" "$out/folders/a/"

{
  echo "PYTHONDONTWRITEBYTECODE=${PYTHONDONTWRITEBYTECODE-<unset>}"
  echo "PYTHONPYCACHEPREFIX=${PYTHONPYCACHEPREFIX-<unset>}"
  "$py" -c "import sys; print('python', sys.version.split()[0], 'dont_write_bytecode', sys.flags.dont_write_bytecode, 'pycache_prefix', sys.pycache_prefix)"
  for package in torch triton; do
    dir=$("$py" -c "import importlib.util as u, os; print(os.path.dirname(u.find_spec('$package').origin))")
    echo "$package: $dir"
    echo "  .py files: $(find "$dir" -name '*.py' | wc -l)"
    echo "  .pyc files: $(find "$dir" -name '*.pyc' | wc -l)"
    echo "  writable: $([ -w "$dir" ] && echo yes || echo no)"
  done
} >"$out/environment.txt" 2>&1

importer="import time; t = time.perf_counter(); import softmax_mod; print('import: %.3f s' % (time.perf_counter() - t))"
env PYTHONPATH="$out/folders/a" "$py" -c "$importer" >/dev/null 2>&1  # the page cache warm
timed write-kept env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX="$prefix" PYTHONPATH="$out/folders/a" "$py" -c "$importer"
for round in 1 2 3 4; do
  timed import-as-is env PYTHONPATH="$out/folders/a" "$py" -c "$importer"
  timed import-kept env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX="$prefix" PYTHONPATH="$out/folders/a" "$py" -c "$importer"
done
echo "kept .pyc files: $(find "$prefix" -name '*.pyc' | wc -l), $(du -sh "$prefix" | cut -f1)" >>"$out/environment.txt"
env PYTHONPATH="$out/folders/a" "$py" -X importtime -c "import softmax_mod" 2>"$out/importtime-as-is.txt"
env -u PYTHONDONTWRITEBYTECODE PYTHONPYCACHEPREFIX="$prefix" PYTHONPATH="$out/folders/a" "$py" -X importtime -c \
  "import softmax_mod" 2>"$out/importtime-kept.txt"
gpu_state after
