#!/usr/bin/env bash
# The CPU wheel, built, repaired and used as a user without the repository would (CI):
#   1. builds and repairs it (scripts/build.sh wheel: pip and scikit-build-core drive CMake, with
#      ccache when it is installed; build-wheel/cpu stays, so a second run rebuilds only what
#      changed; auditwheel repair), prints `auditwheel show` (the platform tag it earns) and checks
#      every ELF file in it (scripts/wheel_abi_check.py): no glibc symbol newer than 2.28, nothing of
#      the system's libstdc++ or libgcc_s, no library but glibc's, tagged manylinux_2_28,
#   2. installs it into a fresh venv (--system-site-packages: pytest from the system) and, with
#      only that venv's bin/ and the system's on PATH and the working folder outside the checkout,
#      runs orchestrate --version, the quick sweep (its CPU part), a Python benchmark sweep, the
#      pytest route (ab --pytest) and a GPU sweep that must say in one line what is missing.
# Exit 0 when everything did what it should, 1 when something did not (the failing step is named).
#   scripts/wheel-check.sh [OUT_DIR]     OUT_DIR (default build-wheel/check) gets the venv and the runs
# ISOBENCH_WHEEL=FILE checks that wheel instead of building one (step 1 is then the ELF check
# alone; a CUDA wheel's --version must name its flavour, and with no GPU here its sweeps run their
# CPU part): scripts/wheel-old-userland.sh runs it so in a Debian 11 chroot, where nothing builds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out=$(realpath -m "${1:-build-wheel/check}")
mkdir -p "$out"  # and build-wheel/ with it, where its build log goes (a fresh clone has neither)
tools=${ISOBENCH_WHEEL_TOOLS:-$root/build-wheel/tools}  # scripts/build.sh wheel makes it
start=$(date +%s)
step() { echo "wheel-check: $*"; }
fail() { echo "wheel-check: FAILED: $*" >&2; exit 1; }

t=$(date +%s)
if [ -n "${ISOBENCH_WHEEL:-}" ]; then
  wheel=$(realpath "$ISOBENCH_WHEEL")
  step "the wheel given: $(basename "$wheel"), $(du -k "$wheel" | cut -f1) KiB"
else
  scripts/build.sh wheel >"$out.build.log" 2>&1 || { tail -30 "$out.build.log"; fail "the wheel did not build (log: $out.build.log)"; }
  wheel=$(ls build-wheel/cpu/wheelhouse/isobench-*.whl)
  step "built and repaired $(basename "$wheel") in $(($(date +%s) - t)) s, $(du -k "$wheel" | cut -f1) KiB"
  "$tools/bin/auditwheel" show "$wheel"
fi
# What the tag promises, checked on the binaries themselves (docs/install.md, "Which glibc").
python3 scripts/wheel_abi_check.py --glibc 2.28 "$wheel" || fail "the wheel needs more than glibc 2.28 (above)"

venv=$out/venv
python3 -m venv --system-site-packages "$venv"
"$venv/bin/pip" install --quiet --no-index --no-deps --force-reinstall "$wheel" || fail "pip install of the wheel"
work=$(mktemp -d /tmp/isobench-wheel-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work"
export PATH="$venv/bin:/usr/bin:/bin"
unset PYTHONPATH
command -v orchestrate | grep -qx "$venv/bin/orchestrate" || fail "orchestrate on PATH is not the venv's"
for f in bin/orchestrate bin/isobench-worker lib/libisobench-worker.so; do
  ldd "$("$venv/bin/python" -c 'import isobench._installed as i; print(i.BUILD)')/$f" | grep -q "not found" &&
    fail "$f: a shared library is not found (ldd)"
done

version=$(orchestrate --version) || fail "orchestrate --version"
step "$version"
# A CUDA wheel given (ISOBENCH_WHEEL=isobench_cuNN-...) names its flavour; the CPU wheel says CPU only.
flavour=$(basename "$wheel" | sed -n 's/^isobench_\(cu[0-9]*\)-.*/\1/p')
if [ -n "$flavour" ]; then
  grep -q "; flavour $flavour: needs an NVIDIA driver R[0-9]* or newer)" <<<"$version" || fail "--version does not name flavour $flavour"
else
  grep -q "CPU only: built without the CUDA toolkit" <<<"$version" || fail "--version does not say CPU only"
fi

step "the quick sweep (its CPU part), 5 samples"
orchestrate --quiet --samples 5 --out quick "$(python -m isobench.examples quick)" >quick.txt ||
  fail "the quick sweep: exit $?"
grep -q cpu_copy quick.txt || fail "the quick sweep's table has no cpu_copy"
cat quick.txt

step "a Python benchmark sweep (examples/python/cpu.yaml), 5 samples"
orchestrate --quiet --device cpu --samples 5 --out python "$(python -m isobench.examples python-cpu)" >python.txt ||
  fail "the Python sweep: exit $?"
grep -q sort_floats python.txt || fail "the Python sweep's table has no sort_floats"

step "the pytest route: ab --pytest on a CPU pytest-benchmark file, candidate sorting by str"
rc=0
orchestrate ab --quiet --pytest "$(python -m isobench.examples pytest-cpu)" -k "sort" --samples 8 \
  --candidate-env EXAMPLE_SORT_KEY=str --out pytest-ab >pytest-ab.txt || rc=$?
cat pytest-ab.txt
# The candidate sorts 20,000 floats by their str(): several times slower, SLOWER (exit 1) even on
# a loaded machine; anything else is the route not working.
[ "$rc" -eq 1 ] || fail "ab --pytest: exit $rc, expected 1 (SLOWER)"
grep -q "test_sort\[20000\].*SLOWER" pytest-ab.txt || fail "ab --pytest: test_sort[20000] is not SLOWER"

step "a GPU sweep on this machine without a GPU: one line saying what is missing, exit 2"
rc=0
orchestrate --device cuda --out gpu "$(python -m isobench.examples quick)" >gpu.txt 2>gpu.err || rc=$?
[ "$rc" -eq 2 ] && [ "$(wc -l <gpu.err)" -eq 1 ] || { cat gpu.err; fail "--device cuda: exit $rc, expected 2 and one line"; }
cat gpu.err

step "passed in $(($(date +%s) - start)) s; the wheel: $wheel"
