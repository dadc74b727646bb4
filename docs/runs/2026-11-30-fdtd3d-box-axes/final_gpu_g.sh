#!/bin/bash
# The 3D GPU tests (bit tests, gprMax references, the slab-loop knob), 1024^3 by axes and by the slab loop,
# then gprMax 4's CUDA solver beside ours (scripts/gprmax_peer.sh).
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
git log --oneline -1 2>/dev/null || true
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > /tmp/cmake.log 2>&1 && cmake --build build-gpu -j16 > /tmp/build.log 2>&1; } || { grep -E "error" /tmp/build.log | head; exit 1; }
log built
R='gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*|.*zslab|.*slab_loop'
(cd build-gpu && timeout 200 ctest -j6 -R "$R" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -20
grep -E "Test +#" $out/ctest.log | sed 's/ \+/ /g' > $out/ctest_tests.txt
log tests
N=build-gpu/gpustencil
$N bench fdtd --grid 1024x1024x1024 --pml 10 --steps 20 2>&1 | grep -E "Mcells"
GS_FDTD3_AXES=0 $N bench fdtd --grid 1024x1024x1024 --pml 10 --steps 20 2>&1 | grep -E "Mcells"
log 1024
GS_PEER_BUDGET_S=${BUDGET:-260} bash scripts/gprmax_peer.sh > $out/peer_run.log 2>&1
sed -n '/^model /,$p' $out/peer.txt | head -30
log peer
