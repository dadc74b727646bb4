#!/usr/bin/env bash
# A GPU-machine call for the tiles form's edge exchange (issue #20, session 17): the tiles'
# Ez edges through tagged words, each tile waiting for its neighbours only, against the grid
# barrier of the baseline (the source of an earlier commit, .carry/base.tar.gz: `git archive`
# of it), both built and measured in the same call. Parts (GS_SYNC_PARTS, default all):
#   build  gpustencil and test_fdtd_gpu of this tree (build-gpu), gpustencil of the base (build-base)
#   tests  the on-chip bit tests, test_fdtd_gpu on cols_big at each cut of GS_TILES_CUTS
#   san    compute-sanitizer racecheck, memcheck and synccheck on 8 steps of cols_big
#          (both: scripts/tiles_cut.sh's parts of the same names)
#   bench  bench fdtd (4000 steps, 10-cell CPML) of each grid of GS_SYNC_GRIDS and fdtd on
#          2000 x 1000 without CPML at each cut of GS_SYNC_NOPML_CUTS, base and new in turn,
#          GS_SYNC_ROUNDS times; then this tree alone at each "grid:cut" of GS_SYNC_CUT_RUNS
#   clock  (not in the default) a build with -DGS_FDTD_RUN_CLOCK (build-clock): each tile's cycles a
#          step in its phases and its wait for the edges, for each "grid:cut" of GS_SYNC_CLOCK_RUNS
#          (a grid "nopml" is 2000 x 1000 without CPML)
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
part() { [ -z "${GS_SYNC_PARTS:-}" ] || [[ " $GS_SYNC_PARTS " == *" $1 "* ]]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
b=build-gpu/gpustencil t=build-gpu/tests/test_fdtd_gpu base=build-base/gpustencil
cut_env() { [ "$1" = - ] && echo "GS_FDTD_RUN_CUT=" || echo "GS_FDTD_RUN_CUT=$1"; }
# A 2000 x 1000 scene without CPML, $1 steps, into file $2.
nopml_scene() {
  printf '#domain: 2 1 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: %s\n#pml_cells: 0\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 1 0.5 0 w\n' "$1" > "$2"
}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
if part build; then
  { cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 10 --target gpustencil test_fdtd_gpu > "$out/build.log" 2>&1; } &
  new=$!
  [ -f .carry/base.tar.gz ] && mkdir -p /tmp/base-src && tar -xzf .carry/base.tar.gz -C /tmp/base-src &&
    cmake -S /tmp/base-src -B build-base -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake-base.log" 2>&1 &&
    cmake --build build-base -j 6 --target gpustencil > "$out/build-base.log" 2>&1 || echo "base: not built"
  wait $new || { grep -E "error" "$out/build.log" | head; exit 1; }
fi
# (tiles_cut.sh's tests and sanitizers, on this tree's build)
sub=""
part tests && sub="tests"
part san && sub="$sub san"
[ -n "$sub" ] && GS_TILES_PARTS="$sub" bash scripts/tiles_cut.sh
if [[ " ${GS_SYNC_PARTS:-} " == *" clock "* ]]; then
  { cmake -S . -B build-clock -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING=GS_FDTD_RUN_CLOCK > /dev/null 2>&1 &&
    cmake --build build-clock -j 16 --target gpustencil > "$out/build-clock.log" 2>&1; } || echo "clock build failed"
  nopml_scene 2048 /tmp/nopml_clock.in
  for run in ${GS_SYNC_CLOCK_RUNS:-2000x1000:-}; do
    g=${run%%:*} c=${run#*:}
    echo "== clock, grid $g, cut $c"
    if [ "$g" = nopml ]; then
      env "$(cut_env "$c")" GPUSTENCIL_ONCHIP=1 build-clock/gpustencil fdtd /tmp/nopml_clock.in -o /tmp/npc 2>&1 | grep -E "^clock|steps in"
    else
      env "$(cut_env "$c")" GS_FDTD_RUN_FORM=tiles build-clock/gpustencil bench fdtd --grid $g --steps 2048 2>&1 |
        grep -E "^clock" | awk '!seen[$3]++'
    fi
  done 2>&1 | tee "$out/sync_clock.txt"
fi
part bench || exit 0
nopml_scene 4000 /tmp/nopml.in
for round in $(seq "${GS_SYNC_ROUNDS:-2}"); do
  for g in ${GS_SYNC_GRIDS:-2000x1000 1000x1000 600x300}; do
    for bin in $base $b; do
      [ -x $bin ] || continue
      echo "round $round, $bin, grid $g:"
      GS_FDTD_RUN_FORM=tiles $bin bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "on chip"
    done
  done
  for bin in $base $b; do
    [ -x $bin ] || continue
    for c in ${GS_SYNC_NOPML_CUTS:-- 11,182,182,12,84,84}; do
      env "$(cut_env "$c")" GPUSTENCIL_ONCHIP=1 $bin fdtd /tmp/nopml.in -o /tmp/np 2>&1 | grep -E "checksum|steps in" |
        sed "s|^|round $round, $bin, no CPML, cut $c: |"
    done
  done
done 2>&1 | tee "$out/sync_bench.txt"
for run in ${GS_SYNC_CUT_RUNS:-}; do
  g=${run%%:*} c=${run#*:}
  echo "$b, grid $g, cut $c:"
  env "$(cut_env "$c")" GS_FDTD_RUN_FORM=tiles $b bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "on chip"
done 2>&1 | tee "$out/sync_cuts.txt"
