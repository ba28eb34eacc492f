#!/usr/bin/env bash
# The pytest route's collection with and without the kept rewritten plugin modules
# (python/isobench/pytest_bridge.py, _keep_rewritten_modules): the orchestrator's collector
# (isobench.pytest_bridge collect) of bench/gpu/python_ab_speed.sh's test file, alternately with
# ISOBENCH_PYTEST_REWRITE_CACHE=off (pytest rewrites every plugin module, as before) and with the
# cache under OUT/rewrite-cache (the first such collection writes it, the later ones read it);
# then a cProfile of each kind: the modules pytest rewrote (_rewrite_test calls) and the time.
#
#   bench/gpu/pytest_rewrite_cache.sh OUT        (ISOBENCH_PYTHON: the interpreter, python3 by default)
#
# Needs no build: the collector runs from this checkout's python/ folder. Times in OUT/times.txt
# as "NAME: S s (exit E)".
out=${1:?usage: pytest_rewrite_cache.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
source "$here/preamble.sh"
out=$(cd "$out" && pwd)
py=${ISOBENCH_PYTHON:-python3}
package=$(cd "$here/../../python" && pwd)
mkdir -p "$out/folders/a"
cp "$here/softmax_mod.py" "$out/folders/a/"
cp "$here/test_softmax_speed.py" "$out/folders/"
test_file=$out/folders/test_softmax_speed.py
cache=$out/rewrite-cache
collector="import sys; sys.path.insert(0, sys.argv.pop(1)); from isobench.pytest_bridge import _main; sys.exit(_main(sys.argv[1:]))"
times=$out/times.txt

env PYTHONPATH="$out/folders/a" "$py" -c "import softmax_mod" >/dev/null 2>&1  # the page cache warm
for round in 1 2 3 4; do
  timed collect-off env ISOBENCH_PYTEST_REWRITE_CACHE=off PYTHONPATH="$out/folders/a" "$py" -c "$collector" "$package" \
    collect "$test_file" --
  timed collect-kept env ISOBENCH_PYTEST_REWRITE_CACHE="$cache" PYTHONPATH="$out/folders/a" "$py" -c "$collector" \
    "$package" collect "$test_file" --
done
find "$cache" -name '*.pyc' | wc -l >"$out/kept-modules.txt"
for kind in off kept; do
  value=off
  [ $kind = kept ] && value=$cache
  env ISOBENCH_PYTEST_REWRITE_CACHE="$value" PYTHONPATH="$out/folders/a:$package" "$py" "$here/collect_profile.py" \
    "$test_file" >"$out/profile-$kind.txt" 2>&1
done
"$py" -c "import pytest, sys; print('pytest', pytest.__version__, 'python', sys.version.split()[0])" >"$out/versions.txt" 2>&1
gpu_state after
