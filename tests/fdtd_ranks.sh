#!/usr/bin/env bash
# Distributed FDTD: 1, 2, 3 and 4 ranks and the decompositions 1x4, 4x1, 2x2
# and uneven splits give the checksum line, receivers.csv, snapshots and
# B-scan of one rank, byte for byte, on inputs/gpr.in, inputs/material_map.in
# and tests/data/halo.in (source on the rank boundaries, waves through every
# boundary, corner and CPML slab), for every transport in GS_TRANSPORTS
# (default mpi-host), halo depths 1-3, with and without overlap, and with the
# deep-halo cycles fused into single passes; impossible choices are refused
# with the reason. GS_BACKEND picks the backend;
# GS_MAX_RANKS limits the rank count.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}; b=${GS_BACKEND:-cpu}; max=${GS_MAX_RANKS:-4}
if [ "$b" = cuda ]; then # every transport this machine has
  dflt="ipc mpi-host"
  ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true" && dflt="$dflt mpi-cuda"
else
  dflt=mpi-host
fi
transports=${GS_TRANSPORTS:-$dflt}
hdecomps=${GS_HALO_DECOMPS:-2x1 1x2 2x2 3x1 1x3 4x1}
# Deeper halos on fewer splits: a 2-D split's corners and an uneven one cover their paths.
hdecomps_deep=${GS_HALO_DECOMPS_DEEP:-2x2 1x3}
if [ "$b" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
w=${GS_WORK:?}/fdtd_ranks_$b; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { # NAME RANKS ARGS...
  local name=$1 n=$2; shift 2
  "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/$name" > "$w/$name.log" 2>&1 || f "$name: $(tail -3 "$w/$name.log")"
}
same() { # REFERENCE NAME: checksum line, receivers and snapshots byte for byte
  [ "$(grep checksum "$w/$1.log")" = "$(grep checksum "$w/$2.log")" ] || f "$2: checksum differs"
  cmp -s "$w/$1/receivers.csv" "$w/$2/receivers.csv" || f "$2: receivers.csv differs"
  [ ! -d "$w/$1/snapshots" ] || diff -r "$w/$1/snapshots" "$w/$2/snapshots" > /dev/null || f "$2: snapshots differ"
}
for scene in gpr material_map; do
  args=("$src/inputs/$scene.in" --steps 240 --snapshot-every 120 --halo-transport "${transports%% *}")
  run "$scene-1" 1 "${args[@]}"
  decomps="2x1 1x2 3x1 1x3 2x2 4x1 1x4"
  [ "$scene" = gpr ] || decomps="3x1 2x2" # the material map's cells: an uneven and a 2-D split
  for d in $decomps; do
    n=$(( ${d%x*} * ${d#*x} )); [ "$n" -le "$max" ] || continue
    run "$scene-$d" "$n" "${args[@]}" --decomp "$d"
    same "$scene-1" "$scene-$d"
  done
done
hargs=("$src/tests/data/halo.in" --snapshot-every 200)
run halo-1 1 "${hargs[@]}"
if [ "$b" = cuda ]; then # CUDA graphs (the default on GPUs) against every kernel launched from the host
  run halo-1-nog 1 "${hargs[@]}" --no-graphs
  same halo-1 halo-1-nog
  grep -q "CUDA graphs on" "$w/halo-1.log" || f "halo-1: CUDA graphs not on"
fi
for t in $transports; do
  for r in 1 2 3; do
    ds=$hdecomps; [ $r = 1 ] || ds=$hdecomps_deep
    for d in $ds; do
      n=$(( ${d%x*} * ${d#*x} )); [ "$n" -le "$max" ] || continue
      run "halo-$t-R$r-$d" "$n" "${hargs[@]}" --decomp "$d" --halo-transport "$t" --halo-depth "$r"
      same halo-1 "halo-$t-R$r-$d"
      grep -q "halo transport $t (rank 0), halo depth $r, overlap on" "$w/halo-$t-R$r-$d.log" || f "halo-$t-R$r-$d: header"
    done
    if [ "$max" -ge 2 ]; then
      run "halo-$t-R$r-no" 2 "${hargs[@]}" --halo-transport "$t" --halo-depth "$r" --no-overlap
      same halo-1 "halo-$t-R$r-no"
      if [ "$t" = ipc ]; then # graphs with ipc; and without them
        grep -q "CUDA graphs on" "$w/halo-$t-R$r-no.log" || f "halo-$t-R$r-no: CUDA graphs not on"
        run "halo-$t-R$r-nog" 2 "${hargs[@]}" --halo-transport "$t" --halo-depth "$r" --no-graphs
        same halo-1 "halo-$t-R$r-nog"
      fi
    fi
  done
done
grep -q "decomposition 2x1, halo transport ${transports%% *}" "$w/gpr-2x1.log" || f "run header"
# Fused passes: one rank in passes of 5, and every deep-halo cycle of R steps as one
# pass (GPUSTENCIL_FUSE, kernels/fdtd_fuse.cu; the CPU runs its twin): the bits of one rank's single steps.
fused() { GPUSTENCIL_DEBUG=1 GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=$1 run "${@:2}"; }
fused 5 halo-fused-1 1 "${hargs[@]}"
same halo-1 halo-fused-1
grep -q "5 steps fused a pass" "$w/halo-fused-1.log" || f "halo-fused-1: not fused"
for r in 2 3 7; do
  ds="2x1 1x2 2x2"; [ $r = 2 ] || ds=2x2
  for d in $ds; do
    n=$(( ${d%x*} * ${d#*x} )); [ "$n" -le "$max" ] || continue
    fused 7 "halo-fused-R$r-$d" "$n" "${hargs[@]}" --decomp "$d" --halo-transport "${transports%% *}" --halo-depth "$r"
    same halo-1 "halo-fused-R$r-$d"
    grep -q "deep-halo cycles of $r steps as fused passes" "$w/halo-fused-R$r-$d.log" || f "halo-fused-R$r-$d: not fused"
  done
done
# Without --decomp the ranks split the rows (row halos are contiguous; gpr.in is 600 x 300).
if [ "$max" -ge 2 ]; then
  run auto 2 "$src/inputs/gpr.in" --steps 100
  grep -q "decomposition 1x2" "$w/auto.log" || f "default decomposition: $(grep decomposition "$w/auto.log")"
  # B-scan over 2 runs on 2 ranks equals one rank's.
  run bscan-1 1 "$src/inputs/gpr.in" --steps 150 -n 2
  run bscan-2 2 "$src/inputs/gpr.in" --steps 150 -n 2
  cmp -s "$w/bscan-1/bscan.png" "$w/bscan-2/bscan.png" || f "B-scan differs"
  cmp -s "$w/bscan-1/receivers_run002.csv" "$w/bscan-2/receivers_run002.csv" || f "run 2 receivers differ"
  # Refusals, one line from one rank, exit status 2.
  refuse() { # PATTERN RANKS ARGS...
    local pat=$1 n=$2; shift 2
    local out rc
    out=$("$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/x" 2>&1); rc=$?
    { [ "$rc" != 0 ] && grep -qE -- "$pat" <<<"$out" && [ "$(grep -c "gpustencil: fdtd" <<<"$out")" = 1 ]; } || f "refusal '$pat' ($rc): $out"
  }
  refuse "--decomp '3x1' is not PXxPY with PX \* PY = 2" 2 "$src/inputs/gpr.in" --decomp 3x1
  refuse "--halo-depth '9': expected auto or 1..8" 2 "$src/inputs/gpr.in" --halo-depth 9
  refuse "--halo-transport 'nvlink': expected auto, ipc, mpi-cuda or mpi-host" 2 "$src/inputs/gpr.in" --halo-transport nvlink
  printf '%s\n' "#domain: 0.065 0.065 0.002" "#dx_dy_dz: 0.0025 0.0025 0.0025" "#time_window: 10" > "$w/small2.in"
  run small2 2 "$w/small2.in" --decomp 2x1 --halo-depth 2
  refuse "rank boundary .* falls inside the CPML or within --halo-depth nodes of it" 2 "$w/small2.in" --decomp 2x1 --halo-depth 3
  if [ "$b" = cpu ]; then
    refuse "--halo-transport ipc: needs the cuda backend" 2 "$src/inputs/gpr.in" --halo-transport ipc
    refuse "--halo-transport mpi-cuda: the cpu backend has no device memory" 2 "$src/inputs/gpr.in" --halo-transport mpi-cuda
  elif ! ompi_info --parsable --all 2>/dev/null | grep -q "mpi_built_with_cuda_support:value:true"; then
    refuse "--halo-transport mpi-cuda: this MPI is not CUDA-aware" 2 "$src/inputs/gpr.in" --halo-transport mpi-cuda
  fi
  # Checkpoints: interrupted four times and restarted on other rank counts,
  # decompositions and halo depths (2 ranks 1x2 -> 2x1 -> 3 ranks R=2 -> 1 rank
  # -> 4 ranks): the bits of one unbroken rank; each old checkpoint is removed
  # once the next is written, and none is left when the run completes.
  ck() { # RANKS LOG ARGS...
    local n=$1 log=$2; shift 2
    "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$src/inputs/gpr.in" --steps 240 --snapshot-every 120 \
      --checkpoint-every 50 -o "$w/ck" "$@" > "$w/$log" 2>&1 || f "$log: $(tail -2 "$w/$log")"
  }
  cks() { ls "$w/ck" | grep -c "^checkpoint.s$1.r"; }
  ck 2 ck1.log --stop-after 130 --decomp 1x2
  [ -f "$w/ck/checkpoint.manifest" ] && [ "$(cks 130)" = 2 ] || f "checkpoint set: $(ls "$w/ck")"
  ck 2 ck2.log --stop-after 50 --decomp 2x1 --restart "$w/ck"
  grep -q "restarting at step 130 from .*(written by 2 rank(s))" "$w/ck2.log" || f "restart 2: $(grep restart "$w/ck2.log")"
  [ "$(cks 180)" = 2 ] && [ "$(cks 130)" = 0 ] || f "sets after restart 2: $(ls "$w/ck")"
  ck 3 ck3.log --stop-after 20 --halo-depth 2 --restart "$w/ck"
  [ "$(cks 200)" = 3 ] && [ "$(cks 180)" = 0 ] || f "sets after restart 3: $(ls "$w/ck")"
  # A damaged set is refused, naming the file and the reason.
  rm -rf "$w/ckbad"; cp -r "$w/ck" "$w/ckbad"
  f1="$w/ckbad/checkpoint.s200.r00001.gsck"
  printf 'X' | dd of="$f1" bs=1 seek=$(( $(stat -c %s "$f1") / 2 )) conv=notrunc 2> /dev/null
  refuse "checkpoint.s200.r00001.gsck: corrupt \(CRC or length mismatch\)" 2 "$src/inputs/gpr.in" --steps 240 --restart "$w/ckbad"
  rm -f "$w/ckbad/checkpoint.s200.r00002.gsck"
  refuse "checkpoint.s200.r00002.gsck: No such file" 3 "$src/inputs/gpr.in" --steps 240 --restart "$w/ckbad"
  ck 1 ck4.log --stop-after 10 --restart "$w/ck"
  [ -f "$w/ck/checkpoint.gsck" ] && [ "$(ls "$w/ck" | grep -c '^checkpoint.[sm]')" = 0 ] || f "after restart 4: $(ls "$w/ck")"
  ck 4 ck5.log --restart "$w/ck"
  grep -q "restarting at step 210 from .*(written by 1 rank(s))" "$w/ck5.log" || f "restart 5: $(grep restart "$w/ck5.log")"
  [ "$(grep checksum "$w/gpr-1.log")" = "$(grep checksum "$w/ck5.log")" ] || f "restarted checksum differs"
  cmp -s "$w/gpr-1/receivers.csv" "$w/ck/receivers.csv" || f "restarted receivers.csv differs"
  diff -r "$w/gpr-1/snapshots" "$w/ck/snapshots" > /dev/null || f "restarted snapshots differ"
  ls "$w/ck" | grep -q '^checkpoint' && f "checkpoint files left after the run completed: $(ls "$w/ck")"
  # A rank failing in the halo exchange ends every rank within 10 s, naming itself.
  start=$(date +%s)
  out=$(GPUSTENCIL_FAULT=halo.exchange@1 timeout 60 "$mpi" -np 2 --oversubscribe -x GPUSTENCIL_FAULT "$bin" fdtd \
        --backend "$b" "$src/inputs/gpr.in" --steps 100 -o "$w/fault" 2>&1); rc=$?
  took=$(( $(date +%s) - start ))
  { [ $rc != 0 ] && [ $rc != 124 ] && [ $took -le 10 ] && grep -qE "fatal: halo.exchange failed: .*rank 1/2" <<<"$out"; } \
    || f "fault injection: rc $rc after ${took}s: $(grep fatal <<<"$out")"
  printf '%s\n' "#domain: 0.042 0.042 0.002" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 10" > "$w/small.in"
  refuse "rank boundary .* falls inside the CPML" 2 "$w/small.in" --decomp 2x1
fi
echo "fdtd_ranks ($b): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
