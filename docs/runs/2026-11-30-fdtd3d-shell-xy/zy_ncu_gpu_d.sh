#!/bin/bash
# Nsight Compute on the shell variant's kernel (cube 200^3, gpr_debye), and its chunk bound.
source scripts/gpu_prologue.sh
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
N=build-gpu/gpustencil
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }

S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section InstructionStats --section LaunchStats --section SourceCounters"
for m in "cube --grid 200x200x200 --pml 10 --steps 4" "debye inputs/bench/gpr_debye.in"; do
  set -- $m; n=$1; shift
  timeout 120 ncu --kernel-name-base mangled --kernel-name regex:'Lb1EEEv' --launch-skip 10 --launch-count 1 $S --csv $N bench fdtd "$@" > $out/ncu_$n.csv 2> $out/ncu_$n.err
  log "ncu $n rc=$?"
  python3 - $out/ncu_$n.csv <<'PY'
import csv,sys
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; mi=h.index('Metric Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit')
for r in rows[1:]:
  if r[vi] not in ('0','0.00',''): print(f"{r[mi]}={r[vi]}{r[ui]}")
PY
done
log end
