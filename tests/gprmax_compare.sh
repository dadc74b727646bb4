#!/usr/bin/env bash
# gprMax fidelity: runs each scene of tests/data/gprmax/FOLDER (its MODEL.in, unchanged) with
#   gpustencil fdtd MODEL.in -o WORK --backend $GS_BACKEND [-n N]      (N from command.txt)
# (under mpirun -np $GS_RANKS when GS_RANKS > 1) and compares every receiver and component of
# WORK/MODEL.h5 (or WORK/MODEL1.h5 .. MODELN.h5) with gprMax 4's reference output in the folder
# (MODEL.h5, MODEL1.h5 .. MODELN.h5, or the merged MODEL_merged.h5) using
# scripts/gprmax/cmp.py: max|diff|/max|ref| in dB, failing above GS_GPRMAX_LIMIT (default -60).
#
# By hand:  tests/gprmax_compare.sh [FOLDER ...]   (names under tests/data/gprmax or paths;
#           none = every folder). Environment: GS_BIN (default build/gpustencil), GS_BACKEND
#           (cpu), GS_RANKS (1), GS_MPIEXEC (mpirun), GS_WORK (default /tmp/gs_work_$USER),
#           GS_PYTHON (a python3 with numpy and h5py; default: the first of python3,
#           /usr/bin/python3 that has them), GS_GPRMAX_LIMIT (dB, default -60).
# Exit: 0 all pass, 1 a failure (or no h5py), 77 GS_BACKEND=cuda without a GPU.
set -u
src=${GS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
bin=${GS_BIN:-$src/build/gpustencil}
b=${GS_BACKEND:-cpu}
ranks=${GS_RANKS:-1}
mpi=${GS_MPIEXEC:-mpirun}
limit=${GS_GPRMAX_LIMIT:--60}
data=$src/tests/data/gprmax
cmp_py=$src/scripts/gprmax/cmp.py

if [ "$b" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
if [ -z "$py" ]; then
  echo "FAIL: no python3 with numpy and h5py (tried: ${GS_PYTHON:-} python3 /usr/bin/python3)."
  echo "      Install them (Debian: apt-get install python3-h5py python3-numpy) or set GS_PYTHON."
  exit 1
fi
[ -x "$bin" ] || { echo "FAIL: gpustencil binary '$bin' not found (set GS_BIN)"; exit 1; }

folders=("$@")
if [ ${#folders[@]} = 0 ]; then
  for d in "$data"/*/; do compgen -G "$d*.in" >/dev/null && folders+=("$(basename "$d")"); done
fi
tag=$b; [ "$ranks" -gt 1 ] && tag=${b}_np$ranks
work=${GS_WORK:-${TMPDIR:-/tmp}/gs_work_${USER:-$(id -u)}}/gprmax_compare_$tag
mkdir -p "$work" || exit 1

fail=0; summary=()
bad() { echo "FAIL: $name: $*"; summary+=("$name: FAIL ($*)"); fail=1; }
for arg in "${folders[@]}"; do
  if [ -d "$arg" ]; then dir=$(cd "$arg" && pwd); else dir=$data/$arg; fi
  name=$(basename "$dir")
  [ -d "$dir" ] || { bad "no folder $dir"; continue; }
  ins=("$dir"/*.in)
  [ ${#ins[@]} = 1 ] && [ -f "${ins[0]}" ] || { bad "expected exactly one .in file in $dir"; continue; }
  model=$(basename "${ins[0]}" .in)
  n=1
  if [ -f "$dir/command.txt" ]; then
    n=$(grep -oE -- '-n [0-9]+' "$dir/command.txt" | head -1 | grep -oE '[0-9]+')
    n=${n:-1}
  fi
  if [ "$n" -gt 1 ]; then
    if [ -f "$dir/${model}_merged.h5" ]; then ref=$dir/${model}_merged.h5; else ref=$dir/$model; fi
    [ -f "$dir/${model}_merged.h5" ] || [ -f "$dir/${model}1.h5" ] || { bad "no reference ${model}_merged.h5 or ${model}1.h5"; continue; }
  else
    ref=$dir/$model.h5
    [ -f "$ref" ] || { bad "no reference $model.h5"; continue; }
  fi
  w=$work/$name; rm -rf "$w"; mkdir -p "$w/in" "$w/out"
  # The input (and anything it includes) is copied so that nothing is written into the tree.
  for f in "$dir"/*; do case $f in *.h5|*/command.txt) ;; *) cp -r "$f" "$w/in/" ;; esac; done
  cmd=("$bin" fdtd "$w/in/$model.in" -o "$w/out" --backend "$b")
  [ "$n" -gt 1 ] && cmd+=(-n "$n")
  [ "$ranks" -gt 1 ] && cmd=("$mpi" -np "$ranks" --oversubscribe "${cmd[@]}")
  echo "== $name: ${cmd[*]}"
  if ! "${cmd[@]}" > "$w/run.log" 2>&1; then
    { grep -m3 "gpustencil" "$w/run.log" || tail -5 "$w/run.log"; } | sed 's/^/  | /'
    bad "gpustencil fdtd failed (log: $w/run.log)"; continue
  fi
  if [ "$n" -gt 1 ]; then ours=$w/out/$model; first=${ours}1.h5; else ours=$w/out/$model.h5; first=$ours; fi
  [ -f "$first" ] || echo "  no $(basename "$first") among the outputs: $(cd "$w/out" && ls | head -8 | tr '\n' ' ')"
  # 3D models: a component that symmetry keeps near zero is measured against its field's peak
  # ("within -60 dB of its field's peak"); 2D ones component by component.
  extra=(); [ -f "$dir/field_peak" ] && extra=(--field-peak)
  "$py" "$cmp_py" --limit "$limit" --name "$model" --runs "$n" "${extra[@]}" "$ours" "$ref" > "$w/cmp.log" 2>&1
  rc=$?
  cat "$w/cmp.log"
  for pat in "worst" "FAIL"; do
    line=$(grep -E "^$model: $pat" "$w/cmp.log" | tail -1)
    [ -n "$line" ] && summary+=("$line")
  done
  [ $rc = 0 ] || fail=1
done
if [ ${#folders[@]} -gt 1 ]; then
  echo "== summary ($b, $ranks rank(s), limit $limit dB)"
  printf '%s\n' "${summary[@]}"
fi
exit $fail
