#!/bin/bash
# Where a survey's start and end go: launch, MPI, CUDA, hwloc, build, exit; variants
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi -q | grep -iE "persistence|^GPU 0" | head -3; hwloc-info --version 2>&1 | head -1; ls /usr/lib/x86_64-linux-gnu/hwloc/ 2>&1 | head; mpirun --version | head -1
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
B=$PWD/build-gpu/gpustencil
el(){ awk -v a=$1 -v b=$2 'BEGIN{printf "%.3f", b-a}'; }
tm(){ local a=$(date +%s.%N); "$@" > /dev/null 2>&1; echo "$(el $a $(date +%s.%N)) s: $*"; }
for i in 1 2; do
tm true
tm $B --version
tm mpirun --bind-to none -np 1 true
tm mpirun --bind-to none -np 4 true
tm mpirun --bind-to none -np 1 $B --version
tm mpirun --bind-to none -np 4 $B --version
tm mpirun --bind-to none -np 1 $B info
tm mpirun --bind-to none -np 4 $B info
done
mkdir -p /tmp/sv
prof(){ # $1 label, $2 ranks, $3 traces, env before
  local lab=$1 g=$2 k=$3; shift 3
  rm -f /tmp/wrap_times.txt; rm -rf /tmp/sv/$lab
  local a=$(date +%s.%N)
  env "$@" GPUSTENCIL_DEBUG=1 mpirun --bind-to none -np $g .carry/wrap.sh $B fdtd .carry/bscan.in -n $k -o /tmp/sv/$lab > $out/p_$lab.log 2>&1
  local rc=$? e=$(date +%s.%N)
  echo "-- $lab: $g ranks, $k traces, $*: rc=$rc wall $(el $a $e) s; $(grep 'steps in' $out/p_$lab.log)"
  sort -n -k2 /tmp/wrap_times.txt | while read -r _ r _ s _ x; do echo "   rank $r: exec at +$(el $a $s) s, exit at +$(el $a $x) s (mpirun ends +$(el $a $e))"; done
  grep -E "debug: \+[0-9.]+ s \[rank (0|$((g-1)))\] (MPI|backend|placed|placement: (GPU|hwloc)|fdtd: (scene|[0-9]+ group|the group|run 1:)|fdtd done)" $out/p_$lab.log | sed 's/^gpustencil: debug: /   /' | cut -c1-150
}
for rep in 1 2; do
prof d4_$rep 4 4
prof v4_$rep 4 4 GS_WRAP_VIS=1
prof h4_$rep 4 4 HWLOC_COMPONENTS=-cuda,-nvml,-opencl,-rsmi,-levelzero,-gl
prof d1_$rep 1 1
done
log startup
prof full4 4 40
prof full1 1 40
log end
