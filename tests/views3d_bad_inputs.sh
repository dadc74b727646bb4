#!/usr/bin/env bash
# Bad 3D output commands and unwritable outputs (#geometry_view, #geometry_objects_write,
# #snapshot): each bad command is refused with exit status 2 and one line on stderr naming the
# input and the reason; an output that cannot be written is one line and exit status 1.
set -u
bin=${GS_BIN:?}
work=${GS_WORK:?}/views3d_bad_inputs
rm -rf "$work"; mkdir -p "$work"
fail=0; checks=0
refused() { # refused PATTERN -- command...: exit 2, one stderr line matching PATTERN, within 60 s
  local pat=$1; shift 2
  local err rc lines
  err=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: '$*' -> rc=$rc (want 2), $lines stderr lines (want 1):"; echo "$err" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
model() { # model NAME LINES...: a small 3D model with the given output commands
  local f=$work/$1.in; shift
  printf '#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 5\n#pml_cells: 4\n' >"$f"
  printf '#waveform: ricker 1 1e10 w\n#hertzian_dipole: z 0.01 0.01 0.01 w\n' >>"$f"
  printf '%s\n' "$@" >>"$f"
}
cpu=(--backend cpu)
model fstep '#geometry_view: 0 0 0 0.02 0.02 0.02 0.002 0.002 0.002 v f'
refused "fstep.in:7: #geometry_view: type f needs the model's own discretisation" -- \
  "$bin" fdtd "${cpu[@]}" "$work/fstep.in" -o "$work/o"
model fvti '#geometry_view: 0 0 0 0.02 0.02 0.02 0.001 0.001 0.001 v.vti f'
refused "fvti.in:7: #geometry_view: 'v.vti': a fine \(f\) geometry view is .vtkhdf" -- \
  "$bin" fdtd "${cpu[@]}" "$work/fvti.in" -o "$work/o"
model flat '#geometry_objects_write: 0.005 0.005 0.005 0.010 0.005 0.010 g'
refused "flat.in:7: #geometry_objects_write: the lower coordinates should be less than the upper" -- \
  "$bin" fdtd "${cpu[@]}" "$work/flat.in" -o "$work/o"
model outside '#geometry_objects_write: 0 0 0 0.03 0.02 0.02 g'
refused "outside.in:7: #geometry_objects_write: .*outside|outside.in:7: .*domain" -- \
  "$bin" fdtd "${cpu[@]}" "$work/outside.in" -o "$work/o"
model slash '#geometry_objects_write: 0 0 0 0.01 0.01 0.01 ../g'
refused "slash.in:7: #geometry_objects_write: '../g': give a file name, not a path" -- \
  "$bin" fdtd "${cpu[@]}" "$work/slash.in" -o "$work/o"
printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 5\n#geometry_objects_write: 0 0 0 0.1 0.1 0.002 g\n' \
  >"$work/two_d.in"
refused "two_d.in:4: #geometry_objects_write: only in 3D models here" -- \
  "$bin" fdtd "${cpu[@]}" "$work/two_d.in" -o "$work/o"
# An output that cannot be written: a folder where the file goes. One line naming it and the
# system's reason, exit status 1 (an output that failed, as on a full disk: the reliability issue).
unwritable() { # unwritable PATTERN -- command...: exit 1, one stderr line matching PATTERN
  local pat=$1; shift 2
  local err rc
  err=$(timeout 60 "$@" 2>&1 >/dev/null); rc=$?
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$err" | grep -c .)" != 1 ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: '$*' -> rc=$rc (want 1):"; echo "$err" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
model blocked '#geometry_view: 0 0 0 0.02 0.02 0.02 0.001 0.001 0.001 v n' '#geometry_objects_write: 0 0 0 0.01 0.01 0.01 g'
mkdir -p "$work/b/v.vtkhdf"
unwritable "geometry output: .*v.vtkhdf" -- "$bin" fdtd "${cpu[@]}" "$work/blocked.in" -o "$work/b"
mkdir -p "$work/c/g_materials.txt"
model blocked2 '#geometry_objects_write: 0 0 0 0.01 0.01 0.01 g'
unwritable "geometry output: .*g_materials.txt: Is a directory" -- "$bin" fdtd "${cpu[@]}" "$work/blocked2.in" -o "$work/c"
# A snapshot that cannot be written is reported on one line; the run and the other outputs go on
# (exit 1, as in 2D).
model snapblock '#snapshot: 0 0 0 0.02 0.02 0.02 0.002 0.002 0.002 2 s.vtkhdf' \
  '#snapshot: 0 0 0 0.02 0.02 0.02 0.002 0.002 0.002 3 t.h5'
mkdir -p "$work/sb/snapblock_snaps/s.vtkhdf"
err=$("$bin" fdtd "${cpu[@]}" "$work/snapblock.in" -o "$work/sb" 2>&1 >/dev/null); rc=$?
checks=$((checks + 1))
if [ "$rc" != 1 ] || [ "$(printf '%s\n' "$err" | grep -c .)" != 1 ] || ! grep -q "snapshot: .*s.vtkhdf" <<<"$err" ||
  [ ! -f "$work/sb/snapblock_snaps/t.h5" ]; then
  echo "FAIL: an unwritable snapshot: rc=$rc (want 1), t.h5 written? stderr:"; echo "$err" | sed 's/^/    /'
  fail=$((fail + 1))
fi
# A model whose outputs do not fit is refused before anything is made, with the numbers.
printf '#domain: 3 3 3\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 2\n#snapshot: 0 0 0 3 3 3 0.001 0.001 0.001 1 s.h5\n' \
  >"$work/huge.in"
refused "huge.in: the model needs [0-9.]+ GiB of host memory, the rank has [0-9.]+ GiB" -- \
  "$bin" fdtd "${cpu[@]}" "$work/huge.in" -o "$work/h"
# #geometry_objects_read: missing, corrupt or misshapen files and bad materials lists.
py=
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; break; fi
done
printf '#material: 2 0 1 0 sand\n' >"$work/m.txt"
model nofile '#geometry_objects_read: 0 0 0 missing.h5 m.txt'
refused "nofile.in:7: #geometry_objects_read: .*missing.h5: No such file" -- "$bin" fdtd "${cpu[@]}" "$work/nofile.in" -o "$work/o"
echo 'not hdf5' >"$work/junk.h5"
model junk '#geometry_objects_read: 0 0 0 junk.h5 m.txt'
refused "junk.in:7: #geometry_objects_read: .*junk.h5: not an HDF5 file" -- "$bin" fdtd "${cpu[@]}" "$work/junk.in" -o "$work/o"
mkfifo "$work/fifo.h5"
model fifo '#geometry_objects_read: 0 0 0 fifo.h5 m.txt'
refused "fifo.in:7: #geometry_objects_read: .*fifo.h5: a FIFO, not a regular file" -- \
  "$bin" fdtd "${cpu[@]}" "$work/fifo.in" -o "$work/o"
model nolist '#geometry_objects_read: 0 0 0 junk.h5 nolist.txt'
refused "nolist.in:7: #geometry_objects_read: .*nolist.txt: No such file" -- "$bin" fdtd "${cpu[@]}" "$work/nolist.in" -o "$work/o"
printf '#material: 2 0 1 0 sand\n#add_dispersion_debye: 1 3 1e-9 sand\n' >"$work/disp.txt"
model disp '#geometry_objects_read: 0 0 0 junk.h5 disp.txt'
refused "disp.txt:2: '#add_dispersion_debye:': only #material lines are read here" -- \
  "$bin" fdtd "${cpu[@]}" "$work/disp.in" -o "$work/o"
printf '#material: 2 zero 1 0 sand\n' >"$work/num.txt"
model num '#geometry_objects_read: 0 0 0 junk.h5 num.txt'
refused "num.txt:1: not '#material: er sigma mu_r sigma_m name'" -- "$bin" fdtd "${cpu[@]}" "$work/num.in" -o "$work/o"
if [ -n "$py" ]; then
  "$py" - "$work" <<'PY'
import sys, h5py, numpy as np
w = sys.argv[1]
with h5py.File(f"{w}/shape.h5", "w") as f:
    f.attrs["dx_dy_dz"] = (0.001, 0.001, 0.001)
    f["data"] = np.zeros((3, 3, 3), np.int16)
    f["rigidE"] = np.zeros((12, 3, 3, 2), np.int8)
    f["rigidH"] = np.zeros((6, 3, 3, 3), np.int8)
    f["ID"] = np.zeros((6, 4, 4, 4), np.uint32)
with h5py.File(f"{w}/dx.h5", "w") as f:
    f.attrs["dx_dy_dz"] = (0.002, 0.001, 0.001)
    f["data"] = np.zeros((3, 3, 3), np.int16)
with h5py.File(f"{w}/big.h5", "w") as f:
    f.attrs["dx_dy_dz"] = (0.001, 0.001, 0.001)
    f["data"] = np.full((3, 3, 3), 5, np.int16)
PY
  model shape '#geometry_objects_read: 0 0 0 shape.h5 m.txt'
  refused "shape.in:7: #geometry_objects_read: .*shape.h5: dataset 'rigidE' does not have the shape" -- \
    "$bin" fdtd "${cpu[@]}" "$work/shape.in" -o "$work/o"
  model dx '#geometry_objects_read: 0 0 0 dx.h5 m.txt'
  refused "dx.in:7: #geometry_objects_read: .*dx.h5: its cells \(0.002 x 0.001 x 0.001 m\) are not the model's" -- \
    "$bin" fdtd "${cpu[@]}" "$work/dx.in" -o "$work/o"
  model big '#geometry_objects_read: 0 0 0 big.h5 m.txt'
  refused "#geometry_objects_read: material 7 is not in the materials list" -- \
    "$bin" fdtd "${cpu[@]}" "$work/big.in" -o "$work/o"
fi
echo "views3d_bad_inputs: $checks checks, $fail failed"
[ $fail = 0 ]
