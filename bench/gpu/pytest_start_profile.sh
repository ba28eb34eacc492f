#!/usr/bin/env bash
# Where the pytest route's start goes on the H200 (the goal: the pytest route within 1.2x of the
# python: route): before its first worker, `ab --pytest` has the file collected by three
# interpreters at once (the orchestrator's collector and each side's zygote), where the python:
# route imports the module in two. This times the pieces of that start, alone and at once, with
# the test file and folders of bench/gpu/python_ab_speed.sh:
#
#   import-*      python -c "import X" for torch+triton, pytest, softmax_mod (a side's module)
#   collect-*     the orchestrator's collector (isobench.pytest_bridge collect) as it runs it,
#                 with and without pytest's plugin autoload (PYTEST_DISABLE_PLUGIN_AUTOLOAD=1)
#   at-once-N     N of the same command started together, each timed
#   importtime    python -X importtime of the collector: the modules that take the time
#   profile       cProfile of pytest_bridge.collect after its imports are done elsewhere
#   plugins       the distributions and pytest11 entry points of the interpreter
#
#   bench/gpu/pytest_start_profile.sh OUT        (ISOBENCH_PYTHON: the interpreter, python3 by default)
#
# Needs no build: the collector runs from this checkout's python/ folder. Every time is in
# OUT/times.txt as "NAME: S s", one line per run.
out=${1:?usage: pytest_start_profile.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
py=${ISOBENCH_PYTHON:-python3}
package=$(cd "$here/../../python" && pwd)
folders=$out/folders
mkdir -p "$folders/a"
cp "$here/softmax_mod.py" "$folders/a/"
cp "$here/test_softmax_speed.py" "$folders/"
test_file=$folders/test_softmax_speed.py
collector="import sys; sys.path.insert(0, sys.argv.pop(1)); from isobench.pytest_bridge import _main; sys.exit(_main(sys.argv[1:]))"
times=$out/times.txt

at_once() {  # at_once N NAME COMMAND...: N copies started together, each timed as NAME-at-once-N
  local n=$1 name=$2; shift 2
  local i
  for ((i = 0; i < n; i++)); do timed "$name-at-once-$n" "$@" & done
  wait
}

import_torch=("$py" -c "import torch, triton")
import_pytest=("$py" -c "import pytest")
import_module=(env PYTHONPATH="$folders/a" "$py" -c "import softmax_mod")
collect=(env PYTHONPATH="$folders/a" "$py" -c "$collector" "$package" collect "$test_file" --)
collect_noauto=(env PYTEST_DISABLE_PLUGIN_AUTOLOAD=1 PYTHONPATH="$folders/a" "$py" -c "$collector" "$package" collect "$test_file" --)

"${import_module[@]}" >/dev/null 2>&1  # the page cache warm, as in the runs after the first
for round in 1 2 3; do
  timed import-torch-triton "${import_torch[@]}"
  timed import-pytest "${import_pytest[@]}"
  timed import-module "${import_module[@]}"
  timed collect "${collect[@]}"
  timed collect-noautoload "${collect_noauto[@]}"
done
for round in 1 2; do
  at_once 2 import-module "${import_module[@]}"
  at_once 3 import-module "${import_module[@]}"
  at_once 2 collect "${collect[@]}"
  at_once 3 collect "${collect[@]}"
  at_once 3 collect-noautoload "${collect_noauto[@]}"
done
env PYTHONPATH="$folders/a" "$py" -X importtime -c "$collector" "$package" collect "$test_file" -- \
  >"$out/importtime.out" 2>"$out/importtime.txt"
env PYTHONPATH="$folders/a:$package" "$py" "$here/collect_profile.py" "$test_file" >"$out/profile.txt" 2>&1
"$py" - >"$out/plugins.txt" 2>&1 <<'EOF'
import importlib.metadata as metadata, time
began = time.monotonic()
distributions = list(metadata.distributions())
plugins = sorted("%s = %s (%s)" % (e.name, e.value, e.dist.name if e.dist else "?")
                 for e in metadata.entry_points(group="pytest11"))
print("%d distributions, %d pytest11 entry points, listed in %.3f s" % (len(distributions), len(plugins), time.monotonic() - began))
print("\n".join(plugins))
EOF
nproc >"$out/nproc.txt"
gpu_state after
