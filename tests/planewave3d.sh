#!/usr/bin/env bash
# Discrete plane waves (#plane_wave_angles, #plane_wave_vector; docs/fdtd.md, "3D models"):
# gprMax's rational direction m for a few angles (its find_dpw_integers_optimized, printed by
# gprMax 4 for the same angles), and a checkpoint of a plane-wave model: stopped at step 100 and
# restarted, the checksum line, receivers.csv and MODEL.h5 equal the unbroken run's byte for
# byte (the 1D grid's E, H and PML integrals are checkpoint sections); 32 plane waves are refused
# checkpoints (96 sections) and run without.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/planewave3d; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { timeout -k 5 120 "$bin" fdtd --backend cpu "$@"; }
g='#domain: 0.03 0.03 0.03\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 2\n#pml_cells: 4\n#waveform: ricker 1 5e9 w\n'
# theta phi -> m, as gprMax 4 (devel 33aa7f71) chooses them within 0.017 degrees
for c in "60 30 78 45 52" "135 210 -168 -97 -194" "30 300 26 -45 90" "90 0 1 0 0" "0 0 0 0 1" "45 45 29 29 41"; do
  set -- $c
  printf "$g#plane_wave_angles: 0.008 0.008 0.008 0.022 0.022 0.022 $1 $2 0 w\n" > "$w/d.in"
  run "$w/d.in" -o "$w/d" > "$w/d.log" 2>&1 || f "theta $1 phi $2: $(tail -1 "$w/d.log")"
  grep -q "plane wave 1: m = ($3, $4, $5)" "$w/d.log" || f "theta $1 phi $2: want m = ($3, $4, $5): $(grep 'plane wave' "$w/d.log")"
done
scene=$src/tests/data/gprmax/plane_wave_vector/plane_wave_vector.in
model=plane_wave_vector
run "$scene" -o "$w/full" > "$w/full.log" 2>&1 || f "unbroken run: $(tail -2 "$w/full.log")"
run "$scene" -o "$w/ck" --stop-after 100 --checkpoint-every 60 > "$w/ck1.log" 2>&1 || f "stop: $(tail -2 "$w/ck1.log")"
[ -f "$w/ck/checkpoint.gsck" ] || f "no checkpoint: $(ls "$w/ck")"
run "$scene" -o "$w/ck" --restart "$w/ck" > "$w/ck.log" 2>&1 || f "restart: $(tail -2 "$w/ck.log")"
grep -q "restarting at step 100" "$w/ck.log" || f "restart: no 'restarting at step 100' line"
c=$(grep checksum "$w/full.log")
[ -n "$c" ] && [ "$c" = "$(grep checksum "$w/ck.log")" ] || f "checksum differs after the restart"
for o in receivers.csv $model.h5; do cmp -s "$w/full/$o" "$w/ck/$o" || f "$o differs after the restart"; done
# 32 plane waves (96 checkpoint sections): checkpoints refused, one line, exit 2
{ printf "$g"; for q in $(seq 32); do echo "#plane_wave_angles: 0.008 0.008 0.008 0.022 0.022 0.022 90 0 $q w"; done; } > "$w/many.in"
run "$w/many.in" -o "$w/many" --checkpoint-every 1 > /dev/null 2> "$w/many.err"; rc=$?
[ $rc = 2 ] && [ "$(grep -c . "$w/many.err")" = 1 ] && grep -q "up to 94 sections" "$w/many.err" ||
  f "32 plane waves with checkpoints: exit $rc, $(head -c 300 "$w/many.err")"
run "$w/many.in" -o "$w/many" > "$w/many.log" 2>&1 || f "32 plane waves without checkpoints: $(tail -1 "$w/many.log")"
[ $fail = 0 ] && echo "planewave3d: directions and restart as expected"
exit $fail
