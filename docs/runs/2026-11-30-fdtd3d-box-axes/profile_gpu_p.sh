#!/bin/bash
# Where the CPML box kernels spend their instructions: per-kernel step times, then ncu's
# per-instruction counts (source page, SASS) of h_kernel and e_kernel on gpr_debye and cube 300^3.
source scripts/gpu_prologue.sh
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
N=build-gpu/gpustencil
cuobjdump -sass $N 2>/dev/null | gzip > $out/sass.txt.gz; log sass
$N bench fdtd inputs/bench/gpr_debye.in 2>&1 | tail -4
$N bench fdtd --grid 300x300x300 --pml 10 --steps 300 2>&1 | tail -4
log bench
for m in "debye inputs/bench/gpr_debye.in" "cube --grid 300x300x300 --pml 10 --steps 40"; do
  set -- $m; n=$1; shift
  timeout 100 ncu --clock-control none --launch-skip 60 --launch-count 14 --csv --page raw --metrics gpu__time_duration.sum,smsp__inst_executed.sum,launch__grid_size,dram__throughput.avg.pct_of_peak_sustained_elapsed $N bench fdtd "$@" > $out/times_$n.csv 2> $out/times_$n.err
  log "times $n rc=$?"
  python3 - $out/times_$n.csv <<'PY'
import csv,sys
rows=list(csv.reader(open(sys.argv[1])))
h=next(i for i,r in enumerate(rows) if r and r[0]=='ID'); head=rows[h]; c={x:head.index(x) for x in head}
for r in rows[h+2:]:
  if len(r)<len(head): continue
  print(f"{r[c['Kernel Name']][:70]:70s} {r[c['gpu__time_duration.sum']]:>10s} inst {r[c['smsp__inst_executed.sum']]:>12s} grid {r[c['launch__grid_size']]:>8s} dram% {r[c['dram__throughput.avg.pct_of_peak_sustained_elapsed']]}")
PY
done
S="--section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters --import-source no"
i=0
for m in "debye h_kernelILi0E inputs/bench/gpr_debye.in" "debye e_kernelILb1ELi0ELi4E inputs/bench/gpr_debye.in" "cube e_kernelILb0ELi0ELi0E --grid 300x300x300 --pml 10 --steps 20" "cube h_kernelILi0E --grid 300x300x300 --pml 10 --steps 20"; do
  set -- $m; n=$1; k=$2; shift 2; i=$((i+1))
  timeout 100 ncu --clock-control none --kernel-name-base mangled --kernel-name regex:"$k" --launch-skip 8 --launch-count 1 $S -o $out/rep$i $N bench fdtd "$@" > $out/rep$i.log 2>&1
  log "rep$i $n $k rc=$?"
  ncu -i $out/rep$i.ncu-rep --page source --csv --print-source sass > $out/src$i.csv 2> $out/src$i.err; log "src$i rc=$? $(wc -l < $out/src$i.csv) lines"; head -c 300 $out/src$i.err
  ncu -i $out/rep$i.ncu-rep --page details --csv > $out/det$i.csv 2>/dev/null
  gzip -f $out/src$i.csv
done
log end
