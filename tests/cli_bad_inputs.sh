#!/usr/bin/env bash
# Bad options, switches and inputs: each is refused with exit status 2 and
# one line on stderr naming the input and the reason, within seconds (a FIFO must not block).
set -u
bin=${GS_BIN:?}
src=${GS_SOURCE_DIR:?}
work=${GS_WORK:?}/cli_bad_inputs
rm -rf "$work"; mkdir -p "$work"
fail=0; checks=0
refused() { # refused PATTERN -- command...: exit 2, one stderr line matching PATTERN, within 20 s
  local pat=$1; shift 2
  local err rc lines
  err=$(timeout 20 "$@" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qE -- "$pat" <<<"$err"; then
    echo "FAIL: '$*' -> rc=$rc (want 2), $lines stderr lines (want 1):"; echo "$err" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
cpu=(--backend cpu)
refused "info: unexpected argument 'extra'" -- "$bin" info "${cpu[@]}" extra
refused "--decomp '9223372036854775807x9223372036854775807' is not PXxPY" -- \
  "$bin" fdtd "${cpu[@]}" --decomp 9223372036854775807x9223372036854775807 "$src/inputs/gpr.in" -o "$work/d"
refused "--decomp '6148914691236517206x3' is not PXxPY" -- \
  "$bin" fdtd "${cpu[@]}" --decomp 6148914691236517206x3 "$src/inputs/gpr.in" -o "$work/d"
refused "--grid '100000000000x100000000000' is not WxH" -- \
  "$bin" bench fdtd "${cpu[@]}" --grid 100000000000x100000000000
refused "--shard: '0/99999999999999999999' is not K/N" -- \
  "$bin" scale "${cpu[@]}" -d 2 -o "$work/s" --shard 0/99999999999999999999 "$src/inputs/images"
refused "GPUSTENCIL_IPC_SYNC='sometimes' is not one of flag\|event" -- \
  env GPUSTENCIL_IPC_SYNC=sometimes "$bin" info "${cpu[@]}"
refused "GPUSTENCIL_PDL='yes' is not one of 0\|1" -- env GPUSTENCIL_PDL=yes "$bin" info "${cpu[@]}"
refused "GPUSTENCIL_FAULT='@3' is not NAME or NAME@RANK" -- env GPUSTENCIL_FAULT=@3 "$bin" info "${cpu[@]}"
mkfifo "$work/scene.in"
refused "scene.in: a FIFO, not a regular file" -- "$bin" fdtd "${cpu[@]}" "$work/scene.in" -o "$work/f"
mkdir -p "$work/folder.in"
refused "folder.in: a folder, not a regular file" -- "$bin" fdtd "${cpu[@]}" "$work/folder.in" -o "$work/f"
refused "/dev/null: a character device, not a regular file" -- "$bin" fdtd "${cpu[@]}" /dev/null -o "$work/f"
printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 0xE\n' >"$work/hex.in"
refused "hex.in:3: #time_window: '0xE' is not a number" -- "$bin" fdtd "${cpu[@]}" "$work/hex.in" -o "$work/f"
refused "--grid 100000000x100000000: the model needs [0-9.]+ GiB of host memory on rank 0, the rank has [0-9.]+ GiB" -- \
  "$bin" bench fdtd "${cpu[@]}" --grid 100000000x100000000
# (2e10 steps of 50 x 50 cells: within the limit on a job's length, docs/usage.md, not in memory)
printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 20000000000\n#waveform: ricker 1 1e9 w\n#hertzian_dipole: z 0.05 0.05 0 w\n#rx: 0.06 0.05 0\n' >"$work/long.in"
refused "long.in: the model needs [0-9.]+ GiB of host memory on rank 0, the rank has" -- \
  "$bin" fdtd "${cpu[@]}" "$work/long.in" -o "$work/l"
refused "--halo-transport ipc: needs the cuda backend" -- \
  "$bin" fdtd "${cpu[@]}" --halo-transport ipc "$src/inputs/gpr.in" -o "$work/t"
refused "bench fdtd: --halo-transport mpi-cuda: the cpu backend has no device memory" -- \
  "$bin" bench fdtd "${cpu[@]}" --grid 64x64 --steps 2 --halo-transport mpi-cuda
# Single-use commands given twice (a second #domain would resize the grid under outputs sized from
# the first), lengths beyond the integers the
# geometry is painted with, a hostile count of waveforms, -o naming a file, a bad benchmarking knob.
hdr='#domain: 0.1 0.1 0.1\n#dx_dy_dz: 0.005 0.005 0.005\n#time_window: 1e-9\n#pml_cells: 2\n'
printf "$hdr#geometry_view: 0 0 0 0.1 0.1 0.1 0.005 0.005 0.005 g f\n#domain: 0.05 0.05 0.05\n" >"$work/twice.in"
refused "twice.in:6: #domain: given twice \(a model takes one\)" -- "$bin" fdtd "${cpu[@]}" "$work/twice.in" -o "$work/t2"
printf "$hdr#num_threads: 1\n#omp_threads: 2\n" >"$work/threads.in"
refused "threads.in:6: #omp_threads: given twice" -- "$bin" fdtd "${cpu[@]}" "$work/threads.in" -o "$work/t2"
printf "$hdr#sphere: 0.04 0.036 0.03 1e20 pec\n" >"$work/sphere.in"
refused "sphere.in:5: #sphere: 1e\+20 is more than 2\^40 cells" -- "$bin" fdtd "${cpu[@]}" "$work/sphere.in" -o "$work/t2"
{ printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n'
  for i in $(seq 0 2048); do echo "#waveform: ricker 1 1e9 w$i"; done; } >"$work/waves.in"
refused "waves.in:2052: #waveform: more than 2048 waveforms" -- "$bin" fdtd "${cpu[@]}" "$work/waves.in" -o "$work/t2"
# A command with more parameters than the parser holds is refused, not cut to the first 32.
printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n#rx: 0.05 0.05 0 r1%s\n' \
  "$(printf ' Ez%.0s' {1..30})" >"$work/many.in"
refused "many.in:4: #rx: 34 parameters: a command takes at most 32" -- "$bin" fdtd "${cpu[@]}" "$work/many.in" -o "$work/t2"
touch "$work/a_file"
refused "fdtd: .*a_file: Not a directory" -- "$bin" fdtd "${cpu[@]}" "$src/inputs/gpr.in" -o "$work/a_file"
refused "scale: .*a_file: Not a directory" -- "$bin" scale "${cpu[@]}" -d 2 -o "$work/a_file" "$src/inputs/images"
refused "GS_FDTD_RUN_FORM='bogus' is not one of tiles\|ez\|regs" -- env GS_FDTD_RUN_FORM=bogus "$bin" info "${cpu[@]}"
refused "--divisor: '0x10' is not a finite decimal number" -- "$bin" scale "${cpu[@]}" -d 0x10 -o "$work/s" "$src/inputs/images"
# bench scale's buffers weighed against memory before they are made, and a ulimit -v (RLIMIT_AS)
# counted in what a rank has (not a death in posix_memalign with exit 3).
refused "bench scale: --size 1048576 MiB: the model needs [0-9.]+ GiB of host memory on rank 0" -- \
  "$bin" bench scale "${cpu[@]}" --size 1048576
printf '#domain: 0.4 0.4 0.4\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 2\n#waveform: ricker 1 5e9 w\n#hertzian_dipole: z 0.03 0.03 0.03 w\n' >"$work/as.in"
# (a sanitized build cannot start under ulimit -v: ASan maps terabytes of shadow memory)
if bash -c 'ulimit -v 2000000 && exec "$0" info --backend cpu' "$bin" >/dev/null 2>&1; then
  refused "as.in: the model needs [0-9.]+ GiB of host memory, the rank has [0-9.]+ GiB" -- \
    bash -c 'ulimit -v 2000000 && exec "$0" "$@"' "$bin" fdtd "${cpu[@]}" "$work/as.in" -o "$work/as"
else
  echo "cli_bad_inputs: this build does not start under ulimit -v (sanitizers): its case skipped"
fi
mkdir -p "$work/clash"; cd "$work/clash" || exit 1
# A snapshot's or view's step that rounds to less than a cell: refused, as gprMax refuses it.
printf "$hdr#snapshot: 0 0 0 0.1 0.1 0.1 0.01 0 0.01 2 s\n" >step0.in
refused "step0.in:5: #snapshot: the step size should not be less than the spatial discretisation" -- \
  "$bin" fdtd "${cpu[@]}" step0.in -o o_step
printf "$hdr#geometry_view: 0 0 0 0.1 0.1 0.1 -0.01 0.005 0.005 v n\n" >stepneg.in
refused "stepneg.in:5: #geometry_view: the step size should not be less than zero" -- \
  "$bin" fdtd "${cpu[@]}" stepneg.in -o o_step
# 3D objects are checked when the geometry is painted: their errors name the scene's line too.
printf "$hdr#box: 0.05 0.05 0.05 0.02 0.08 0.08 pec\n" >box3.in
refused "box3.in:5: #box: the lower coordinates should be less than the upper coordinates" -- \
  "$bin" fdtd "${cpu[@]}" box3.in -o o_geo
printf "$hdr#cone: 0.05 0.05 0.05 0.05 0.05 0.05 0.01 0.005 pec\n" >cone3.in
refused "cone3.in:5: #cone: the two ends are the same point" -- "$bin" fdtd "${cpu[@]}" cone3.in -o o_geo
# Two outputs on one path (the later overwrote the earlier silently): refused before anything is
# written, naming the later line and the path; the receivers' MODEL.h5 (MODEL1.h5... with -n) too.
rx='#waveform: ricker 1 1e9 w\n#hertzian_dipole: z 0.05 0.05 0.05 w\n#rx: 0.06 0.05 0.05\n'
printf "$hdr$rx#geometry_objects_write: 0 0 0 0.02 0.02 0.02 c\n" >c.in
refused "c.in:8: #geometry_objects_write: writes c.h5, as the receivers' output does" -- "$bin" fdtd "${cpu[@]}" c.in -o o1
checks=$((checks + 1)); [ -e o1 ] && { echo "FAIL: o1 made for a refused scene"; fail=$((fail + 1)); }
snap='#snapshot: 0 0 0 0.1 0.1 0.1 0.01 0.01 0.01 2'
printf "$hdr$snap s.h5\n$snap s.h5\n" >snaps.in
refused "snaps.in:6: #snapshot: writes snaps_snaps/s.h5, as line 5 does" -- "$bin" fdtd "${cpu[@]}" snaps.in -o o1
printf "$hdr$snap s\n$snap s.vtkhdf\n" >snaps.in
refused "snaps.in:6: #snapshot: writes snaps_snaps/s.vtkhdf, as line 5 does" -- "$bin" fdtd "${cpu[@]}" snaps.in -o o1
printf "$hdr$snap .h5\n" >snaps.in
refused "snaps.in:5: #snapshot: '.h5': give a name before the extension" -- "$bin" fdtd "${cpu[@]}" snaps.in -o o1
view='#geometry_view: 0 0 0 0.1 0.1 0.1 0.005 0.005 0.005'
printf "$hdr$view v n\n$view v f\n" >views.in
refused "views.in:6: #geometry_view: writes v.vtkhdf, as line 5 does" -- "$bin" fdtd "${cpu[@]}" views.in -o o1
printf "$hdr$view v.vti n\n$view v1.vti n\n" >views.in # run 11 of v.vti is run 1 of v1.vti
refused "views.in:6: #geometry_view: writes v11.vti, as line 5 does" -- "$bin" fdtd "${cpu[@]}" -n 11 views.in -o o1
gow='#geometry_objects_write: 0 0 0 0.02 0.02 0.02'
printf "$hdr$gow g\n$gow g\n" >objs.in
refused "objs.in:6: #geometry_objects_write: writes g.h5, as line 5 does" -- "$bin" fdtd "${cpu[@]}" objs.in -o o1
h2='#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 3e-10\n'
printf "$h2#snapshot: 0 0 0 0.1 0.1 0.002 0.01 0.01 0.002 2 s\n#snapshot: 0 0 0 0.1 0.1 0.002 0.01 0.01 0.002 3 s\n" >snaps2.in
refused "snaps2.in:5: #snapshot: writes snaps2_snaps/s.vtkhdf, as line 4 does" -- "$bin" fdtd "${cpu[@]}" snaps2.in -o o1
printf "$h2#geometry_view: 0 0 0 0.1 0.1 0.002 0.002 0.002 0.002 v.vti n\n#geometry_view: 0 0 0 0.1 0.1 0.002 0.002 0.002 0.002 v.vti f\n" >views2.in
refused "views2.in:5: #geometry_view: writes v.vti, as line 4 does" -- "$bin" fdtd "${cpu[@]}" views2.in -o o1
rx2='#waveform: ricker 1 1e9 w\n#hertzian_dipole: z 0.05 0.05 0 w\n#rx: 0.06 0.05 0\n'
# (a view named .h5, which could land on the receivers' c2d1.h5, is refused by its format first,
# before anything is made)
printf "$h2$rx2#geometry_view: 0 0 0 0.1 0.1 0.002 0.002 0.002 0.002 c2d.h5 n\n" >c2d.in
refused "c2d.in:7: #geometry_view: 'c2d.h5': a geometry view is .vtkhdf or .vti" -- "$bin" fdtd "${cpu[@]}" -n 2 c2d.in -o o1
# Distinct names still run: c.h5 is the receivers', c1.vti and c.vtkhdf views', g.h5 and g_materials.txt an object's.
printf "$hdr$rx#geometry_objects_write: 0 0 0 0.02 0.02 0.02 g\n$view c1.vti n\n$view c n\n$snap s.h5\n$snap s2.h5\n" >c.in
checks=$((checks + 1))
if ! "$bin" fdtd "${cpu[@]}" c.in -o ok >/dev/null 2>&1 ||
  ! [ -f ok/c.h5 ] || ! [ -f ok/c1.vti ] || ! [ -f ok/c.vtkhdf ] || ! [ -f ok/g.h5 ] || ! [ -f ok/g_materials.txt ] ||
  ! [ -f ok/c_snaps/s.h5 ] || ! [ -f ok/c_snaps/s2.h5 ]; then
  echo "FAIL: a scene of distinct output names:"; ls -R ok 2>&1 | sed 's/^/    /'; fail=$((fail + 1))
fi
cd - >/dev/null || exit 1
# Inputs that would otherwise run silently wrong or use up memory.
mkdir -p "$work/adv"; cd "$work/adv" || exit 1
h3='#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 20\n#pml_cells: 4\n#waveform: ricker 1 1e10 w\n#hertzian_dipole: z 0.01 0.01 0.01 w\n#rx: 0.012 0.01 0.01\n'
scene3() { # scene3 NAME LINES PATTERN: the 3D header plus LINES in NAME, refused with PATTERN
  printf "$h3$2" >"$1"
  refused "$3" -- "$bin" fdtd "${cpu[@]}" "$1" -o o
}
# A sphere's or ellipsoid's centre past 2^31 cells wrapped into the domain (gprMax: OverflowError).
scene3 sph.in "#sphere: 4294967.306 0.01 0.01 0.005 pec\n" \
  "sph.in:8: #sphere: the centre is 4.29497e\+06 m along x, beyond 2\^31 cells"
scene3 ell.in "#ellipsoid: 0.01 -4294967.306 0.01 0.005 0.005 0.005 pec\n" \
  "ell.in:8: #ellipsoid: the centre is -4.29497e\+06 m along y"
# A Hertzian dipole's delay and removal time are checked as the other sources' are (it never fired).
scene3 hd.in "#hertzian_dipole: x 0.005 0.01 0.01 w -1 -2\n" \
  "hd.in:8: #hertzian_dipole: the delay and removal time must be >= 0"
# Negative #pml_cfs scaling values (gprMax refuses them; a negative sigma max read as None).
scene3 cfs.in "#pml_cfs: constant forward -1 0 constant forward 1 1 quadratic forward 0 None\n" \
  "cfs.in:8: #pml_cfs: the minimum and maximum scaling values must be >= 0 \\('-1 0'\\)"
scene3 cfs2.in "#pml_cfs: constant forward 0 0 constant forward 1 1 quadratic forward 0 -2\n" \
  "cfs2.in:8: #pml_cfs: the minimum and maximum scaling values must be >= 0"
# A third #pml_cfs (gprMax takes two: a second-order PML), an unknown scaling or formulation, a
# kappa minimum sum below 1 (two terms may each be below 1).
cfs='#pml_cfs: constant forward 0 0 constant forward 1 1 quadratic forward 0 None\n'
scene3 cfs3.in "$cfs$cfs$cfs" "cfs3.in:10: #pml_cfs: given 3 times; gprMax takes at most 2"
scene3 cfs4.in "#pml_cfs: constant forward 0 0 constant forward 1 1 nonic forward 0 None\n" \
  "cfs4.in:8: #pml_cfs: unknown scaling 'nonic'"
scene3 cfs5.in "#pml_formulation: RIPML\n" "cfs5.in:8: #pml_formulation: 'RIPML' is not HORIPML or MRIPML"
scene3 cfs6.in "${cfs/1 1 quadratic/0.5 1 quadratic}${cfs/1 1 quadratic/0.25 1 quadratic}" \
  "cfs6.in:9: #pml_cfs: the kappa minimums \\(the #pml_cfs terms'\\) add up to 0.75; it must be at least 1"
# Values whose update factors overflow float32: a 1e-300 Ohm line would give NaN fields, a source
# of 1e-44 Ohms all-zero ones, a Debye pole of 1e-300 s and a nearly collisionless Drude pole
# (omega 1e9, alpha 1e-11: w / q overflows) NaN; a Lorentz pole as extreme.
scene3 tl.in "#transmission_line: z 0.01 0.01 0.005 1e-300 w\n" \
  "tl.in:8: #transmission_line: resistance 1e-300 Ohms is too small: its current factor 1 / \(sqrt\(3\) R\) [0-9.e+]+ is beyond float32's range"
scene3 vs.in "#voltage_source: z 0.01 0.01 0.005 1e-38 w\n" \
  "vs.in:8: #voltage_source: resistance 1e-38 Ohms is too small: the conductance it adds, d / \(R d d\), 1e\+41 is beyond float32's range"
for pole in "debye: 1 5 1e-300" "drude: 1 1e20 1e-20" "drude: 1 1e9 1e-11" "lorentz: 1 1e30 1e10 0"; do
  scene3 disp.in "#material: 4 0 1 0 soil\n#add_dispersion_$pole soil\n" \
    "disp.in:9: #add_dispersion_${pole%%:*}: pole 1: its update factors \([-0-9.e+]+, [-0-9.e+]+\) are beyond float32's range"
done
# A NUL byte inside a line hid the rest of it from the length check and split it into two commands.
{ printf "$h3"; printf '#title: x\0#box: 0 0 0 0.01 0.01 0.01 pec\n'; } >nul.in
refused "nul.in:8: a NUL byte: not a text line" -- "$bin" fdtd "${cpu[@]}" nul.in -o o
# A UTF-8 byte order mark before the first command is read past (it hid that command, and the
# refusal then named a later, misleading cause); the first command's own error proves it was read.
printf '\xEF\xBB\xBF#domain: 0.1 0.1 x\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 3e-9\n' >bom.in
refused "bom.in:1: #domain: 'x' is not a number" -- "$bin" fdtd "${cpu[@]}" bom.in -o o
py=; for c in python3 /usr/bin/python3; do "$c" -c "import h5py, numpy" 2>/dev/null && { py=$c; break; }; done
if [ -n "$py" ]; then # (the tests' python with h5py: tests/CMakeLists.txt, GS_PYTHON_H5)
  # Geometry objects files: a materials list's numbers as the scene's (inf gave NaN fields, hex was taken);
  # a file declaring more cells than the host can read is refused before it is read (a few KB of HDF5
  # declared 5e8 cells, read before the model's memory check: 1 GB and more).
  "$py" - <<'PY'
import h5py, numpy as np
with h5py.File("obj.h5", "w") as f:
    f.attrs["dx_dy_dz"] = (0.001, 0.001, 0.001)
    f["data"] = np.zeros((5, 5, 5), np.int16)
with h5py.File("lazy.h5", "w") as f:  # declared, chunked, never written: a small file
    f.attrs["dx_dy_dz"] = (0.001, 0.001, 0.001)
    f.create_dataset("data", (1000, 1000, 500), dtype=np.int16, chunks=(8, 8, 8))
with h5py.File("lazy2.h5", "w") as f:  # 3e7 cells: within one rank's share, not another's
    f.attrs["dx_dy_dz"] = (0.001, 0.001, 0.001)
    f.create_dataset("data", (500, 300, 200), dtype=np.int16, chunks=(8, 8, 8))
PY
  printf '#material: inf 0 1 0 sand\n' >mat_inf.txt
  printf '#material: 2 0x10 1 0 sand\n' >mat_hex.txt
  for m in inf hex; do
    printf "$h3#geometry_objects_read: 0.005 0.005 0.005 obj.h5 mat_$m.txt\n" >gor_$m.in
    refused "mat_$m.txt:1: not '#material: er sigma mu_r sigma_m name'" -- "$bin" fdtd "${cpu[@]}" gor_$m.in -o o
  done
  printf '#material: 2 0 1 0 sand\n' >mat.txt
  # (5e8 cells, within 8 times the model's 1.25e8; 4 GB of address space reads at most ~5e7)
  printf '#domain: 0.5 0.5 0.5\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 2\n#geometry_objects_read: 0 0 0 lazy.h5 mat.txt\n' >lazy.in
  if bash -c 'ulimit -v 4000000 && exec "$0" info --backend cpu' "$bin" >/dev/null 2>&1; then # (not under ASan)
    refused "lazy.in:4: #geometry_objects_read: lazy.h5: data holds 500000000 cells: 1 to [0-9]{7,8} here" -- \
      bash -c 'ulimit -v 4000000 && exec "$0" "$@"' "$bin" fdtd "${cpu[@]}" lazy.in -o o
    # Ranks whose shares differ (here rank 1's address space) disagreed on the file: rank 1 refused,
    # rank 0 went on into the run's collectives, and the job hung. Now every rank stops; rank 1 says why.
    sed 's/lazy.h5/lazy2.h5/' lazy.in >lazy2.in
    err=$(timeout 120 "${GS_MPIEXEC:?}" -np 1 "$bin" fdtd "${cpu[@]}" lazy2.in -o o2 : -np 1 \
      bash -c 'ulimit -v 2000000 && exec "$0" "$@"' "$bin" fdtd "${cpu[@]}" lazy2.in -o o2 2>&1 >/dev/null); rc=$?
    checks=$((checks + 1))
    if [ "$rc" = 124 ] || [ "$rc" = 0 ] ||
      [ "$(grep -c "lazy2.in:4: #geometry_objects_read: lazy2.h5: data holds 30000000 cells: 1 to" <<<"$err")" != 1 ]; then
      echo "FAIL: ranks that disagree on a geometry objects file: rc=$rc (want 2, not a hang):"; echo "$err" | sed 's/^/    /'
      fail=$((fail + 1))
    fi
  fi
  # Outputs that would overwrite the files the scene reads, in gprMax's layout (-o the scene's folder).
  cp obj.h5 g.h5; cp mat.txt g_materials.txt; cp obj.h5 rd.h5
  printf "$h3#geometry_objects_read: 0.005 0.005 0.005 g.h5 g_materials.txt\n#geometry_objects_write: 0 0 0 0.02 0.02 0.02 g\n" >gow.in
  refused "gow.in:9: #geometry_objects_write: writes ./g.h5, the file line 8 reads \(#geometry_objects_read\)" -- \
    "$bin" fdtd "${cpu[@]}" gow.in -o .
  printf "$h3#geometry_objects_read: 0.005 0.005 0.005 rd.h5 mat.txt\n" >rd.in
  refused "rd.in: the receivers' output ./rd.h5 is the file line 8 reads" -- "$bin" fdtd "${cpu[@]}" rd.in -o .
  checks=$((checks + 1))
  cmp -s obj.h5 g.h5 && cmp -s obj.h5 rd.h5 || { echo "FAIL: an input file was overwritten"; fail=$((fail + 1)); }
fi
{ echo exc; seq 0 40; } >exc.vti
printf "$h3#excitation_file: exc.vti linear extrapolate\n#geometry_view: 0 0 0 0.02 0.02 0.02 0.001 0.001 0.001 exc.vti n\n" >exo.in
refused "exo.in:9: #geometry_view: writes ./exc.vti, the file line 8 reads \(#excitation_file\)" -- \
  "$bin" fdtd "${cpu[@]}" exo.in -o .
# ... through a symbolic link in another folder, and on a name the program writes (receivers_runNNN.csv).
mkdir -p A out; cp exc.vti out/exc.vti; ln -sf ../out/exc.vti A/lnk.txt
printf "$h3#excitation_file: lnk.txt linear extrapolate\n#geometry_view: 0 0 0 0.02 0.02 0.02 0.001 0.001 0.001 exc.vti n\n" >A/s.in
refused "A/s.in:9: #geometry_view: writes out/exc.vti, the file line 8 reads \(#excitation_file\)" -- \
  "$bin" fdtd "${cpu[@]}" A/s.in -o out
cp exc.vti receivers_run002.csv
printf "$h3#excitation_file: receivers_run002.csv linear extrapolate\n" >rr.in
refused "rr.in: ./receivers_run002.csv, a name gpustencil writes in its output folder, is the file line 8 reads" -- \
  "$bin" fdtd "${cpu[@]}" rr.in -n 2 -o .
checks=$((checks + 1))
cmp -s exc.vti out/exc.vti && cmp -s exc.vti receivers_run002.csv || { echo "FAIL: an input was overwritten"; fail=$((fail + 1)); }
# An excitation file edited between a checkpoint and its restart: the scene's hash holds its values.
{ echo a; seq 0 40; } >a.txt
printf "$h3#excitation_file: a.txt linear extrapolate\n#hertzian_dipole: x 0.005 0.005 0.005 a\n" >exh.in
checks=$((checks + 1))
"$bin" fdtd "${cpu[@]}" exh.in -o ck --stop-after 10 >/dev/null 2>&1 || { echo "FAIL: exh.in --stop-after"; fail=$((fail + 1)); }
{ echo a; seq 0 2 80; } >a.txt
refused "--restart: ck/checkpoint.gsck: made from a different scene" -- "$bin" fdtd "${cpu[@]}" exh.in -o ck --restart ck
cd - >/dev/null || exit 1
# gprMax drops lines that start with '##' (comments), as it does blank ones.
printf '## a comment line\n#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n' >"$work/comment.in"
checks=$((checks + 1))
"$bin" fdtd "${cpu[@]}" "$work/comment.in" -o "$work/c" >/dev/null 2>&1 || { echo "FAIL: a '##' line refused"; fail=$((fail + 1)); }
# Output that cannot be written ends with a failure status, not success: standard output, --csv
# (which a benchmark of several ranks writes).
checks=$((checks + 2))
"$bin" info "${cpu[@]}" >/dev/full 2>/dev/null && { echo "FAIL: info > /dev/full exited 0"; fail=$((fail + 1)); }
"${GS_MPIEXEC:?}" -np 2 --oversubscribe "$bin" bench fdtd "${cpu[@]}" --grid 64x64 --steps 2 --csv /dev/full >/dev/null 2>&1 &&
  { echo "FAIL: bench --csv /dev/full exited 0"; fail=$((fail + 1)); }
# An output that is an input (-o the inputs' own folder): refused even with --overwrite, the input
# kept (not replaced by its scaled image).
mkdir -p "$work/own" && cp "$src/inputs/images/gradient-grey8.png" "$work/own/g.png"
refused "own/g.png: the output would replace an input" -- "$bin" scale "${cpu[@]}" -d 2 --overwrite -o "$work/own" "$work/own/g.png"
checks=$((checks + 1))
cmp -s "$src/inputs/images/gradient-grey8.png" "$work/own/g.png" || { echo "FAIL: scale replaced its own input"; fail=$((fail + 1)); }
echo "cli_bad_inputs: $checks checks, $fail failed"
[ $fail = 0 ]
