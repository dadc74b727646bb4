#!/bin/bash
# The shell variant (x, y and z slabs in the staged march): the 3D bit and gprMax reference tests on
# the default path (which takes it wherever it fits), then bench fdtd against the box kernels
# (GS_FDTD3_SHELL=0) in the same build.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi -L
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*|.*zslab"
(cd build-gpu && timeout 150 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -20
grep -E "Test +#" $out/ctest.log | sed 's/ \+/ /g' > $out/ctest_tests.txt
grep -B5 -A25 -m3 'Failed' $out/ctest.log | head -80
log tests
N=build-gpu/gpustencil
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }
ab(){ echo "$1 | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd "${@:2}") | shell $(r $N bench fdtd "${@:2}") | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd "${@:2}") | shell $(r $N bench fdtd "${@:2}")"; }
for m in debye lorentz magnetic; do ab gpr_$m inputs/bench/gpr_$m.in; done
for g in 100 200 300 400; do ab "cube $g^3" --grid ${g}x${g}x${g} --pml 10 --steps 300; done
log bench
ab "cube 512^3" --grid 512x512x512 --pml 10 --steps 100
log 512
echo "cube 1024^3 | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd --grid 1024x1024x1024 --pml 10 --steps 100) | shell $(r $N bench fdtd --grid 1024x1024x1024 --pml 10 --steps 100)"
$N bench fdtd --grid 1024x1024x1024 --pml 10 --steps 100 2>&1 | tail -5
log end
