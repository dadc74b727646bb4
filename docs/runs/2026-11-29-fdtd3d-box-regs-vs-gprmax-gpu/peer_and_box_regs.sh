#!/bin/bash
# gprMax's CUDA solver beside ours on one H200 (cubes and dispersive scenes); then the box kernels
# built with GS_FDTD3_BOX_MINB=6 against the default build, in the same job
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
GS_PEER_BUDGET_S=${BUDGET:-370} bash scripts/gprmax_peer.sh > /dev/null 2>&1
sed -n '/^model /,$p' $out/peer.txt | head -30
log peer
{ cmake -S . -B /tmp/b6 -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DGS_FDTD3_BOX_MINB=6 > $out/cmake6.log 2>&1 && cmake --build /tmp/b6 -j16 --target gpustencil > $out/build6.log 2>&1; } || { tail -5 $out/build6.log; exit 1; }
log built minb6
N=/tmp/b6/gpustencil; O=build-gpu/gpustencil
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ Mcells/s, [0-9.]+ ms per step"; }
for rep in 1 2; do
for m in debye lorentz magnetic; do echo "gpr_$m | minb1 $(r $O bench fdtd inputs/bench/gpr_$m.in) | minb6 $(r $N bench fdtd inputs/bench/gpr_$m.in)"; done
for g in 200 300; do echo "cube $g^3 | minb1 $(r $O bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | minb6 $(r $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300)"; done
done
log end
