#!/bin/bash
# A/B/C: old = .carry/old/kernels, new = this tree, new4 = this tree with the box kernels capped for 4 resident blocks (GS_FDTD3_BOX_MINB=4)
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
mkdir -p /tmp/old /tmp/new4 && tar --exclude=./build --exclude=./build-gpu --exclude=./.carry -cf - . | tee >(tar -C /tmp/new4 -xf -) | tar -C /tmp/old -xf - && cp .carry/old/kernels/* /tmp/old/kernels/
sleep 1
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j8 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; } &
{ cmake -S /tmp/old -B /tmp/old/build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake_old.log 2>&1 && cmake --build /tmp/old/build-gpu -j4 --target gpustencil > $out/build_old.log 2>&1; } || { tail -20 $out/build_old.log; exit 1; } &
{ cmake -S /tmp/new4 -B /tmp/new4/build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DGS_FDTD3_BOX_MINB=4 > $out/cmake_new4.log 2>&1 && cmake --build /tmp/new4/build-gpu -j4 --target gpustencil > $out/build_new4.log 2>&1; } || { tail -20 $out/build_new4.log; exit 1; } &
wait
log built
N=build-gpu/gpustencil; O=/tmp/old/build-gpu/gpustencil; F=/tmp/new4/build-gpu/gpustencil
ls -la $N $O $F | awk '{print $5, $9}'
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ ms per step"; }
for rep in 1 2; do
for m in debye lorentz magnetic; do
  echo "gpr_$m | old $(r $O bench fdtd inputs/bench/gpr_$m.in) | new $(r $N bench fdtd inputs/bench/gpr_$m.in) | new4 $(r $F bench fdtd inputs/bench/gpr_$m.in)"
done
for g in 100 200 300; do echo "cube $g^3 | old $(r $O bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | new $(r $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | new4 $(r $F bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300)"; done
done
log bench
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_gprmax_(debye_soil_3d|lorentz_drude_3d|dispersive_water|small_3d|magnetic_n|mripml_3d|horipml2_3d|mripml2_3d|cfs_const_3d|pml_test_mripml|sources_3d|plane_wave_sphere|magnetic_dipole_50)"
(cd build-gpu && timeout 250 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
log end
