#!/usr/bin/env bash
# CPU vs GPU bits of a 3D scene using every feature of the 3D engine (tests/data/gpu3d/
# every_feature.in: smoothed dielectrics, a magnetic lossy material, PEC, an unsmoothed `n`
# object, CPML on six faces of six different depths, x, y and z dipoles with three waveforms
# (one switched on and off), Debye and Lorentz materials, a magnetic dipole, resistive and hard
# voltage sources, a transmission line, receivers with output lists and a #rx_array, a #snapshot;
# 1000 steps): the checksum line, receivers.csv, MODEL.h5, the #snapshot file (h5same.py) and the
# plane snapshots of --backend cpu and
# --backend cuda are the same bytes, and so are those of a run stopped on the GPU at step 400 and
# restarted from its checkpoint on the CPU. Skips (77) without a GPU.
set -u
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/gpu3d_bits; rm -rf "$w"; mkdir -p "$w"
scene=$src/tests/data/gpu3d/every_feature.in
fail=0
f() { echo "FAIL: $*"; fail=1; }
for b in cpu cuda; do
  timeout -k 5 120 "$bin" fdtd --backend $b "$scene" -o "$w/$b" --snapshot-every 500 > "$w/$b.log" 2>&1 ||
    f "$b run: $(tail -2 "$w/$b.log")"
  grep checksum "$w/$b.log"
done
timeout -k 5 120 "$bin" fdtd --backend cuda "$scene" -o "$w/ck" --stop-after 400 > /dev/null 2>&1 || f "cuda stop-after"
timeout -k 5 120 "$bin" fdtd --backend cpu "$scene" -o "$w/ck" --restart "$w/ck" > "$w/ck.log" 2>&1 ||
  f "cpu restart: $(tail -2 "$w/ck.log")"
c=$(grep checksum "$w/cpu.log")
[ -n "$c" ] && [ "$c" = "$(grep checksum "$w/cuda.log")" ] || f "checksums differ (cpu vs cuda)"
[ "$c" = "$(grep checksum "$w/ck.log")" ] || f "checksums differ (cuda stopped at 400, restarted on cpu)"
for o in receivers.csv every_feature.h5 snapshots/ez_z23_00000500.png snapshots/ez_z23_00001000.png; do
  cmp -s "$w/cpu/$o" "$w/cuda/$o" || f "$o differs (cpu vs cuda)"
done
for o in receivers.csv every_feature.h5; do cmp -s "$w/cpu/$o" "$w/ck/$o" || f "$o differs (restart)"; done
# The #snapshot file, dataset by dataset (HDF5 files of the same data need not be the same bytes).
for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do "$p" -c "import h5py" 2> /dev/null && py=$p && break; done
if [ -n "${py:-}" ]; then
  "$py" "$src/scripts/gprmax/h5same.py" "$w/cpu/every_feature_snaps/snap3d.vtkhdf" \
    "$w/cuda/every_feature_snaps/snap3d.vtkhdf" > "$w/h5same.log" 2>&1 || f "snapshot differs: $(tail -3 "$w/h5same.log")"
else
  f "no python3 with h5py to compare the snapshots"
fi
[ $fail = 0 ] && echo "gpu3d_bits: CPU and GPU identical"
exit $fail
