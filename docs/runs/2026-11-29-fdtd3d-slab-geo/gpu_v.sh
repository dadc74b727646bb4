#!/bin/bash
# A/B/C of the CPML boxes' slab geometry: old = .carry/old/kernels (HEAD before it), new = this tree, new8 = this tree with GS_FDTD3_BOX_MINB=8;
# the GPU bit tests of the new tree; the roughness model's host crash hunted over repeated runs
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
mkdir -p /tmp/old /tmp/new8 && tar --exclude=./build --exclude=./build-gpu --exclude=./.carry -cf - . | tee >(tar -C /tmp/new8 -xf -) | tar -C /tmp/old -xf - && cp .carry/old/kernels/* /tmp/old/kernels/
sleep 1
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j8 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; } & p1=$!
{ cmake -S /tmp/old -B /tmp/old/build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake_old.log 2>&1 && cmake --build /tmp/old/build-gpu -j4 --target gpustencil > $out/build_old.log 2>&1; } || { tail -20 $out/build_old.log; exit 1; } & p2=$!
{ cmake -S /tmp/new8 -B /tmp/new8/build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DGS_FDTD3_BOX_MINB=8 > $out/cmake_new8.log 2>&1 && cmake --build /tmp/new8/build-gpu -j4 --target gpustencil > $out/build_new8.log 2>&1; } || { tail -20 $out/build_new8.log; exit 1; } & p3=$!
wait $p1 $p2 $p3
log built
N=build-gpu/gpustencil; O=/tmp/old/build-gpu/gpustencil; F=/tmp/new8/build-gpu/gpustencil
ls -la $N $O $F | awk '{print $5, $9}'
grep -E "h_kernel|e_kernel" -A1 $out/build.log | grep -oE "Used [0-9]+ registers|spill[^,]*" | sort | uniq -c | head
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*"
(cd build-gpu && timeout 250 ctest -j8 -R "^($T)\$" -E "gpu_gprmax_add_surface_roughness_full" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
log tests
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ ms per step"; }
for rep in 1 2; do
for m in debye lorentz magnetic; do
  echo "gpr_$m | old $(r $O bench fdtd inputs/bench/gpr_$m.in) | new $(r $N bench fdtd inputs/bench/gpr_$m.in) | new8 $(r $F bench fdtd inputs/bench/gpr_$m.in)"
done
for g in 100 200 300 400; do echo "cube $g^3 | old $(r $O bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | new $(r $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | new8 $(r $F bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300)"; done
done
log bench
D=tests/data/gprmax/add_surface_roughness_full
sed 's/^#time_window:.*/#time_window: 3e-11/' $D/add_surface_roughness_full.in > /tmp/rough_short.in
batch(){ local lab=$1; shift; local ps=""
  for i in $(seq 1 8); do env "$@" timeout 60 $N fdtd /tmp/rough_short.in -o /tmp/rough_${lab}_$i --backend cuda > $out/rough_${lab}_$i.log 2>&1 & ps="$ps $!"; done
  local bad=0; for p in $ps; do wait $p || bad=$((bad+1)); done
  echo "rough batch $lab ($*): $bad of 8 failed"
  for i in $(seq 1 8); do grep -q "steps in" $out/rough_${lab}_$i.log && rm -f $out/rough_${lab}_$i.log || head -30 $out/rough_${lab}_$i.log; done; }
for b in 1 2 3 4; do batch d$b GPUSTENCIL_EARLY_CUDA=1; done
for b in 1 2; do batch l$b GPUSTENCIL_EARLY_CUDA=0; done
log end
