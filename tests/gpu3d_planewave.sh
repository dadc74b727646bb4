#!/usr/bin/env bash
# CPU vs GPU bits of the discrete plane wave (kernels/fdtd3d_pw.cu against its CPU twin
# fdtd3d_pw_ref.c): tests/data/gpu3d/plane_waves.in (two plane waves, #plane_wave_angles with
# m = (280, 235, 133) and #plane_wave_vector, box faces inside the CPML of uneven depths, a
# dielectric sphere, a magnetic box and the E nodes updated again next to them, a PEC box, a
# Debye sphere, a Hertzian and a magnetic dipole; 300 steps): the checksum line, receivers.csv and MODEL.h5 of
# --backend cpu and --backend cuda are the same bytes, and so are those of a run stopped on the
# GPU at step 120 and restarted from its checkpoint on the CPU. Skips (77) without a GPU.
set -u
command -v nvidia-smi > /dev/null && nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/gpu3d_planewave; rm -rf "$w"; mkdir -p "$w"
scene=$src/tests/data/gpu3d/plane_waves.in
fail=0
f() { echo "FAIL: $*"; fail=1; }
for b in cpu cuda; do
  timeout -k 5 120 "$bin" fdtd --backend $b "$scene" -o "$w/$b" > "$w/$b.log" 2>&1 || f "$b run: $(tail -2 "$w/$b.log")"
  grep checksum "$w/$b.log"
done
timeout -k 5 120 "$bin" fdtd --backend cuda "$scene" -o "$w/ck" --stop-after 120 > /dev/null 2>&1 || f "cuda stop-after"
timeout -k 5 120 "$bin" fdtd --backend cpu "$scene" -o "$w/ck" --restart "$w/ck" > "$w/ck.log" 2>&1 ||
  f "cpu restart: $(tail -2 "$w/ck.log")"
c=$(grep checksum "$w/cpu.log")
[ -n "$c" ] && [ "$c" = "$(grep checksum "$w/cuda.log")" ] || f "checksums differ (cpu vs cuda)"
[ "$c" = "$(grep checksum "$w/ck.log")" ] || f "checksums differ (cuda stopped at 120, restarted on cpu)"
for o in receivers.csv plane_waves.h5; do
  cmp -s "$w/cpu/$o" "$w/cuda/$o" || f "$o differs (cpu vs cuda)"
  cmp -s "$w/cpu/$o" "$w/ck/$o" || f "$o differs (restart)"
done
[ $fail = 0 ] && echo "gpu3d_planewave: CPU and GPU identical"
exit $fail
