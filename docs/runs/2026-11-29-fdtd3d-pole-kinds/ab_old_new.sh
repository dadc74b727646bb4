#!/bin/bash
# A/B: old = .carry/old/kernels (the tree before the change), new = this tree; ncu of new; SASS; GPU bit tests
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
mkdir -p /tmp/old && tar --exclude=./build --exclude=./build-gpu --exclude=./.carry -cf - . | tar -C /tmp/old -xf - && cp .carry/old/kernels/* /tmp/old/kernels/
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; } &
{ cmake -S /tmp/old -B /tmp/old/build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake_old.log 2>&1 && cmake --build /tmp/old/build-gpu -j8 --target gpustencil > $out/build_old.log 2>&1; } || { tail -20 $out/build_old.log; exit 1; } &
wait
log built
N=build-gpu/gpustencil; O=/tmp/old/build-gpu/gpustencil
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ Mcells/s, [0-9.]+ ms per step"; }
for rep in 1 2; do
for m in debye lorentz drude magnetic; do
  echo "gpr_$m | old $(r $O bench fdtd inputs/bench/gpr_$m.in) | new $(r $N bench fdtd inputs/bench/gpr_$m.in)"
done
for g in 100 200 300; do echo "cube $g^3 | old $(r $O bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300) | new $(r $N bench fdtd --grid ${g}x${g}x${g} --pml 10 --steps 300)"; done
done
log bench
OBJ=$(find build-gpu -name "fdtd3d.cu.o" | head -1)
CUO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
$CUO -sass $OBJ > /tmp/all.sass 2>&1
awk '/Function : /{p = ($0 ~ /ring_kernelILi16ELi32ELi3ELi2ELb1ELi4E|e_kernelILb1ELi0ELi4E|h_kernelILi0E/)} p' /tmp/all.sass > $out/kernels.sass
sed -e "s/^#time_window:.*/#time_window: 40/" inputs/bench/gpr_debye.in > /tmp/d.in
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 100 $NCU --launch-skip 100 --launch-count 8 --csv --page raw --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__average_warp_latency_issue_stalled_long_scoreboard.ratio,smsp__average_warp_latency_issue_stalled_lg_throttle.ratio $N fdtd /tmp/d.in -o /tmp/d_n > $out/ncu.csv 2> $out/ncu.err
python3 - $out/ncu.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if r and r[0] == 'ID')
head = rows[h]; col = {n: head.index(n) for n in head}
for r in rows[h + 2:]:
    if len(r) < len(head) or 'kernel' not in r[col['Kernel Name']]: continue
    print(f"{r[col['Kernel Name']][:40]:40s} {r[col['gpu__time_duration.sum']]:>10s} inst {r[col['smsp__inst_executed.sum']]:>12s} sm% {r[col['sm__throughput.avg.pct_of_peak_sustained_elapsed']]:>6s} dram% {r[col['dram__throughput.avg.pct_of_peak_sustained_elapsed']]} " + " ".join(r[col[c]] for c in head if 'stalled' in c))
PY
log ncu
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_gprmax_(debye_soil_3d|lorentz_drude_3d|dispersive_water|small_3d|magnetic_n|mripml_3d|horipml2_3d|mripml2_3d|cfs_const_3d|pml_test_mripml|sources_3d|plane_wave_sphere|magnetic_dipole_50)"
(cd build-gpu && timeout 250 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
log end
