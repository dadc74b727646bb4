#!/usr/bin/env bash
# The outputs of a 3D model split over ranks are one rank's: #snapshot files (.h5,
# .vtkhdf, .vti; sampling steps that straddle the rank boundaries), #geometry_view (types n and
# f, .vtkhdf and .vti), #geometry_objects_write (BASE.h5 and BASE_materials.txt) and PNG slices
# (#snapshot_png / --snapshot-every with --slice and --slice-field, planes normal to x, y and z),
# with 2, 3, 4, 6 and 8 ranks (1x1x8, 2x2x2, uneven 3x1x1, 2x1x3, 1x2x4, and for slices 1x2x2, 1x1x4).
# HDF5 files (.h5, .vtkhdf) are compared dataset by dataset and attribute by attribute
# (scripts/gprmax/h5same.py: the object layout in the file differs, the values do not); .vti,
# .txt, .png, receivers.csv and the checksum line byte for byte. A file that cannot be written
# fails every rank alike, in as many lines as on one rank (rank 0's), with one rank's exit
# status, and no hang. GS_BACKEND picks the backend (cuda: skipped without a GPU), GS_MAX_RANKS
# limits the rank count. Argument: the group (small, boundary, failures; default all).
set -u
group=${1:-all}
want() { [ "$group" = all ] || [ "$group" = "$1" ]; }
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}; b=${GS_BACKEND:-cpu}; max=${GS_MAX_RANKS:-8}
if [ "$b" = cuda ]; then nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }; fi
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
[ -n "$py" ] || { echo "no python3 with h5py: skipped"; exit 77; }
w=${GS_WORK:?}/fdtd3d_ranks_outputs_${b}_$group; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { # NAME RANKS ARGS...
  local name=$1 n=$2; shift 2
  timeout 300 "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/$name" > "$w/$name.log" 2>&1 \
    || f "$name: $(tail -3 "$w/$name.log")"
}
same() { # REFERENCE NAME: the checksum line, then every file of the reference's folder
  local ref=$1 name=$2 x
  [ -n "$(grep checksum "$w/$ref.log")" ] || f "$ref: no checksum"
  [ "$(grep checksum "$w/$ref.log")" = "$(grep checksum "$w/$name.log")" ] || f "$name: checksum differs"
  [ "$(cd "$w/$ref" && find . -type f | sort)" = "$(cd "$w/$name" && find . -type f | sort)" ] || f "$name: other files"
  while read -r x; do
    case $x in
      *.h5 | *.vtkhdf) "$py" "$src/scripts/gprmax/h5same.py" --quiet "$w/$name/$x" "$w/$ref/$x" > /dev/null \
        || f "$name: $x differs" ;;
      *) cmp -s "$w/$ref/$x" "$w/$name/$x" || f "$name: $x differs" ;;
    esac
  done < <(cd "$w/$ref" && find . -type f)
}
split() { # SCENE DECOMP ARGS...: the split run against SCENE-1
  local name=$1 d=$2; shift 2
  local n=$(( ${d%%x*} * $(cut -dx -f2 <<<"$d") * ${d##*x} ))
  [ "$n" -le "$max" ] || return 0
  run "$name-$d" "$n" "$@" --decomp "$d"
  same "$name-1" "$name-$d"
}

# small_3d with every output: snapshots of the whole model and of boxes sampled every 2 to 5
# cells from odd origins, views of both types, geometry objects of the whole model and of a box.
outputs() {
  cat "$src/tests/data/gprmax/small_3d/small_3d.in"
  cat <<'EOF'
#snapshot: 0 0 0 0.080 0.072 0.060 0.002 0.002 0.002 0.3e-9 full.h5
#snapshot: 0.004 0.002 0.006 0.076 0.070 0.058 0.006 0.004 0.010 0.5e-9 steps.h5
#snapshot: 0.004 0.002 0.006 0.076 0.070 0.058 0.006 0.004 0.010 0.5e-9 steps.vtkhdf
#snapshot: 0.010 0.002 0.004 0.060 0.070 0.058 0.004 0.006 0.008 0.7e-9 steps.vti
#snapshot: 0 0 0 0.080 0.072 0.060 0.002 0.002 0.002 0.7e-9 full.vti
#geometry_view: 0 0 0 0.080 0.072 0.060 0.002 0.002 0.002 g n
#geometry_view: 0.004 0.002 0.006 0.076 0.070 0.058 0.006 0.004 0.010 gs.vti n
#geometry_view: 0.004 0.002 0.006 0.076 0.070 0.058 0.006 0.004 0.010 gs n
#geometry_view: 0 0 0 0.080 0.072 0.060 0.002 0.002 0.002 fine f
#geometry_view: 0.006 0.004 0.010 0.050 0.040 0.046 0.002 0.002 0.002 fine2 f
#geometry_objects_write: 0 0 0 0.080 0.072 0.060 go_all
#geometry_objects_write: 0.010 0.004 0.020 0.046 0.050 0.040 go_part
#snapshot_png: 60
EOF
}
if want small; then
  outputs > "$w/small.in"
  small=("$w/small.in" --steps 190)
  run small-1 1 "${small[@]}"
  [ -f "$w/small-1/small_snaps/full.h5" ] && [ -f "$w/small-1/go_all_materials.txt" ] \
    && [ -f "$w/small-1/snapshots/ez_z22_00000180.png" ] || f "small-1: outputs missing: $(ls -R "$w/small-1")"
  for d in 1x1x8 2x2x2 3x1x1 2x1x3; do split small "$d" "${small[@]}"; done
  # PNG slices normal to x and y, H components, a plane on a rank boundary
  slice=("$src/tests/data/gprmax/small_3d/small_3d.in" --steps 100 --snapshot-every 50)
  for s in "x=0.040 hy" "j=18 ex" "k=15 hz"; do
    tag=${s// /-}; tag=${tag//=/}
    run "slice$tag-1" 1 "${slice[@]}" --slice "${s% *}" --slice-field "${s#* }"
    for d in 1x2x2 1x1x4; do split "slice$tag" "$d" "${slice[@]}" --slice "${s% *}" --slice-field "${s#* }"; done
  done
fi

if want boundary; then # two runs (MODELn_snaps, views named per run), CPML and sources on the boundaries
  { grep -v '^#title' "$src/tests/data/dist3d/boundary.in"; cat <<'EOF'
#snapshot: 0.002 0.004 0.002 0.046 0.040 0.034 0.004 0.006 0.004 0.4e-9 s.h5
#snapshot: 0 0 0 0.048 0.040 0.036 0.002 0.002 0.002 0.5e-9 a.vti
#geometry_view: 0 0 0 0.048 0.040 0.036 0.004 0.002 0.006 v n
#geometry_view: 0.010 0.008 0.006 0.030 0.030 0.030 0.002 0.002 0.002 vf f
#geometry_objects_write: 0.004 0.006 0.002 0.044 0.034 0.030 go
#snapshot_png: 70
EOF
  } > "$w/bnd.in"
  bnd=("$w/bnd.in" -n 2)
  run bnd-1 1 "${bnd[@]}"
  [ -f "$w/bnd-1/bnd2_snaps/s.h5" ] && [ -f "$w/bnd-1/v2.vtkhdf" ] || f "bnd-1: outputs missing: $(ls -R "$w/bnd-1")"
  for d in 1x1x2 2x1x3 1x2x4 2x2x2; do split bnd "$d" "${bnd[@]}"; done
fi

if want failures && [ "$max" -ge 2 ]; then
  outputs > "$w/fail.in"
  blocked() { # WHAT PATH-IN-OUTDIR (a folder or a file where the output goes)...: 1 vs 2 ranks
    local what=$1 kind=$2 p=$3 n out rc lines
    for n in 1 2; do
      rm -rf "$w/f$n"; mkdir -p "$w/f$n"
      if [ "$kind" = dir ]; then mkdir -p "$w/f$n/$p"; else mkdir -p "$(dirname "$w/f$n/$p")"; : > "$w/f$n/$p"; fi
      # stderr alone: mpirun forwards the ranks' stdout and stderr on their own pipes, and merged
      # the checksum line can land inside the error line
      out=$(timeout 120 "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$w/fail.in" --steps 80 \
            -o "$w/f$n" 2>&1 >/dev/null); rc=$?
      lines=$(grep -c "gpustencil: fdtd" <<<"$out")
      eval "rc$n=$rc lines$n=$lines"
      grep "gpustencil: fdtd" <<<"$out" | sed "s/tmp-[0-9]*/tmp-PID/g; s|/f$n/|/fN/|g" > "$w/f$n.lines"
    done
    { [ "$rc1" = "$rc2" ] && [ "$rc1" != 0 ] && [ "$rc1" != 124 ] && [ "$lines1" -ge 1 ] && [ "$lines1" = "$lines2" ] \
        && cmp -s "$w/f1.lines" "$w/f2.lines"; } || f "$what: 1 rank: exit $rc1, $lines1 line(s); 2 ranks: exit $rc2, $lines2 line(s): $(cat "$w/f2.lines")"
  }
  blocked "a geometry view's name taken by a folder" dir g.vtkhdf
  blocked "a type f view's name taken by a folder" dir fine.vtkhdf
  blocked "a geometry objects file's name taken by a folder" dir go_part.h5
  blocked "a materials list's name taken by a folder" dir go_all_materials.txt
  blocked "a snapshot's name taken by a folder" dir fail_snaps/full.h5
  blocked "the snapshots' folder a file" file fail_snaps
  blocked "the PNG slices' folder a file" file snapshots
fi
echo "fdtd3d_ranks_outputs ($b, $group): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
