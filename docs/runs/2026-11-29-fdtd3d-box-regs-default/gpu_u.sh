#!/bin/bash
# The box kernels' register bound 6 as the default: the GPU bit tests; the early start's tests; an A/B of the early start on a 40-trace survey
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi --query-gpu=name,persistence_mode --format=csv,noheader | head -4
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
cuobjdump --dump-resource-usage build-gpu/libgs_kernels.a 2>/dev/null | grep -A1 -E "h_kernel|e_kernel" | grep -oE "Function [^:]*|REG:[0-9]+|STACK:[0-9]+|LOCAL:[0-9]+" | paste - - - - | head -30 > $out/box_regs.txt; wc -l $out/box_regs.txt
T="gpu_fdtd3d_disp_.*|gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_planewave.*|gpu_fdtd3d_ranks.*|gpu_gprmax_.*|gpu_early_start|gpu_info_cuda"
(cd build-gpu && timeout 240 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#|tests passed|tests failed" $out/ctest.log | head -80
log tests
B=$PWD/build-gpu/gpustencil
el(){ awk -v a=$1 -v b=$2 'BEGIN{printf "%.3f", b-a}'; }
sv(){ local lab=$1; shift; rm -rf /tmp/sv_$lab; local a=$(date +%s.%N)
  env "$@" mpirun --bind-to none -np 1 $B fdtd .carry/bscan.in -n 40 -o /tmp/sv_$lab > $out/sv_$lab.log 2>&1; local rc=$? e=$(date +%s.%N)
  echo "-- $lab $*: rc=$rc wall $(el $a $e) s; $(grep -E 'survey:' $out/sv_$lab.log | tail -1 | cut -c1-160)"; }
for rep in 1 2; do sv late_$rep GPUSTENCIL_EARLY_CUDA=0; sv early_$rep GPUSTENCIL_EARLY_CUDA=1; done
log end
