#!/usr/bin/env bash
# Session-4 experiment: fused sources and flat strip tiles, A/B.
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/exp}; mkdir -p $out
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cm.log 2>&1 && cmake --build build-gpu -j 16 > /tmp/b.log 2>&1 || { grep -E "error" /tmp/b.log | head; exit 1; }
( cmake -S . -B build-flat0 -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF "-DGPUSTENCIL_SCALE_TUNING=GS_FDTD_FLAT=0" > /dev/null 2>&1 &&
  cmake --build build-flat0 --target gpustencil -j 8 > /dev/null 2>&1 || echo "flat0 build failed" ) &
(cd build-gpu && ctest -R "gpu_fdtd|gpu_halo" --output-on-failure -j 4 > $out/ctest_gpu.log 2>&1); grep -E "tests passed|Failed|fatal" $out/ctest_gpu.log | head
wait
bin=build-gpu/gpustencil; base=/tmp/gs-base/build/gpustencil; [ -x $base ] || base=
for g in 2000x500 2000x1000; do
  for v in new nofuse flat0; do
    x=$bin; e=; [ $v = flat0 ] && x=build-flat0/gpustencil; [ $v = nofuse ] && e="GPUSTENCIL_FUSE_SOURCES=0"
    env $e timeout 60 ncu --cache-control none --launch-skip 230 --launch-count 6 --metrics gpu__time_duration.sum \
      $x bench fdtd --grid $g --steps 40 --no-graphs 2>&1 | grep -E "gpu__time" | awk -v t="$g $v" '{printf "%s %s us; ", t, $NF} END {print ""}'
  done
done 2>&1 | tee $out/ncu.txt
for g in 2000x1000 1000x1000; do
  for v in new nofuse flat0 base; do
    x=$bin; e=; [ $v = flat0 ] && x=build-flat0/gpustencil; [ $v = nofuse ] && e="GPUSTENCIL_FUSE_SOURCES=0"; [ $v = base ] && x=$base
    [ -n "$x" ] || continue
    env $e $x bench fdtd --grid $g --steps 5000 2>&1 | grep -E "Mcells" | sed "s/^/$g $v 1 GPU: /"
    timeout 60 mpirun -np 2 -x GPUSTENCIL_FUSE_SOURCES=${e#*=} $x bench fdtd --grid $g --steps 5000 2>&1 | grep -E "ranks:|error|fatal" | sed "s/^/$g $v: /"
  done
done 2>&1 | tee $out/bench.txt
