#!/bin/bash
# After the early CUDA start's removal: the roughness model's starts 8 at a time; the CPML boxes' one-slab kernels against one launch of the others (GS_FDTD3_BOX_ONE=0), the box/fused overlap knob; every GPU test
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
N=build-gpu/gpustencil
D=tests/data/gprmax/add_surface_roughness_full
sed 's/^#time_window:.*/#time_window: 3e-11/' $D/add_surface_roughness_full.in > /tmp/rough_short.in
batch(){ local lab=$1; shift; local ps=""
  for i in $(seq 1 8); do env "$@" timeout 60 $N fdtd /tmp/rough_short.in -o /tmp/rough_${lab}_$i --backend cuda > $out/rough_${lab}_$i.log 2>&1 & ps="$ps $!"; done
  local bad=0; for p in $ps; do wait $p || bad=$((bad+1)); done
  echo "rough batch $lab: $bad of 8 failed"
  for i in $(seq 1 8); do grep -q "steps in" $out/rough_${lab}_$i.log && rm -f $out/rough_${lab}_$i.log || head -30 $out/rough_${lab}_$i.log; done; }
for b in 1 2 3 4; do batch d$b X=1; done
log rough
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ ms per step"; }
for m in debye lorentz magnetic; do
  echo "gpr_$m | one-slab $(r $N bench fdtd inputs/bench/gpr_$m.in) | whole $(r env GS_FDTD3_BOX_ONE=0 $N bench fdtd inputs/bench/gpr_$m.in) | one-slab overlapped $(r env GS_FDTD3_OVERLAP=1 $N bench fdtd inputs/bench/gpr_$m.in)"
done
for g in 100 200 300 400; do echo "cube $g^3 | one-slab $(r $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | whole $(r env GS_FDTD3_BOX_ONE=0 $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300)"; done
log overlap
(cd build-gpu && timeout 240 ctest -L gpu -j8 --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
grep -E "Test +#" $out/ctest.log | wc -l
log end
