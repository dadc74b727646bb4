#!/usr/bin/env bash
# Session-4 diagnostics: probe, ncu of the small-grid step, baseline bench.
set -uo pipefail
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
out=${OUT:-/tmp/diag}; mkdir -p $out
nvcc -arch=sm_90 -O2 -o /tmp/probe .carry/probe/probe.cu && /tmp/probe 2>&1 | tee $out/probe.txt &
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cm.log 2>&1 && cmake --build build-gpu -j 16 --target gpustencil > /tmp/b.log 2>&1 || { tail -20 /tmp/b.log; exit 1; }
wait
bin=build-gpu/gpustencil
for g in 2000x1000 2000x500 1000x1000; do
  echo "== ncu $g"
  timeout 100 ncu --cache-control none --launch-skip 60 --launch-count 12 \
    --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size \
    $bin bench fdtd --grid $g --steps 40 --no-graphs 2>&1 | grep -E "^\s+[a-z_]+<|^  [a-z_]+\(|step_|inject|sample|gpu__time|dram__|grid_size" | head -40
done 2>&1 | tee $out/ncu_small.txt
for g in 2000x1000 2000x500 1000x1000 4000x2000; do
  echo "== 1 gpu $g"; $bin bench fdtd --grid $g --steps 2000 2>&1 | grep -E "ms|Mcells" | tail -3
  echo "== 1 gpu $g no graphs"; $bin bench fdtd --grid $g --steps 2000 --no-graphs 2>&1 | grep -E "ms|Mcells" | tail -3
done 2>&1 | tee $out/bench1.txt
echo "== 2 gpus 2000x1000"
mpirun -np 2 $bin bench fdtd --grid 2000x1000 --steps 2000 2>&1 | tail -6 | tee $out/bench2.txt
