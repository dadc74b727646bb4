#!/usr/bin/env bash
# The 2D on-chip kernel's blocks per SM (kernels/fdtd_run.cu, GS_FDTD_RUN_PER_SM) on the GPU
# machine: each variant built with its bit test, then bench fdtd on small grids (issue #20).
# usage: VARIANTS="1 2 4" bash scripts/onchip_variants.sh; outputs in $OUT (or ./gpu-out).
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
printf '#domain: 2 1 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 4000\n#pml_cells: 0\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 1 0.5 0 w\n' > /tmp/nopml.in
for v in ${VARIANTS:-1 2 4}; do
  ( cmake -S . -B "build-v$v" -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING="GS_FDTD_RUN_PER_SM=$v" > /dev/null 2>&1 &&
    cmake --build "build-v$v" -j 5 --target gpustencil test_fdtd_gpu > "$out/build-v$v.log" 2>&1 ) &
done
wait
for v in ${VARIANTS:-1 2 4}; do
  b=build-v$v
  echo "== GS_FDTD_RUN_PER_SM=$v"
  $b/tests/test_fdtd_gpu tests/data/onchip/onchip.in 2>&1 | grep -E "on chip|checks"
  for g in 2000x1000 1000x1000 600x300; do
    $b/gpustencil bench fdtd --grid $g --steps 2000 2>&1 | grep -E "^bench|ms per step" | sed 's/, 25 bytes.*//'
  done
  GPUSTENCIL_ONCHIP=1 $b/gpustencil fdtd /tmp/nopml.in -o /tmp/np$v 2>&1 | grep "steps in" | sed 's/^/no CPML on chip: /'
done 2>&1 | tee "$out/onchip_variants.txt"
