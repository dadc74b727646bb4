#!/bin/bash
# ncu's per-instruction counts (source page, SASS) of the box kernels, packed in one file.
source scripts/gpu_prologue.sh
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
cmake --build build-gpu -j16 --target gpustencil > /tmp/build.log 2>&1 || exit 1
N=build-gpu/gpustencil; W=/tmp/w; mkdir -p $W
S="--section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats --section Occupancy --section SourceCounters --import-source no"
i=0
for m in "debye h_kernelILi0E inputs/bench/gpr_debye.in" "debye e_kernelILb1ELi0ELi4E inputs/bench/gpr_debye.in" "cube e_kernelILb0ELi0ELi0E --grid 300x300x300 --pml 10 --steps 20"; do
  set -- $m; n=$1; k=$2; shift 2; i=$((i+1))
  timeout 100 ncu --clock-control none --kernel-name-base mangled --kernel-name regex:"$k" --launch-skip 8 --launch-count 1 $S -o $W/rep$i $N bench fdtd "$@" > $W/rep$i.log 2>&1
  log "rep$i $n $k rc=$?"
  ncu -i $W/rep$i.ncu-rep --page source --csv --print-source sass > $W/src$i.csv 2> $W/src$i.err; log "src$i rc=$? $(wc -l < $W/src$i.csv) lines"
  ncu -i $W/rep$i.ncu-rep --page details --csv > $W/det$i.csv 2>/dev/null
done
cuobjdump -sass $N > $W/sass.txt 2>/dev/null
tar czf $out/p2.tgz -C $W .
log end
