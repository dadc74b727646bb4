#!/bin/bash
# The shell variant (z and y slabs, warp kinds): bit tests, bench against the box kernels
# (GS_FDTD3_SHELL=0) and without its L2 prefetch, Nsight Compute on cube 200^3.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
N=build-gpu/gpustencil
r(){ local o; o=$("$@" 2>&1); echo "$o" | grep -m1 -oE "[0-9.]+ ms per step" || echo "FAILED: $(echo "$o" | tail -3 | tr '\n' ' ')"; }
ab(){ echo "$1 | boxes $(GS_FDTD3_SHELL=0 r $N bench fdtd "${@:2}") | shell $(r $N bench fdtd "${@:2}") | no-ahead $(GS_FDTD3_SHELL_AHEAD=0 r $N bench fdtd "${@:2}")"; }
ab gpr_debye inputs/bench/gpr_debye.in
for g in 100 200 300; do ab "cube $g^3" --grid ${g}x${g}x${g} --pml 10 --steps 300; done
log bench
T="gpu_fdtd3d_cpu_vs_gpu|gpu_fdtd3d_sources_cpu_vs_gpu|gpu_fdtd3d_disp_.*|gpu_fdtd3d_every_feature|gpu_fdtd3d_planewave|gpu_fdtd3d_ranks|gpu_fdtd3d_ranks_pw|gpu_fdtd3d_ranks_outputs|gpu_gprmax_.*|.*zslab"
(cd build-gpu && timeout 150 ctest -j8 -R "^($T)\$" --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -20
grep -E "Test +#" $out/ctest.log | sed 's/ \+/ /g' > $out/ctest_tests.txt
log tests
S="--section SpeedOfLight --section WarpStateStats --section Occupancy --section InstructionStats"
timeout 100 ncu --kernel-name-base mangled --kernel-name regex:'ring_kernel|h_kernel|e_kernel' --launch-skip 40 --launch-count 4 $S --csv $N bench fdtd --grid 200x200x200 --pml 10 --steps 4 > $out/ncu_cube.csv 2> $out/ncu_cube.err
python3 - $out/ncu_cube.csv <<'PY'
import csv,sys,collections
rows=[r for r in csv.reader(open(sys.argv[1])) if len(r)>10]
h=rows[0]; ki=h.index('Kernel Name'); mi=h.index('Metric Name'); vi=h.index('Metric Value'); ui=h.index('Metric Unit'); ii=h.index('ID')
want=('Duration','DRAM Throughput','Compute (SM) Throughput','Achieved Occupancy','Stall','Warp Cycles Per Issued Instruction','Executed Instructions','Grid Size')
seen=collections.OrderedDict()
for r in rows[1:]:
  k=r[ki][:60]
  if any(w in r[mi] for w in want) and r[vi] not in ('0','0.00'): seen.setdefault((r[ii],k),[]).append(f"{r[mi]}={r[vi]}{r[ui]}")
for (i,k),v in seen.items(): print(i,k,'|',' ; '.join(v))
PY
log end
