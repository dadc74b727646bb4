#!/usr/bin/env bash
# gprMax 4's 3D output files: runs tests/data/FOLDER/MODEL.in (default gprmax3d_views) with
#   gpustencil fdtd MODEL.in -o WORK --backend $GS_BACKEND
# and compares the files FOLDER/files.txt lists with gprMax's own (made by the pinned gprMax 4,
# devel 33aa7f71, from the same input) through scripts/gprmax/h5same.py (geometry views and
# geometry objects files: every dataset identical; snapshots: each field within a dB limit of its
# peak; `ids N`: integer datasets counted, at most N values may differ), cmp (text files) and
# scripts/gprmax/cmp.py (receivers). Files listed as `input` (files
# the model reads, e.g. for #geometry_objects_read) are copied beside the model first.
# `rxpeak`: receivers against each field's peak (cmp.py --field-peak).
# Environment: GS_BIN (default build/gpustencil), GS_BACKEND (cpu), GS_WORK, GS_PYTHON, GS_RANKS (1:
# more runs under $GS_MPIEXEC, default mpirun, -np GS_RANKS).
# Exit: 0 all agree, 1 a difference (or no h5py), 77 GS_BACKEND=cuda without a GPU.
set -u
src=${GS_SOURCE_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
bin=${GS_BIN:-$src/build/gpustencil}
b=${GS_BACKEND:-cpu}
dir=$src/tests/data/${1:-gprmax3d_views}
if [ "$b" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "FAIL: no python3 with numpy and h5py (Debian: apt-get install python3-h5py)"; exit 1; }
[ -x "$bin" ] || { echo "FAIL: gpustencil binary '$bin' not found (set GS_BIN)"; exit 1; }
ins=("$dir"/*.in)
model=$(basename "${ins[0]}" .in)
work=${GS_WORK:-${TMPDIR:-/tmp}/gs_work_${USER:-$(id -u)}}/gprmax3d_views_$b${GS_RANKS:+_np$GS_RANKS}/$(basename "$dir")
rm -rf "$work" && mkdir -p "$work/in" || exit 1
cp "${ins[0]}" "$work/in/"
while read -r kind a _; do [ "$kind" = input ] && cp "$dir/$a" "$work/in/"; done < "$dir/files.txt"
cmd=("$bin" fdtd "$work/in/$model.in" -o "$work/out" --backend "$b")
[ "${GS_RANKS:-1}" -gt 1 ] && cmd=("${GS_MPIEXEC:-mpirun}" -np "$GS_RANKS" --oversubscribe "${cmd[@]}")
"${cmd[@]}" || { echo "FAIL: gpustencil fdtd failed"; exit 1; }
fail=0
while read -r kind a b2; do
  case "$kind" in
    ''|'#'*|input) continue ;;
    exact) "$py" "$src/scripts/gprmax/h5same.py" "$work/out/$a" "$dir/$a" || fail=1 ;;
    float) "$py" "$src/scripts/gprmax/h5same.py" --float-db "$a" "$work/out/$b2" "$dir/$b2" || fail=1 ;;
    ids) "$py" "$src/scripts/gprmax/h5same.py" --int-diff "$a" "$work/out/$b2" "$dir/$b2" || fail=1 ;;
    text) if cmp "$work/out/$a" "$dir/$a"; then echo "$a: identical"; else fail=1; fi ;;
    rx) "$py" "$src/scripts/gprmax/cmp.py" "$work/out/$a" "$dir/$a" || fail=1 ;;
    rxpeak) "$py" "$src/scripts/gprmax/cmp.py" --field-peak "$work/out/$a" "$dir/$a" || fail=1 ;;
    *) echo "FAIL: $dir/files.txt: unknown kind '$kind'"; fail=1 ;;
  esac
done < "$dir/files.txt"
[ "$fail" = 0 ] && echo "$(basename "$dir"): PASS" || echo "$(basename "$dir"): FAIL"
exit "$fail"
