#!/usr/bin/env bash
# Checkpoints of 3D models (docs/fdtd.md, "Checkpoints of 3D models"): a run stopped and restarted
# (once, twice, in its own folder or from another) gives the checksum line, receivers.csv and
# MODEL.h5 of an unbroken run, byte for byte (small_3d: soil, a sphere, a PEC cylinder, six CPML
# faces, two receivers; a magnetic scene with uneven CPML and two runs; a small scene with Debye
# poles, a transmission line, voltage sources and a magnetic dipole; a second-order MRIPML).
# Refused with exit 2 and one line naming the file: a 3D checkpoint given to a 2D scene and the reverse, another scene,
# another iteration count, about 12 header bytes flipped (the CRC covers all),, a section's name or length changed with
# the header CRC made to hold, a data byte flipped, a truncated file, a missing one. A completed
# run leaves no checkpoint; temporaries a killed run left are removed.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/ckpt3d; rm -rf "$w"; mkdir -p "$w"
scene=$src/tests/data/gprmax/small_3d/small_3d.in
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { timeout -k 5 60 "$bin" fdtd --backend cpu "$@"; }
same() { # A B WHAT FILES...: folders A and B hold the same FILES; logs A.log and B.log the same checksum
  local a=$1 b=$2 what=$3
  shift 3
  [ "$(grep checksum "$a.log")" = "$(grep checksum "$b.log")" ] && grep -q checksum "$a.log" || f "$what: checksum differs"
  for o in "$@"; do cmp -s "$a/$o" "$b/$o" || f "$what: $o differs"; done
  ls "$b" | grep -q '^checkpoint' && f "$what: checkpoint files left after the run completed: $(ls "$b")"
}
refuse() { # WHAT NAME ARGS...: exit 2, one line on stderr naming NAME
  local what=$1 name=$2 rc; shift 2
  run "$@" > "$w/o.log" 2> "$w/e.log"; rc=$?
  if [ $rc != 2 ] || [ "$(grep -c . "$w/e.log")" != 1 ] || ! grep -q -- "$name" "$w/e.log"; then
    f "$what: exit $rc, stderr: $(head -c 600 "$w/e.log")"
  fi
}

run "$scene" -o "$w/full" > "$w/full.log" 2>&1 || f "unbroken run: $(tail -2 "$w/full.log")"
# Stopped at 150 (checkpoints at 100, then at the stop), restarted in place.
run "$scene" -o "$w/a" --stop-after 150 --checkpoint-every 100 > "$w/a1.log" 2>&1 || f "stop: $(tail -2 "$w/a1.log")"
[ -f "$w/a/checkpoint.gsck" ] || { f "no checkpoint: $(ls "$w/a")"; exit 1; }
ls "$w/a" | grep -q 'tmp' && f "temporaries left: $(ls "$w/a")"
cp -r "$w/a" "$w/keep"
run "$scene" -o "$w/a" --restart "$w/a" > "$w/a.log" 2>&1 || f "restart: $(tail -2 "$w/a.log")"
grep -q "restarting at step 150" "$w/a.log" || f "restart: no 'restarting at step 150' line"
same "$w/full" "$w/a" "stop 150, restart in place" receivers.csv small_3d.h5
# Stopped twice (after 1 and after 200 more steps), each time restarted from the folder before.
run "$scene" -o "$w/b1" --stop-after 1 > /dev/null 2>&1
run "$scene" -o "$w/b2" --restart "$w/b1" --stop-after 200 > /dev/null 2>&1
[ -f "$w/b1/checkpoint.gsck" ] || f "a restart from another folder removed that folder's checkpoint"
run "$scene" -o "$w/b" --restart "$w/b2" > "$w/b.log" 2>&1 || f "second restart: $(tail -2 "$w/b.log")"
same "$w/full" "$w/b" "stop 1, stop 201, restart" receivers.csv small_3d.h5
# State beyond fields and CPML: dispersive poles, a transmission line, voltage sources and a
# magnetic dipole (small, so that it also runs under the sanitizers): stopped, restarted, the same.
cat > "$w/state.in" <<'IN'
#domain: 0.056 0.052 0.060
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 300
#pml_cells: 6
#material: 6 0.01 1 0 soil
#add_dispersion_debye: 2 4 1e-9 2 1e-10 soil
#waveform: gaussiandot 1 3e9 w
#waveform: ricker 1 2e9 r
#magnetic_dipole: x 0.028 0.026 0.040 w
#voltage_source: z 0.022 0.024 0.036 50 r
#transmission_line: z 0.032 0.022 0.038 60 r
#hertzian_dipole: y 0.026 0.028 0.020 w
#rx: 0.030 0.030 0.034
#rx: 0.026 0.024 0.018
#box: 0 0 0 0.056 0.052 0.026 soil
IN
run "$w/state.in" -o "$w/state-full" > "$w/state-full.log" 2>&1 || f "state unbroken: $(tail -2 "$w/state-full.log")"
run "$w/state.in" -o "$w/state" --stop-after 123 > /dev/null 2>&1
run "$w/state.in" -o "$w/state" --restart "$w/state" > "$w/state.log" 2>&1 || f "state restart: $(tail -2 "$w/state.log")"
same "$w/state-full" "$w/state" "poles and sources: stop 123, restart" receivers.csv state.h5
# A second-order MRIPML (two CFS terms: each psi array holds both terms' Phi): stopped, restarted, the same.
mr2=$src/tests/data/gprmax/mripml2_3d/mripml2_3d.in
run "$mr2" -o "$w/mr2-full" > "$w/mr2-full.log" 2>&1 || f "MRIPML2 unbroken: $(tail -2 "$w/mr2-full.log")"
run "$mr2" -o "$w/mr2" --stop-after 201 > /dev/null 2>&1
run "$mr2" -o "$w/mr2" --restart "$w/mr2" > "$w/mr2.log" 2>&1 || f "MRIPML2 restart: $(tail -2 "$w/mr2.log")"
same "$w/mr2-full" "$w/mr2" "MRIPML, two CFS terms: stop 201, restart" receivers.csv mripml2_3d.h5
# The most state a checkpoint takes: the same scene with 20 transmission lines (the cap), so
# that fields, six CPML slabs, receivers, poles and 20 lines fill 134 sections.
cp "$w/state.in" "$w/lines20.in"
for q in $(seq 0 18); do
  printf '#transmission_line: z 0.%03d 0.%03d 0.044 60 r\n' $((14 + 2 * (q % 10))) $((16 + 4 * (q / 10))) >> "$w/lines20.in"
done
run "$w/lines20.in" -o "$w/l20-full" > "$w/l20-full.log" 2>&1 || f "20 lines unbroken: $(tail -2 "$w/l20-full.log")"
run "$w/lines20.in" -o "$w/l20" --stop-after 57 > /dev/null 2>&1
run "$w/lines20.in" -o "$w/l20" --restart "$w/l20" > "$w/l20.log" 2>&1 || f "20 lines restart: $(tail -2 "$w/l20.log")"
same "$w/l20-full" "$w/l20" "20 lines: stop 57, restart" receivers.csv lines20.h5
# A magnetic scene with uneven CPML, two runs (the second moved by #src_steps/#rx_steps),
# checkpoints every 70 steps: the same outputs as without them.
cat > "$w/mag.in" <<'IN'
#domain: 0.040 0.036 0.040
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 0.6e-9
#pml_cells: 4 6 5 7 3 8
#material: 3 0.002 2 0.001 ferrite
#waveform: gaussiandot 1 3e9 w
#hertzian_dipole: y 0.016 0.018 0.014 w
#rx: 0.024 0.020 0.016
#box: 0.020 0.010 0.004 0.032 0.026 0.012 ferrite
#src_steps: 0.002 0 0
#rx_steps: 0 0.002 0
IN
run "$w/mag.in" -n 2 -o "$w/m0" > "$w/m0.log" 2>&1 || f "magnetic: $(tail -2 "$w/m0.log")"
run "$w/mag.in" -n 2 -o "$w/m1" --checkpoint-every 70 > "$w/m1.log" 2>&1 || f "magnetic, checkpoints: $(tail -2 "$w/m1.log")"
same "$w/m0" "$w/m1" "magnetic, two runs, checkpoints every 70" receivers_run001.csv receivers_run002.csv mag1.h5 mag2.h5
run "$w/mag.in" -o "$w/m2" --stop-after 77 > /dev/null 2>&1
run "$w/mag.in" -o "$w/m2" --restart "$w/m2" > "$w/m2.log" 2>&1
run "$w/mag.in" -o "$w/m3" > "$w/m3.log" 2>&1
same "$w/m3" "$w/m2" "magnetic, stop 77, restart" receivers.csv mag.h5

# Refusals.
good=$w/keep/checkpoint.gsck
t() { rm -rf "$w/bad"; mkdir "$w/bad"; cp "$good" "$w/bad/checkpoint.gsck"; }
t; refuse "3D checkpoint, 2D scene" "a checkpoint of a 3D model" "$src/inputs/gpr.in" --steps 50 --restart "$w/bad" -o "$w/x"
run "$src/inputs/gpr.in" --steps 50 --stop-after 10 -o "$w/two" > /dev/null 2>&1
refuse "2D checkpoint, 3D scene" "a checkpoint of a 2D model" "$scene" --restart "$w/two" -o "$w/x"
sed 's/^#title:.*/#title: another/' "$scene" > "$w/other.in"
t; refuse "another scene" "different scene" "$w/other.in" --restart "$w/bad" -o "$w/x"
t; refuse "another iteration count" "does not match this run" "$scene" --steps 300 --restart "$w/bad" -o "$w/x"
t; refuse "no checkpoint" "no checkpoint there" "$scene" --restart "$w/nothing" -o "$w/x"
t; truncate -s -1 "$w/bad/checkpoint.gsck"
refuse "truncated" "checkpoint.gsck" "$scene" --restart "$w/bad" -o "$w/x"
t; truncate -s 100 "$w/bad/checkpoint.gsck"
refuse "truncated header" "checkpoint.gsck" "$scene" --restart "$w/bad" -o "$w/x"
hb=$(python3 -c "import struct,sys; print(struct.unpack_from('<I', open(sys.argv[1],'rb').read(), 12)[0])" "$good")
for ((k = 0; k < hb; k += hb / 12 + 1)); do # about 12 bytes: a run costs a second (MPI start)
  t; python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[int(sys.argv[2])]^=0x5a; open(p,'wb').write(b)" "$w/bad/checkpoint.gsck" $k
  refuse "header byte $k flipped" "checkpoint.gsck" "$scene" --restart "$w/bad" -o "$w/x"
done
# edit.py FILE OFFSET FORMAT OP VALUE: a field changed, the header CRC made to hold.
cat > "$w/edit.py" <<'PY'
import struct, sys, zlib
p, off, fmt, op, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
b = bytearray(open(p, 'rb').read())
hb = struct.unpack_from('<I', b, 12)[0]
if op == 'str': b[off:off + 24] = val.encode().ljust(24, b'\0')
else: struct.pack_into(fmt, b, off, struct.unpack_from(fmt, b, off)[0] + int(val))
struct.pack_into('<I', b, hb - 4, zlib.crc32(bytes(b[:hb - 4])))
open(p, 'wb').write(b)
PY
t; python3 "$w/edit.py" "$w/bad/checkpoint.gsck" 152 '<Q' str field.ey
refuse "a section renamed" "section 1 is 'field.ey'" "$scene" --restart "$w/bad" -o "$w/x"
t; python3 "$w/edit.py" "$w/bad/checkpoint.gsck" 176 '<Q' add 4
refuse "a section's length" "section 1" "$scene" --restart "$w/bad" -o "$w/x"
t; python3 "$w/edit.py" "$w/bad/checkpoint.gsck" 24 '<q' add 1000
refuse "step past the end" "step" "$scene" --restart "$w/bad" -o "$w/x"
t; python3 "$w/edit.py" "$w/bad/checkpoint.gsck" 24 '<q' add -1
refuse "another step (receiver history length)" "rx.history" "$scene" --restart "$w/bad" -o "$w/x"
t; python3 "$w/edit.py" "$w/bad/checkpoint.gsck" 72 '<Q' add 4
refuse "data length" "checkpoint.gsck" "$scene" --restart "$w/bad" -o "$w/x"
t; python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-5]^=1; open(p,'wb').write(b)" "$w/bad/checkpoint.gsck"
refuse "data byte flipped" "corrupt (CRC" "$scene" --restart "$w/bad" -o "$w/x"

# A new run removes a stale checkpoint and a killed run's temporary; the refused restarts above
# left the damaged file in place.
mkdir -p "$w/stale"; cp "$good" "$w/stale/checkpoint.gsck"; echo x > "$w/stale/checkpoint.gsck.tmp-123"
run "$scene" -o "$w/stale" --steps 10 > /dev/null 2>&1 || f "stale: run failed"
ls "$w/stale" | grep -q '^checkpoint' && f "stale checkpoint files not removed: $(ls "$w/stale")"
[ -f "$w/bad/checkpoint.gsck" ] || f "a refused restart removed its checkpoint"
[ $fail = 0 ] && echo "ckpt3d: all passed"
exit $fail
