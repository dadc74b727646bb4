#!/usr/bin/env bash
# The 2D kernels' compile-time tuning knobs on the GPU machine: each variant of VARIANTS (one
# -D flag, or several separated by ";", given to GPUSTENCIL_SCALE_TUNING) built in a folder of its
# own with its bit test (test_fdtd_gpu: GPU against CPU on SCENE), then bench fdtd on each grid of
# GRIDS for STEPS steps. Knobs: GS_FDTD_FUSE_MINB and GS_FDTD_FUSE_MINB_EDGE (kernels/fdtd_fuse.cu,
# blocks per SM of the fused passes), GS_FDTD_RUN_PER_SM (kernels/fdtd_run_tiles.cuh, blocks per SM of
# the grid on chip).
# usage: VARIANTS="GS_FDTD_FUSE_MINB=2 GS_FDTD_FUSE_MINB=3" scripts/diag/tuning_variants.sh
#        VARIANTS="GS_FDTD_RUN_PER_SM=1 GS_FDTD_RUN_PER_SM=2" SCENE=onchip/onchip \
#          GRIDS="2000x1000 600x300" STEPS=2000 scripts/diag/tuning_variants.sh
# Defaults: SCENE fuse/fuse (tests/data), GRIDS 16384x16384, STEPS 300. Outputs in $OUT (or
# ./gpu-out): variants.txt and each build's log.
source "$(dirname "${BASH_SOURCE[0]}")/../gpu_prologue.sh"
variants=${VARIANTS:?VARIANTS: the -D flags to compare, e.g. "GS_FDTD_FUSE_MINB=2 GS_FDTD_FUSE_MINB=3"}
k=0
for v in $variants; do # (built side by side: 16 cores)
  k=$((k + 1))
  (cmake -S . -B "build-v$k" -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING="$v" > /dev/null 2>&1 &&
    cmake --build "build-v$k" -j 8 --target gpustencil test_fdtd_gpu > "$out/build-v$k.log" 2>&1) &
done
wait
k=0
for v in $variants; do
  k=$((k + 1))
  b=build-v$k
  echo "== $v"
  [ -x "$b/gpustencil" ] || { echo "not built: $out/build-v$k.log"; continue; }
  $b/tests/test_fdtd_gpu "tests/data/${SCENE:-fuse/fuse}.in" 2>&1 | grep -E "fused|on chip|checks|not the bits"
  for g in ${GRIDS:-16384x16384}; do
    $b/gpustencil bench fdtd --grid "$g" --steps "${STEPS:-300}" 2>&1 | grep -E "^bench|^ |ms per step" |
      sed 's/, 25 bytes.*//'
  done
done 2>&1 | tee "$out/variants.txt"
