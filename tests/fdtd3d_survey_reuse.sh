#!/usr/bin/env bash
# A 3D survey's later runs set up on the arrays of the run before (fields, CPML auxiliaries and
# pole state zeroed; sources, the materials they give their nodes, the dispersive nodes they defer
# and receivers set again: gs_fdtd3_sim_keep) give each run's files as a job building that run
# alone, byte for byte. Scene tests/data/dist3d/survey_reuse.in, -n 4: Debye, Lorentz and Drude
# poles; Hertzian dipoles moving from plain to dispersive nodes and onto a resistive voltage
# source's node, a magnetic dipole moving from one part of a 2x1x1 split to the other, a hard
# voltage source and a transmission line (the exchanges between the H and E passes); and the same
# less the magnetic dipole and the line (the exchanges behind the interior). Each run alone is a
# job of its own (--restart DIR -n 4 with the other runs marked finished); against them one rank
# (runs 2 to 4 reused), 2 ranks split 2x1x1 and 1x1x2 (the runs one after the other, reused on
# each part) and 2 ranks as 2 groups of one rank (the second run of each group reused); then runs
# side by side on one device (--runs-per-gpu: 3, then the fourth on a kept model; 2 in each of 2
# groups). The debug lines must say which runs were reused.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/ranks3_lib.sh" fdtd3d_survey_reuse "${1:-all}"
reused="set up on the previous run's arrays"
files_of() { for r in 1 2 3 4; do echo "$1$r.h5 receivers_run00$r.csv"; done; }
builds() { # NAME BUILT REUSED: how many runs of NAME's job were built and how many reused
  local nb nr
  nb=$(grep -c "fdtd: run [1-4]: built" "$w/$1.log")
  nr=$(grep -c "fdtd: run [1-4]: $reused" "$w/$1.log")
  [ "$nb $nr" = "$2 $3" ] || f "$1: $nb run(s) built and $nr reused, expected $2 and $3"
}
mark() { # DIR RUN INPUT: the marker of a finished run of INPUT (src/run/survey.c: a tag, FNV-1a of its bytes)
  python3 - "$1/.survey/run00000$2.done" "$3" <<'PY'
import struct, sys
h = 0xCBF29CE484222325
for b in open(sys.argv[2], 'rb').read():
    h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
open(sys.argv[1], 'wb').write(b'GSSVRUN1' + struct.pack('<Q', h))
PY
}
alone() { # SCENE INPUT: each run a job of its own into $w/SCENE-r, gathered in $w/SCENE-1 (the reference)
  local s=$1 in=$2 r k
  mkdir -p "$w/$s-1"
  for r in 1 2 3 4; do
    mkdir -p "$w/$s-alone$r/.survey"
    for k in 1 2 3 4; do # the others marked finished, their receiver files there (else they run again)
      [ "$k" = "$r" ] || { mark "$w/$s-alone$r" "$k" "$in" && touch "$w/$s-alone$r/$s$k.h5" "$w/$s-alone$r/receivers_run00$k.csv"; }
    done
    GPUSTENCIL_DEBUG=1 run "$s-alone$r" 1 "$in" -n 4 --restart "$w/$s-alone$r"
    builds "$s-alone$r" 1 0
    cp "$w/$s-alone$r/$s$r.h5" "$w/$s-alone$r/receivers_run00$r.csv" "$w/$s-1/" || f "$s-alone$r: no files"
  done
  grep checksum "$w/$s-alone4.log" > "$w/$s-1.log" # the last run's job prints the survey's checksum
}

scene=$src/tests/data/dist3d/survey_reuse.in
files=$(files_of survey_reuse)
alone survey_reuse "$scene"
GPUSTENCIL_DEBUG=1 run survey_reuse-one 1 "$scene" -n 4 --runs-per-gpu 1
same survey_reuse-1 survey_reuse-one $files
builds survey_reuse-one 1 3
for side in 3; do # 3 side by side, then the fourth on one of their models
  GPUSTENCIL_DEBUG=1 run survey_reuse-side$side 1 "$scene" -n 4 --runs-per-gpu $side
  same survey_reuse-1 survey_reuse-side$side $files
  grep -q "^fdtd: $side runs side by side" "$w/survey_reuse-side$side.log" || f "side$side: no side-by-side line"
  builds survey_reuse-side$side $side $((4 - side))
done
for d in 2x1x1 1x1x2; do
  GPUSTENCIL_DEBUG=1 split survey_reuse "$files" "$d" "$scene" -n 4
  [ "$max" -ge 2 ] && builds "survey_reuse-$d-${transports%% *}" 1 3
done
if [ "$max" -ge 2 ]; then
  GPUSTENCIL_DEBUG=1 run survey_reuse-farm2 2 "$scene" -n 4 --runs-per-gpu 1
  same survey_reuse-1 survey_reuse-farm2 $files
  builds survey_reuse-farm2 2 2 # group 1: runs 1 and 3; group 2: runs 2 and 4
  GPUSTENCIL_DEBUG=1 run survey_reuse-farm2side 2 "$scene" -n 4 --runs-per-gpu 2
  same survey_reuse-1 survey_reuse-farm2side $files
  builds survey_reuse-farm2side 4 0 # each group's two runs side by side
fi

grep -vE "^#(magnetic_dipole|transmission_line):" "$scene" > "$w/survey_reuse_e.in"
files=$(files_of survey_reuse_e)
alone survey_reuse_e "$w/survey_reuse_e.in"
GPUSTENCIL_DEBUG=1 split survey_reuse_e "$files" 2x1x1 "$w/survey_reuse_e.in" -n 4
if [ "$max" -ge 2 ]; then
  log=$w/survey_reuse_e-2x1x1-${transports%% *}.log
  grep -q "exchanges behind the interior" "$log" || f "survey_reuse_e: not the overlapped schedule"
  builds "survey_reuse_e-2x1x1-${transports%% *}" 1 3
fi
# every output side by side: PNG slices, gprMax snapshots and geometry views of 3 moving runs
{ cat "$src/tests/data/gpu3d/every_feature.in"
  printf '%s\n' "#src_steps: 0.002 0 0" "#rx_steps: 0.002 0 0" \
    "#snapshot: 0 0 0 0.080 0.072 0.064 0.004 0.004 0.004 1e-10 early" \
    "#geometry_view: 0 0 0 0.080 0.072 0.064 0.002 0.002 0.002 gv n"; } > "$w/outputs_side.in"
side_args=("$w/outputs_side.in" -n 3 --steps 30 --snapshot-every 10)
for side in 1 3; do
  run outputs-side$side 1 "${side_args[@]}" --runs-per-gpu $side
done
diff -r "$w/outputs-side1" "$w/outputs-side3" > /dev/null || f "outputs-side3: files differ from one run at a time"
[ "$(find "$w/outputs-side1" -type f | wc -l)" -ge 21 ] || f "outputs-side1: fewer files than 3 runs write"
same outputs-side1 outputs-side3
# A failure beside runs side by side ends the job as one at a time would, and the runs set up
# beside it keep their files: run 2's geometry view blocked (its set-up fails: run 1's files and
# marker only, exit 1, both ways); run 2's first PNG slice blocked (run 2 unmarked, runs 1 and
# 3 beside it whole), then resumed with --restart once unblocked: the unbroken survey's files.
png=$(cd "$w/outputs-side1/snapshots" && ls run002_* | head -1)
for what in view-side1 view-side3 png-side3; do
  mkdir -p "$w/$what/gv2.vtkhdf/x"
  [ "$what" = png-side3 ] && rmdir "$w/$what/gv2.vtkhdf/x" "$w/$what/gv2.vtkhdf" && mkdir -p "$w/$what/snapshots/$png/x"
  "$mpi" -np 1 "$bin" fdtd --backend "$b" "${side_args[@]}" --runs-per-gpu "${what##*side}" -o "$w/$what" \
    > "$w/$what.log" 2>&1
  st=$?
  [ "$st" = 1 ] || f "$what: exit $st, expected 1"
  [ -e "$w/$what/.survey/run000002.done" ] && f "$what: run 2 marked finished"
  cmp -s "$w/outputs-side1/outputs_side1.h5" "$w/$what/outputs_side1.h5" || f "$what: run 1 lost"
done
list() { (cd "$1" && find . -type f | sort); }
[ "$(list "$w/view-side1")" = "$(list "$w/view-side3")" ] || f "view-side3: other files than one at a time leaves"
for r in 1 3; do # set up beside the failure
  [ -e "$w/png-side3/.survey/run00000$r.done" ] || f "png-side3: run $r, set up beside the failure, not finished"
done
rm -rf "$w/png-side3/snapshots/$png"
run png-side3 1 "${side_args[@]}" --runs-per-gpu 3 --restart "$w/png-side3"
diff -r "$w/outputs-side1" "$w/png-side3" > /dev/null || f "png-side3: resumed, not the unbroken survey's files"

[ "$fail" = 0 ] && echo "fdtd3d_survey_reuse: every reused run identical to the run built alone" || exit 1
