#!/bin/bash
# Nsight Compute on the z-slab variant (docs/runs/2026-11-30-fdtd3d-cpml-shell/shell_z_slabs.diff applied to a copy of this tree): cube 200^3 and gpr_debye.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
mkdir -p /tmp/z && tar --exclude=./build --exclude=./build-gpu --exclude=./.carry -cf - . | tar -C /tmp/z -xf - && cd /tmp/z && patch -p1 -s < docs/runs/2026-11-30-fdtd3d-cpml-shell/shell_z_slabs.diff || exit 1
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
B=build-gpu/gpustencil
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
for m in "cube --grid 200x200x200 --pml 10 --steps 4" "debye inputs/bench/gpr_debye.in"; do
  set -- $m; n=$1; shift
  timeout 150 ncu --kernel-name-base mangled --kernel-name regex:'ring_kernel|h_kernel|e_kernel' --launch-skip 40 --launch-count 8 $S --csv $B bench fdtd "$@" > $out/ncu_$n.csv 2> $out/ncu_$n.err
  log "ncu $n rc=$?"
  python3 - $out/ncu_$n.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit'); ii=h.index('ID')
want=('Duration','DRAM Throughput','Compute (SM) Throughput','Achieved Occupancy','Registers Per Thread','Stall Long Scoreboard','Stall Barrier','Warp Cycles Per Issued Instruction','L2 Hit Rate','Memory Throughput')
seen=collections.OrderedDict()
for r in rows[1:]:
  k=r[ki][:60]
  if any(w in r[mi] for w in want): seen.setdefault((r[ii],k),[]).append(f"{r[mi]}={r[vi]}{r[ui]}")
for (i,k),v in seen.items(): print(i,k,'|',' ; '.join(v))
PY
done
