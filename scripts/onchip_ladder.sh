#!/usr/bin/env bash
# A GPU-machine call for issue #20's several-GPU targets (session 19): the tiles form's time a
# step on one GPU over a ladder of grid sizes, so that the parts an N-GPU split would give each
# GPU (2000 x 1000 over 2: 1000 x 1000 or 2000 x 500; over 4: 1000 x 500 or 500 x 1000) are
# timed alone. A GPU that runs its part with no neighbour at all is the best an N-GPU run of the
# same kernel can do, so these times bound its efficiency from above. Parts (GS_LADDER_PARTS,
# default all):
#   build  gpustencil and test_fdtd_gpu of this tree (build-gpu)
#   base   gpustencil of .carry/base.tar.gz (git archive of an earlier commit) in build-base; the
#          ladder then times it beside this tree's, in turn
#   tiles  scripts/tiles_cut.sh's parts tests and san: the on-chip bit tests, the 2000 x 1000 one
#          at each cut of GS_TILES_CUTS, compute-sanitizer racecheck, memcheck and synccheck
#   check  the host-memory figures of this machine's cgroups, 1 and 2 ranks (GPUSTENCIL_DEBUG),
#          and the ctest tests named by GS_LADDER_TESTS
#   ladder bench fdtd (tiles form, 10-cell CPML, 4000 steps) of each grid of GS_LADDER_GRIDS,
#          and fdtd without CPML (GPUSTENCIL_ONCHIP=1, 4000 steps) of each grid of
#          GS_LADDER_NOPML (each under every VAR=VALUE of GS_LADDER_ENVS in turn) and at each
#          "grid:cut" of GS_LADDER_NOPML_CUTS, GS_LADDER_ROUNDS times;
#          test_fdtd_gpu (the bits of single steps) on each no-CPML grid of GS_LADDER_NOPML_BITS
#   clock  a build with -DGS_FDTD_RUN_CLOCK: each tile's cycles a step in its phases and its
#          wait for the edges (print_clock), for each grid of GS_LADDER_CLOCK
#   probe  a build with -DGS_FDTD_RUN_PROBES (session 20): fdtd without CPML and bench fdtd with a
#          10-cell CPML (4000 steps) of each grid of GS_LADDER_PROBE_GRIDS ("grid", or "grid:cut" of
#          GS_FDTD_RUN_CUT: then without CPML only) with each probe of GS_LADDER_PROBES (default all;
#          GS_FDTD_RUN_PROBE 0: the whole step, 1: no edge swap, 2: the swap's traffic without its
#          wait, 3: the swap alone; wrong bits but for 0): what the floor is made of
#   durations  Nsight Compute's gpu__time_duration of the probe build's launches (256 steps each,
#          at ncu's base clocks) beside fdtd's wall time, for each grid:cut:probe of
#          GS_LADDER_DURATIONS (cut "-": the plan's): whether a step's time is the kernel's own
#   words  scripts/diag_word_latency.cu: a tagged word's round trip between two blocks of one GPU
#          and, with two GPUs, between GPU 0 and GPU 1 over NVLink
#   split  with several GPUs: mpirun -np N bench fdtd (10-cell CPML, 4000 steps, --halo-depth auto)
#          of each grid of GS_LADDER_SPLIT over 2..GPUs ranks, the grid on chip of one GPU (rank 0
#          alone) in the same job, as scripts/gpu_check.sh's small2
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
part() { [ -z "${GS_LADDER_PARTS:-}" ] || [[ " $GS_LADDER_PARTS " == *" $1 "* ]]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# (GS_LADDER_BIN: another build's binary, e.g. build-probe/gpustencil, whose run_kernel<0> is the plain kernel)
b=${GS_LADDER_BIN:-build-gpu/gpustencil}
# A W x H scene (cells of 1 mm) without CPML, $3 steps, into file $4.
nopml_scene() {
  awk -v w="$1" -v h="$2" -v n="$3" 'BEGIN {
    printf "#domain: %g %g 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: %d\n#pml_cells: 0\n", w / 1000, h / 1000, n
    printf "#waveform: ricker 1 3e9 w\n#hertzian_dipole: z %g %g 0 w\n", w / 2000, h / 2000 }' > "$4"
}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
if part build; then
  { cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 ${GS_LADDER_TARGETS:+--target $GS_LADDER_TARGETS} > "$out/build.log" 2>&1; } ||
    { grep -E "error" "$out/build.log" | head; exit 1; }
fi
base_built=0
if part base; then # the baseline: .carry/base.tar.gz (git archive of an earlier commit) in build-base
  # (from scratch: a warm machine may keep another base's build, whose files the tar's dates would not renew)
  rm -rf /tmp/base-src build-base && mkdir -p /tmp/base-src && tar -xzf .carry/base.tar.gz -C /tmp/base-src &&
    cmake -S /tmp/base-src -B build-base -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake-base.log" 2>&1 &&
    cmake --build build-base -j 16 --target gpustencil > "$out/build-base.log" 2>&1 && base_built=1 ||
    echo "base: not built"
fi
part tiles && GS_TILES_PARTS="tests san" bash scripts/tiles_cut.sh
if part check; then
  echo "== cgroup"; cat /proc/self/cgroup; grep MemAvailable /proc/meminfo
  for n in 1 2; do
    echo "== memory, $n rank(s)"
    GPUSTENCIL_DEBUG=1 mpirun -np $n --oversubscribe $b fdtd inputs/gpr.in --steps 20 -o /tmp/mem$n 2>&1 |
      grep -iE "memory|checksum|GiB" | head -8
  done
  if [ -n "${GS_LADDER_TESTS:-}" ]; then
    (cd build-gpu && ctest --output-on-failure --timeout 200 -R "$GS_LADDER_TESTS" 2>&1 | tail -15)
  fi
fi 2>&1 | tee "$out/check.txt"
if part ladder; then
  bins=$b; [ "$base_built" = 1 ] && bins="build-base/gpustencil $b" # (the base first, where built in this call)
  for round in $(seq "${GS_LADDER_ROUNDS:-1}"); do
    for g in ${GS_LADDER_GRIDS:-2000x1000 2000x500 1000x1000 1000x500 500x1000 500x500 500x250 250x250}; do
      for e in ${GS_LADDER_ENVS:-GS_LADDER=1}; do
        for bin in $bins; do
          echo "round $round, grid $g, CPML 10, $e, $bin:"
          env "$e" GS_FDTD_RUN_FORM=tiles $bin bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "on chip"
        done
      done
    done
    for g in ${GS_LADDER_NOPML:-2000x1000 1000x1000 1000x500 500x500 250x250}; do
      nopml_scene "${g%x*}" "${g#*x}" 4000 /tmp/nopml.in
      for e in ${GS_LADDER_ENVS:-GS_LADDER=1}; do
        for bin in $bins; do
          env "$e" GPUSTENCIL_ONCHIP=1 $bin fdtd /tmp/nopml.in -o /tmp/np 2>&1 | grep -E "checksum|steps in" |
            sed "s|^|round $round, grid $g, no CPML, $e, $bin: |"
        done
      done
    done
    for run in ${GS_LADDER_NOPML_CUTS:-}; do # grid:cut (GS_FDTD_RUN_CUT), without CPML
      g=${run%%:*} c=${run#*:}
      nopml_scene "${g%x*}" "${g#*x}" 4000 /tmp/nopml.in
      GS_FDTD_RUN_CUT=$c GPUSTENCIL_ONCHIP=1 $b fdtd /tmp/nopml.in -o /tmp/np 2>&1 | grep -E "steps in" |
        sed "s|^|round $round, grid $g, no CPML, cut $c: |"
    done
    for g in ${GS_LADDER_NOPML_BITS:-}; do # the bits of single steps at the plan's cut, 64 steps
      nopml_scene "${g%x*}" "${g#*x}" 64 /tmp/nopml_bits.in
      build-gpu/tests/test_fdtd_gpu /tmp/nopml_bits.in 64 2>&1 | tail -2 | sed "s|^|round $round, grid $g, bits: |"
    done
  done 2>&1 | tee "$out/ladder.txt"
fi
if part clock; then
  { cmake -S . -B build-clock -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING=GS_FDTD_RUN_CLOCK > /dev/null 2>&1 &&
    cmake --build build-clock -j 16 --target gpustencil > "$out/build-clock.log" 2>&1; } || echo "clock build failed"
  for g in ${GS_LADDER_CLOCK:-1000x500 250x250}; do
    echo "== clock, grid $g"
    GS_FDTD_RUN_FORM=tiles build-clock/gpustencil bench fdtd --grid $g --steps 2048 2>&1 | grep -E "^clock" |
      awk '!seen[$3]++'
  done 2>&1 | tee "$out/clock.txt"
fi
probe_build() { # (incremental: a warm machine keeps build-probe, and the kernels may have changed since)
  { cmake -S . -B build-probe -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING=GS_FDTD_RUN_PROBES \
    > "$out/cmake-probe.log" 2>&1 && cmake --build build-probe -j 16 --target gpustencil > "$out/build-probe.log" 2>&1; } ||
    { echo "probe build failed"; tail -5 "$out/build-probe.log"; exit 1; }
}
if part probe; then
  probe_build
  for run in ${GS_LADDER_PROBE_GRIDS:-250x250 1000x500 2000x1000}; do # grid or grid:cut (GS_FDTD_RUN_CUT)
    g=${run%%:*} c=; [ "$run" = "$g" ] || c=${run#*:}
    nopml_scene "${g%x*}" "${g#*x}" 4000 /tmp/probe.in
    for probe in ${GS_LADDER_PROBES:-0 1 2 3}; do
      GS_FDTD_RUN_CUT=$c GS_FDTD_RUN_PROBE=$probe GPUSTENCIL_ONCHIP=1 GS_FDTD_RUN_FORM=tiles build-probe/gpustencil \
        fdtd /tmp/probe.in -o /tmp/pr 2>&1 | grep -E "steps in" |
        sed "s|^|grid $g, cut ${c:--}, no CPML, probe $probe: |"
      [ -n "$c" ] && continue # (the cut fits the grid without CPML)
      GS_FDTD_RUN_PROBE=$probe GS_FDTD_RUN_FORM=tiles build-probe/gpustencil bench fdtd --grid $g --steps 4000 2>&1 |
        grep -A1 -E "on chip" | tr '\n' ' ' | sed "s|^|grid $g, CPML 10, probe $probe: |; s|$|\\n|"
    done
  done 2>&1 | tee "$out/probe.txt"
fi
if part durations; then # the kernel's own time a launch (ncu: base clocks), beside fdtd's wall time
  probe_build
  for run in ${GS_LADDER_DURATIONS:-100x100:1,101,101,1,101,101:3 100x100:-:3 250x250:-:0 250x250:-:3}; do
    IFS=: read -r g c p <<< "$run"; [ "$c" = - ] && c= # grid:cut:probe, "-": the plan's cut
    nopml_scene "${g%x*}" "${g#*x}" 2048 /tmp/d.in
    echo "#rx: $(awk -v w="${g%x*}" -v h="${g#*x}" 'BEGIN { print w / 2000 + 0.002, h / 2000, 0 }')" >> /tmp/d.in
    echo "== $g, cut ${c:--}, probe $p, no CPML, 2048 steps, launches of 256"
    ncu_args="--kernel-name regex:run_kernel --launch-skip 2 --launch-count 3 --metrics gpu__time_duration.sum"
    for prof in "" "ncu $ncu_args"; do
      GS_FDTD_RUN_CUT=$c GS_FDTD_RUN_PROBE=$p GPUSTENCIL_ONCHIP=1 GS_FDTD_RUN_FORM=tiles $prof build-probe/gpustencil \
        fdtd /tmp/d.in -o /tmp/dd 2>&1 | grep -E "steps in|gpu__time_duration"
    done
  done 2>&1 | tee "$out/durations.txt"
fi
if part words; then
  nvcc -arch=sm_90 -O3 -o /tmp/word_latency scripts/diag_word_latency.cu && /tmp/word_latency 20000 2>&1 |
    tee "$out/words.txt"
fi
if part split; then
  ngpu=$(nvidia-smi -L | wc -l)
  [ "$ngpu" -gt 1 ] || echo "split: one GPU here, nothing to split"
  for g in ${GS_LADDER_SPLIT:-2000x1000 1000x1000}; do
    for n in $(seq 2 "$ngpu"); do
      mpirun -np "$n" $b bench fdtd --grid $g --steps 4000 --halo-depth auto 2>&1 | grep -vE "^$"
    done
  done 2>&1 | tee "$out/split.txt"
fi
