#!/bin/bash
# The CPML slabs in the fused kernel's CPML variant: GPU bit tests of this tree, then bench fdtd A/B in
# the same build: GS_FDTD3_SHELL=0 (the slabs in the box kernels, as before) against the default.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi -L
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
N=build-gpu/gpustencil
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }
ab(){ echo "$1 | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd "${@:2}") | shell $(r $N bench fdtd "${@:2}")"; }
ab debye-quick inputs/bench/gpr_debye.in
log quick
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*"
(cd build-gpu && timeout ${GS_CT:-240} ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
grep -E "bit-identical|DIFFER|differs" $out/ctest.log | head -20
log tests
for rep in 1 2; do
  for m in debye lorentz magnetic; do ab gpr_$m inputs/bench/gpr_$m.in; done
  for g in 100 200 300 400; do ab "cube $g^3" --grid ${g}x${g}x${g} --pml 10 --steps 300; done
done
log bench
ab "cube 512^3" --grid 512x512x512 --pml 10 --steps 100
[ "${GS_BIG:-0}" = 1 ] && ab "cube 1024^3" --grid 1024x1024x1024 --pml 10 --steps 100
log big
