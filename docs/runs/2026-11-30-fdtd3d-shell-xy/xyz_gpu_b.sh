#!/bin/bash
# The shell variant with and without the L2 prefetch of the next plane's Phi, against the box
# kernels; Nsight Compute on cube 200^3 and gpr_debye.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
N=build-gpu/gpustencil
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }
ab(){ echo "$1 | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd "${@:2}") | shell $(r $N bench fdtd "${@:2}") | no-ahead $(GS_FDTD3_SHELL_AHEAD=0 r $N bench fdtd "${@:2}")"; }
ab gpr_debye inputs/bench/gpr_debye.in
for g in 100 200 300; do ab "cube $g^3" --grid ${g}x${g}x${g} --pml 10 --steps 300; done
log bench
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section InstructionStats"
for m in "cube --grid 200x200x200 --pml 10 --steps 4" "debye inputs/bench/gpr_debye.in"; do
  set -- $m; n=$1; shift
  timeout 150 ncu --kernel-name-base mangled --kernel-name regex:'ring_kernel|h_kernel|e_kernel' --launch-skip 40 --launch-count 3 $S --csv $N bench fdtd "$@" > $out/ncu_$n.csv 2> $out/ncu_$n.err
  log "ncu $n rc=$?"
  python3 - $out/ncu_$n.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit'); ii=h.index('ID')
want=('Duration','DRAM Throughput','Compute (SM) Throughput','Achieved Occupancy','Registers Per Thread','Stall','Warp Cycles Per Issued Instruction','L2 Hit Rate','Executed Instructions','Grid Size','Local Memory Spilling')
seen=collections.OrderedDict()
for r in rows[1:]:
  k=r[ki][:60]
  if any(w in r[mi] for w in want) and r[vi] not in ('0','0.00'): seen.setdefault((r[ii],k),[]).append(f"{r[mi]}={r[vi]}{r[ui]}")
for (i,k),v in seen.items(): print(i,k,'|',' ; '.join(v))
PY
done
GS_FDTD3_SHELL=0 timeout 100 ncu --kernel-name-base mangled --kernel-name regex:'h_kernel|e_kernel' --launch-skip 40 --launch-count 2 --section SpeedOfLight --section InstructionStats --csv $N bench fdtd --grid 200x200x200 --pml 10 --steps 4 > $out/ncu_boxes.csv 2>&1
grep -E '"Duration"|"Executed Instructions"' $out/ncu_boxes.csv | cut -c1-300
log end
