#!/usr/bin/env bash
# On a GPU machine: the CUDA start begun before MPI's (on the GPU the launcher's local rank
# names) gives the run it would have had. A process told it is local rank 1 while MPI makes it
# rank 0 of a singleton releases the GPU it made ready and runs on GPU 0 (where 2 GPUs are seen);
# 2 ranks under mpirun each on their own GPU; the checksum of all three the plain run's. Skips
# (77) without a GPU.
set -u
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
n=$(nvidia-smi -L | wc -l)
w=$(mktemp -d); trap 'rm -rf "$w"' EXIT
scene=("${GS_SOURCE_DIR:?}/tests/data/gprmax/sources_bscan/sources_bscan.in" --steps 40)
fail=0; f() { echo "FAIL: $*"; fail=1; }
sum() { grep -m1 '^checksum' "$1"; }
GPUSTENCIL_DEBUG=1 OMPI_COMM_WORLD_LOCAL_RANK=0 "${GS_BIN:?}" fdtd --backend cuda "${scene[@]}" -o "$w/plain" > "$w/plain.log" 2>&1 || f "plain run: $(tail -2 "$w/plain.log")"
GPUSTENCIL_DEBUG=1 OMPI_COMM_WORLD_LOCAL_RANK=1 "$GS_BIN" fdtd --backend cuda "${scene[@]}" -o "$w/other" > "$w/other.log" 2>&1 || f "local rank 1: $(tail -2 "$w/other.log")"
[ -n "$(sum "$w/plain.log")" ] && [ "$(sum "$w/plain.log")" = "$(sum "$w/other.log")" ] || f "local rank 1: checksum $(sum "$w/other.log"), plain $(sum "$w/plain.log")"
grep -q "placement: GPU 0 selected" "$w/other.log" || f "local rank 1: not on GPU 0"
if [ "$n" -ge 2 ]; then
  grep -q "GPU 1 made ready early (the launcher's local rank) is not this rank's GPU 0: released" "$w/other.log" || f "local rank 1: GPU 1 not released"
fi
GPUSTENCIL_DEBUG=1 "${GS_MPIEXEC:?}" -np 2 --oversubscribe "$GS_BIN" fdtd --backend cuda "${scene[@]}" -o "$w/two" > "$w/two.log" 2>&1 || f "2 ranks: $(tail -2 "$w/two.log")"
[ "$(sum "$w/plain.log")" = "$(sum "$w/two.log")" ] || f "2 ranks: checksum $(sum "$w/two.log")"
grep -q "released" "$w/two.log" && f "2 ranks: a GPU made ready for the wrong rank"
for r in 0 1; do
  grep -q "\[rank $r\] placement: GPU $((r % n)) selected" "$w/two.log" || f "2 ranks: rank $r not on GPU $((r % n))"
done
[ $fail = 0 ] && echo "gpu_early_start: ok"
exit $fail
