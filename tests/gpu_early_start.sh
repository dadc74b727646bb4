#!/usr/bin/env bash
# On a GPU machine: the CUDA start begun before MPI's, on the GPU the launcher's local rank names,
# gives the run it would have had. Against a run with no launcher's local rank in its
# environment (the driver started early, no context): a process told it is local rank 1 while
# MPI makes it rank 0 of a singleton makes GPU 1 ready early, releases it (where 2 GPUs are
# visible) and runs on GPU 0; 2 ranks under mpirun each make their own GPU ready and release
# none; --backend cpu starts no early CUDA. The checksums are the plain run's. Skips (77)
# without a GPU.
set -u
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
scene=("${GS_SOURCE_DIR:?}/tests/data/gprmax/sources_bscan/sources_bscan.in" --steps 40)
fail=0; f() { echo "FAIL: $*"; fail=1; }
sum() { grep -m1 '^checksum' "$1"; }
job() { # NAME ENV... -- ARGS...: a run of gpustencil fdtd with GPUSTENCIL_DEBUG, its log $w/NAME.log
  local name=$1 envs=(); shift
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env -u OMPI_COMM_WORLD_LOCAL_RANK -u MPI_LOCALRANKID -u SLURM_LOCALID -u PMI_LOCAL_RANK -u PALS_LOCAL_RANKID \
    GPUSTENCIL_DEBUG=1 "${envs[@]}" "$@" > "$w/$name.log" 2>&1 || f "$name: exit $?: $(tail -2 "$w/$name.log")"
}
job plain -- "${GS_BIN:?}" fdtd --backend cuda "${scene[@]}" -o "$w/plain"
# the GPUs this process sees (CUDA_VISIBLE_DEVICES and MIG included), from its placement line
n=$(sed -n 's/.*placement: host .*: GPU [0-9]* of \([0-9]*\) .*/\1/p' "$w/plain.log" | head -1)
[ -n "$n" ] && [ "$n" -ge 1 ] || { f "plain: no placement line"; n=1; }
[ -n "$(sum "$w/plain.log")" ] || f "plain: no checksum"
grep -q "CUDA started early: $n GPU(s), no context made (the launcher's local rank -1)" "$w/plain.log" ||
  f "plain: not the driver alone started early"
job other OMPI_COMM_WORLD_LOCAL_RANK=1 -- "$GS_BIN" fdtd --backend cuda "${scene[@]}" -o "$w/other"
[ "$(sum "$w/plain.log")" = "$(sum "$w/other.log")" ] || f "local rank 1: checksum $(sum "$w/other.log")"
grep -q "CUDA started early: $n GPU(s), GPU $((1 % n))'s context made (the launcher's local rank 1)" "$w/other.log" ||
  f "local rank 1: GPU $((1 % n)) not made ready early"
grep -q "placement: GPU 0 selected" "$w/other.log" || f "local rank 1: not on GPU 0"
if [ "$n" -ge 2 ]; then
  grep -q "GPU 1 made ready early (the launcher's local rank) is not this rank's GPU 0: released" "$w/other.log" ||
    f "local rank 1: GPU 1 not released"
fi
job two -- "${GS_MPIEXEC:?}" -np 2 --oversubscribe "$GS_BIN" fdtd --backend cuda "${scene[@]}" -o "$w/two"
[ "$(sum "$w/plain.log")" = "$(sum "$w/two.log")" ] || f "2 ranks: checksum $(sum "$w/two.log")"
grep -q "released" "$w/two.log" && f "2 ranks: a GPU made ready for the wrong rank"
for r in 0 1; do
  grep -q "\[rank $r\] CUDA started early: $n GPU(s), GPU $((r % n))'s context made" "$w/two.log" ||
    f "2 ranks: rank $r's GPU not made ready early"
  grep -q "\[rank $r\] placement: GPU $((r % n)) selected" "$w/two.log" || f "2 ranks: rank $r not on GPU $((r % n))"
done
job cpu OMPI_COMM_WORLD_LOCAL_RANK=0 -- "$GS_BIN" fdtd --backend cpu "${scene[@]}" -o "$w/cpu"
grep -q "CUDA started early" "$w/cpu.log" && f "--backend cpu: CUDA started early"
job late OMPI_COMM_WORLD_LOCAL_RANK=0 GPUSTENCIL_EARLY_CUDA=0 -- "$GS_BIN" fdtd --backend cuda "${scene[@]}" -o "$w/late"
grep -q "CUDA started early" "$w/late.log" && f "GPUSTENCIL_EARLY_CUDA=0: CUDA started early"
[ "$(sum "$w/plain.log")" = "$(sum "$w/late.log")" ] || f "GPUSTENCIL_EARLY_CUDA=0: checksum $(sum "$w/late.log")"
[ $fail = 0 ] && echo "gpu_early_start: ok"
exit $fail
