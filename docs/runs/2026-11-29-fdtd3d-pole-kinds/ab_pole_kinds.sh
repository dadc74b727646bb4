#!/bin/bash
# pole kinds at compile time: A/B in one binary (GS_FDTD3_POLES=any: the kernels for any kind), ncu instruction counts, SASS, GPU bit tests
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
N=build-gpu/gpustencil
r(){ "$@" 2>&1 | grep -m1 -oE "[0-9.]+ Mcells/s, [0-9.]+ ms per step"; }
for rep in 1 2; do
for m in debye lorentz drude magnetic debye_bscan; do
  echo "gpr_$m | any $(GS_FDTD3_POLES=any r $N bench fdtd inputs/bench/gpr_$m.in) | kind $(r $N bench fdtd inputs/bench/gpr_$m.in)"
done; done
echo "cube300 $(r $N bench fdtd --grid 300x300x300 --steps 300)"
log bench
OBJ=$(find build-gpu -name "fdtd3d.cu.o" | head -1)
CUO=$(command -v cuobjdump || ls /usr/local/cuda*/bin/cuobjdump | head -1)
$CUO -sass $OBJ > /tmp/all.sass 2>&1
awk '/Function : /{p = ($0 ~ /ring_kernelILi16ELi32ELi3ELi2ELb1ELi(0|4)E|e_kernelILb1ELi0ELi(0|4)E|ring_kernelILi12ELi64ELi3ELi2ELb0ELi0E/)} p' /tmp/all.sass > $out/kernels.sass
wc -l $out/kernels.sass
sed -e "s/^#time_window:.*/#time_window: 40/" inputs/bench/gpr_debye.in > /tmp/d.in
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
for v in any kind; do
  [ $v = any ] && export GS_FDTD3_POLES=any || unset GS_FDTD3_POLES
  timeout 100 $NCU --launch-skip 100 --launch-count 16 --csv --page raw --metrics gpu__time_duration.sum,smsp__inst_executed.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed $N fdtd /tmp/d.in -o /tmp/d_$v > $out/ncu_$v.csv 2> $out/ncu_$v.err
  python3 - $out/ncu_$v.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if r and r[0] == 'ID')
head = rows[h]; col = {n: head.index(n) for n in head}
for r in rows[h + 2:]:
    if len(r) < len(head) or 'kernel' not in r[col['Kernel Name']]: continue
    print(f"{r[col['Kernel Name']][:40]:40s} {r[col['gpu__time_duration.sum']]:>10s} inst {r[col['smsp__inst_executed.sum']]:>12s} sm% {r[col['sm__throughput.avg.pct_of_peak_sustained_elapsed']]:>6s} dram% {r[col['dram__throughput.avg.pct_of_peak_sustained_elapsed']]}")
PY
done
unset GS_FDTD3_POLES
log ncu
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_gprmax_(debye_soil_3d|lorentz_drude_3d|dispersive_water|small_3d|magnetic_n)|gpu_fdtd3d_ranks|gpu_fdtd3d_survey.*"
(cd build-gpu && timeout 300 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#|tests passed|tests failed" $out/ctest.log | head -40
log end
