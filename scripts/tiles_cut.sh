#!/usr/bin/env bash
# A GPU-machine call for the tiles form's cut (issue #20, session 15): the tiles that meet the
# CPML cut narrower than the rest (kernels/fdtd_run.cu, plan_run). Builds gpustencil and
# test_fdtd_gpu, runs the on-chip bit tests, the 2000 x 1000 bit test at each cut of
# GS_TILES_CUTS (GS_FDTD_RUN_CUT's "nx,first,mid,ny,first,mid"; "-": the plan's own),
# compute-sanitizer racecheck, memcheck and synccheck on the tiles form, then bench fdtd for each
# "grid:cut" of GS_TILES_RUNS (the default: each grid with the plan's own cut).
# GS_TILES_PARTS picks parts (default all): build tests san bench.
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
part() { [ -z "${GS_TILES_PARTS:-}" ] || [[ " $GS_TILES_PARTS " == *" $1 "* ]]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
b=build-gpu/gpustencil t=build-gpu/tests/test_fdtd_gpu
cut_env() { [ "$1" = - ] && echo "GS_FDTD_RUN_CUT=" || echo "GS_FDTD_RUN_CUT=$1"; }
part build && { GS_COLS_PARTS=build bash scripts/cols_quick.sh || exit 1; }
if part tests; then
  (cd build-gpu && ctest --output-on-failure -j 6 -R "gpu_fdtd_onchip($|_tiny|_many_rx|_tiles)") 2>&1 | tail -12
  for c in ${GS_TILES_CUTS:--}; do
    env "$(cut_env "$c")" GS_FDTD_RUN_FORM=tiles GS_EXPECT_FORM=tiles $t tests/data/onchip/cols_big.in 64 > /tmp/t.txt 2>&1
    echo "bits, tiles form, cols_big (64 steps), cut $c: exit $? $(grep -o 'on chip (tiles[^)]*)' /tmp/t.txt | head -1)"
    grep -iE "fail|differ" /tmp/t.txt | head -3
  done
fi 2>&1 | tee "$out/tiles_tests.txt"
part san && sed 's/^#time_window:.*/#time_window: 8/' tests/data/onchip/cols_big.in > /tmp/cols_big8.in &&
  for tool in racecheck memcheck synccheck; do
  GS_FDTD_RUN_FORM=tiles GPUSTENCIL_ONCHIP=1 compute-sanitizer --tool $tool --error-exitcode 9 $b fdtd \
    /tmp/cols_big8.in -o /tmp/cb8 > /tmp/san.txt 2>&1
  echo "compute-sanitizer $tool, tiles, fdtd cols_big.in (8 steps): exit $? $(grep -E "SUMMARY" /tmp/san.txt)"
done 2>&1 | tee -a "$out/tiles_tests.txt"
part bench || exit 0
for run in ${GS_TILES_RUNS:-2000x1000:- 1000x1000:- 600x300:-}; do
  g=${run%%:*} c=${run#*:}
  echo "grid $g, cut $c:"
  env "$(cut_env "$c")" GS_FDTD_RUN_FORM=tiles $b bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "on chip"
done 2>&1 | tee "$out/tiles_bench.txt"
