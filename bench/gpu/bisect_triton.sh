#!/usr/bin/env bash
# `orchestrate bisect` on a GPU, over a git history of a Triton softmax module, 8 commits
# after GOOD, the fifth of which adds one more elementwise pass over the output (a real
# regression of about one more read and write of it). The "build" copies the module into
# {out}/py, which each side imports through --python-path. orchestrate comes from PATH (the
# wheel's venv on the H200).
#   bench/gpu/bisect_triton.sh RESULTS_DIR
set -euo pipefail
results=$(realpath -m "${1:?give a results folder}")
source=$(realpath "$(dirname "$0")/softmax_mod.py")
mkdir -p "$results"
work=$(mktemp -d)
repo=$work/repo
git init -q "$repo"
cd "$repo"
git config user.email bisect@isobench.invalid
git config user.name "isobench bisect"

# The module at revision $1 (bench/gpu/softmax_mod.py): EXTRA_PASS from revision 5 on; every
# revision changes its docstring, so every commit is a commit of the kernel file.
module() {
  local extra=False
  [ "$1" -ge 5 ] && extra=True
  sed -e "s/^EXTRA_PASS = .*/EXTRA_PASS = $extra/" -e "s/revision 0 of/revision $1 of/" "$source"
}
for i in $(seq 0 8); do
  module "$i" >softmax_mod.py
  git add softmax_mod.py
  git commit -qm "softmax revision $i"
done
good=$(git rev-list --reverse HEAD | head -n 1)
bad=$(git rev-parse HEAD)
cat >sweep.yaml <<'EOF'
settings: {timer: graph}
benchmarks:
  - python: softmax_mod
    function: softmax
    axes: {rows: [4096, 16384], cols: 4096}
EOF
git log --format='%H %s' >"$results/commits.txt"
cp sweep.yaml "$results/sweep.yaml"
command=(orchestrate bisect --good "$good" --bad "$bad"
         --build 'mkdir -p {out}/py && cp {worktree}/softmax_mod.py {out}/py/' --python-path py
         --out "$results/bisection" sweep.yaml)
echo "${command[*]}" >"$results/command.txt"
began=$(date +%s%N)
set +e
"${command[@]}" >"$results/bisect.out" 2>"$results/bisect.err"
rc=$?
set -e
echo "rc=$rc wall_s=$(( ($(date +%s%N) - began) / 1000000 ))e-3" >"$results/bisect.rc"
cat "$results/bisect.out" "$results/bisect.err" "$results/bisect.rc"
