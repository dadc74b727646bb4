#!/usr/bin/env bash
# gpustencil fdtd from the command line: checkpoint and restart give exactly
# the bits of an unbroken run; corrupt, truncated and foreign checkpoints are
# refused; bad scenes get one "file:line: reason" line and exit status 2;
# B-scans and snapshots are written. GS_BACKEND picks the backend; GS_TAG
# names the work folder apart (the same test under other GPUSTENCIL_ settings).
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; b=${GS_BACKEND:-cpu}
if [ "$b" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
w=${GS_WORK:?}/fdtd_cli_$b${GS_TAG:-}; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { "$bin" fdtd --backend "$b" "$@"; }
scene=$src/inputs/gpr.in
# Unbroken, then interrupted twice and restarted.
run "$scene" --steps 700 -o "$w/full" > "$w/full.log" 2>&1 || f "full run: $(cat "$w/full.log")"
run "$scene" --steps 700 -o "$w/part" --checkpoint-every 100 --stop-after 250 > "$w/p1.log" 2>&1 || f "part 1"
grep -q "stopped after step 250" "$w/p1.log" || f "part 1 did not stop: $(cat "$w/p1.log")"
run "$scene" --steps 700 -o "$w/part" --restart "$w/part" --stop-after 230 > "$w/p2.log" 2>&1 || f "part 2"
grep -q "restarting at step 250" "$w/p2.log" || f "part 2 did not restart: $(cat "$w/p2.log")"
cp "$w/part/checkpoint.gsck" "$w/ck480"
run "$scene" --steps 700 -o "$w/part" --restart "$w/part" > "$w/p3.log" 2>&1 || f "part 3: $(cat "$w/p3.log")"
[ "$(grep checksum "$w/full.log")" = "$(grep checksum "$w/p3.log")" ] || f "restarted checksum differs"
cmp -s "$w/full/receivers.csv" "$w/part/receivers.csv" || f "restarted receivers.csv differs"
grep -q "checksum Ez=" "$w/full.log" || f "no checksum line"
[ -e "$w/part/checkpoint.gsck" ] && f "stale checkpoint left after the run completed"
# Refusals: corrupt, truncated, from another scene.
mkdir -p "$w/bad"
python3 - "$w/ck480" "$w/bad/checkpoint.gsck" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read()); d[len(d) // 2] ^= 0xFF
open(sys.argv[2], 'wb').write(d)
PY
out=$(run "$scene" --steps 700 -o "$w/x" --restart "$w/bad" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "corrupt" <<<"$out" || f "corrupt checkpoint accepted ($rc): $out"
head -c 100000 "$w/ck480" > "$w/bad/checkpoint.gsck"
out=$(run "$scene" --steps 700 -o "$w/x" --restart "$w/bad" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "truncated" <<<"$out" || f "truncated checkpoint accepted ($rc): $out"
cp "$w/ck480" "$w/bad/checkpoint.gsck"
out=$(run "$src/inputs/material_map.in" --steps 700 -o "$w/x" --restart "$w/bad" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "different scene" <<<"$out" || f "foreign checkpoint accepted ($rc): $out"
# Bad scenes: one line naming file:line and the reason, exit status 2.
bad_scene() { # NAME PATTERN LINES...
  local name=$1 pat=$2; shift 2
  printf '%s\n' "$@" > "$w/$name.in"
  local out rc; out=$(run "$w/$name.in" -o "$w/x" 2>&1); rc=$?
  { [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qE "$pat" <<<"$out"; } || f "$name ($rc): $out"
}
base=("#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 10")
bad_scene courant "courant.in:4: .*outside \(0, 1\]: above 1 the scheme is unstable" "${base[@]}" "#time_step_stability_factor: 1.01"
bad_scene courant0 "courant0.in:4: .*outside \(0, 1\]: the time step must be positive" "${base[@]}" "#time_step_stability_factor: 0"
bad_scene unknown "unknown.in:4: #taguchi: not supported" "${base[@]}" "#taguchi: 1 2"
bad_scene threed "threed.in:2: the domain must be at least 3 x 3 x 3 cells" "#domain: 0.1 0.1 0.004" "#dx_dy_dz: 0.002 0.002 0.002"
bad_scene sphere2d "sphere2d.in:4: #sphere: only in 3D models here" "${base[@]}" "#sphere: 0.05 0.05 0 0.01 pec"
bad_scene magnetic "magnetic.in:4: #material ferrite: relative permeability 0.5 is below 1" "${base[@]}" "#material: 4 0 0.5 0 ferrite"
bad_scene python "python.in:4: #python: no #end_python: closes this block" "${base[@]}" "#python:"
bad_scene polar "polar.in:5: .*only z" "${base[@]}" "#waveform: ricker 1 1e9 w" "#hertzian_dipole: x 0.05 0.05 0 w"
bad_scene nowave "nowave.in:4: .*waveform 'w' is not defined" "${base[@]}" "#hertzian_dipole: z 0.05 0.05 0 w"
bad_scene nodomain "#domain is missing" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 10"
bad_scene comments "comments.in: #domain is missing" "## only a comment" "text that is no command"
: > "$w/empty.in" # no line at all (a scene of no commands passes its text between ranks empty)
out=$(run "$w/empty.in" -o "$w/x" 2>&1); rc=$?
{ [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "empty.in: #domain is missing" <<<"$out"; } || f "empty ($rc): $out"
bad_scene outside "outside.in:4: #rx: .*outside" "${base[@]}" "#rx: 0.5 0.05 0"
bad_scene number "number.in:3: #time_window: 'ten' is not a number" "#domain: 0.1 0.1 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: ten"
# The header counts the #rx receivers, not the two hidden helpers that sample H for a current.
printf '%s\n' "${base[@]}" "#waveform: ricker 1 1e9 w" "#hertzian_dipole: z 0.05 0.05 0 w" "#rx: 0.06 0.05 0 r1 Ez Iz" \
  > "$w/current.in"
out=$(run "$w/current.in" -o "$w/current" 2>&1) && grep -q " 1 source(s), 1 receiver(s), " <<<"$out" ||
  f "header of a current receiver: $out"
out=$(run "$w/missing.in" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "missing.in: No such file" <<<"$out" || f "missing scene ($rc): $out"
# B-scan over 3 runs, snapshots, material map.
run "$scene" --steps 300 -n 3 --snapshot-every 150 -o "$w/bscan" > "$w/bscan.log" 2>&1 || f "B-scan run: $(cat "$w/bscan.log")"
for k in 001 002 003; do [ -s "$w/bscan/receivers_run$k.csv" ] || f "no receivers_run$k.csv"; done
"${GS_MKPNG:?}" --check-any "$w/bscan/bscan.png" || f "bscan.png missing or not a valid PNG"
"${GS_MKPNG:?}" --check-any "$w/bscan/snapshots/run002_ez_00000300.png" || f "snapshot missing or not a valid PNG"
cmp -s "$w/bscan/receivers_run001.csv" "$w/bscan/receivers_run002.csv" && f "runs 1 and 2 identical: sources did not move"
lines=$(wc -l < "$w/full/receivers.csv"); [ "$lines" = 701 ] || f "receivers.csv has $lines lines, want 701"
head -1 "$w/full/receivers.csv" | grep -q '^time_s,"Rx(96,240,0)_Ez","Rx(96,240,0)_Hx","Rx(96,240,0)_Hy"$' || f "receivers.csv header"
[ -s "$w/full/gpr.h5" ] || f "no gpr.h5 (gprMax's receiver file)"
for k in 1 2 3; do [ -s "$w/bscan/gpr$k.h5" ] || f "no gpr$k.h5"; done
run "$src/inputs/material_map.in" --steps 100 -o "$w/map" > "$w/map.log" 2>&1 || f "material map: $(cat "$w/map.log")"
echo "fdtd_cli ($b): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
