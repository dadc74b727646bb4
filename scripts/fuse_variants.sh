#!/usr/bin/env bash
# The fused kernel's tuning knobs (kernels/fdtd_fuse.cu) on the GPU machine: each variant built
# with its bit test, then bench fdtd on large grids (issue #20).
# usage: VARIANTS="GS_FDTD_FUSE_MINB=2 GS_FDTD_FUSE_MINB=3" bash scripts/fuse_variants.sh;
# outputs in $OUT (or ./gpu-out). GRIDS: the grids (default 16384x16384).
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
k=0
for v in ${VARIANTS:-GS_FDTD_FUSE_MINB=3}; do
  k=$((k + 1))
  ( cmake -S . -B "build-f$k" -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING="$v" > /dev/null 2>&1 &&
    cmake --build "build-f$k" -j 8 --target gpustencil test_fdtd_gpu > "$out/build-f$k.log" 2>&1 ) &
done
wait
k=0
for v in ${VARIANTS:-GS_FDTD_FUSE_MINB=3}; do
  k=$((k + 1))
  b=build-f$k
  echo "== $v"
  $b/tests/test_fdtd_gpu tests/data/fuse/fuse.in 2>&1 | grep -E "fused|checks"
  for g in ${GRIDS:-16384x16384}; do
    $b/gpustencil bench fdtd --grid $g --steps 300 2>&1 | grep -E "^bench|^ |ms per step" | sed 's/, 25 bytes.*//'
  done
done 2>&1 | tee "$out/fuse_variants.txt"
