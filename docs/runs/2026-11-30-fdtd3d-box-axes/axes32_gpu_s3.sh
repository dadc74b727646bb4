#!/bin/bash
# The box kernels by axes, 32-bit offsets: GPU bit tests, bench A/B (GS_FDTD3_AXES=0: the one-pass generic box kernels;
# GS_FDTD3_AXES_HMINB / _EMINB: resident blocks), one step's kernels on the Debye scene and cube 300^3.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
R='gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*|.*zslab'
(cd build-gpu && timeout 200 ctest -j6 -R "$R" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -20
log tests
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" | sed 's/ ms per step//' || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }
N=build-gpu/gpustencil
for m in "inputs/bench/gpr_debye.in" "inputs/bench/gpr_lorentz.in" "inputs/bench/gpr_magnetic.in" "--grid 100x100x100 --pml 10 --steps 300" "--grid 200x200x200 --pml 10 --steps 300" "--grid 300x300x300 --pml 10 --steps 300" "--grid 400x400x400 --pml 10 --steps 200"; do
  a=$(GS_FDTD3_AXES=0 r $N bench fdtd $m); b=$(r $N bench fdtd $m); e4=$(GS_FDTD3_AXES_EMINB=4 r $N bench fdtd $m); e6=$(GS_FDTD3_AXES_EMINB=6 r $N bench fdtd $m); h4=$(GS_FDTD3_AXES_HMINB=4 r $N bench fdtd $m); a2=$(GS_FDTD3_AXES=0 r $N bench fdtd $m); b2=$(r $N bench fdtd $m)
  echo "$m | generic: $a $a2 | axes H6 E5: $b $b2 | E4: $e4 | E6: $e6 | H4: $h4"
done
log bench
for m in "debye inputs/bench/gpr_debye.in" "cube --grid 300x300x300 --pml 10 --steps 40"; do
  set -- $m; n=$1; shift
  timeout 100 ncu --clock-control none --launch-skip 60 --launch-count 7 --csv --page raw --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active $N bench fdtd "$@" > $out/times_$n.csv 2> $out/times_$n.err
  python3 - $out/times_$n.csv <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
h=next(i for i,r in enumerate(rows) if r and r[0]=='ID'); head=rows[h]; c={x:head.index(x) for x in head}
for r in rows[h+2:]:
  if len(r)<len(head): continue
  print(f"{r[c['Kernel Name']][:60]:60s} {r[c['gpu__time_duration.sum']]:>10s} inst {r[c['smsp__inst_executed.sum']]:>12s} grid {r[c['launch__grid_size']]:>8s} dram% {r[c['dram__throughput.avg.pct_of_peak_sustained_elapsed']]} regs {r[c['launch__registers_per_thread']]} occ% {r[c['sm__warps_active.avg.pct_of_peak_sustained_active']]}")
PY
done
log end
