#!/usr/bin/env bash
# What a step of the 2D tiles form on chip is made of (kernels/fdtd_run_tiles.cu's diagnostic builds),
# on the GPU machine, on scenes without CPML (1 mm cells, a source in the middle). Parts
# (GS_PROBE_PARTS, default all):
#   clock      a build with -DGS_FDTD_RUN_CLOCK (build-clock): each tile's cycles a step in its
#              phases and its wait for the neighbours' edges (bench fdtd, tiles form), for each
#              grid of GS_PROBE_CLOCK (default "1000x500 250x250")
#   probe      a build with -DGS_FDTD_RUN_PROBES (build-probe): fdtd without CPML and bench fdtd
#              with a 10-cell CPML (4000 steps) of each grid of GS_PROBE_GRIDS ("grid", or
#              "grid:cut" of GS_FDTD_RUN_CUT: then without CPML only) with each probe of
#              GS_PROBES (default "0 1 2 3"; GS_FDTD_RUN_PROBE 0: the whole step, 1: no edge swap,
#              2: the swap's traffic without its wait, 3: the swap alone; wrong bits but for 0)
#   durations  Nsight Compute's gpu__time_duration of the probe build's launches (256 steps each,
#              at ncu's base clocks) beside fdtd's wall time, for each grid:cut:probe of
#              GS_PROBE_DURATIONS (cut "-": the plan's): whether a step's time is the kernel's own
# Outputs in $OUT (or ./gpu-out): clock.txt, probe.txt, durations.txt.
source "$(dirname "${BASH_SOURCE[0]}")/../gpu_prologue.sh"
part() { [ -z "${GS_PROBE_PARTS:-}" ] || [[ " $GS_PROBE_PARTS " == *" $1 "* ]]; }
# A W x H scene (cells of 1 mm) without CPML, $3 steps, into file $4.
nopml_scene() {
  awk -v w="$1" -v h="$2" -v n="$3" 'BEGIN {
    printf "#domain: %g %g 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: %d\n#pml_cells: 0\n", w / 1000, h / 1000, n
    printf "#waveform: ricker 1 3e9 w\n#hertzian_dipole: z %g %g 0 w\n", w / 2000, h / 2000 }' > "$4"
}
# build DIR DEFINE: gpustencil with -DDEFINE (incremental: the kernels may have changed since)
build() {
  { cmake -S . -B "$1" -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_SCALE_TUNING="$2" > "$out/cmake-$1.log" 2>&1 &&
    cmake --build "$1" -j 16 --target gpustencil > "$out/build-$1.log" 2>&1; } ||
    { echo "$1: build failed"; tail -5 "$out/build-$1.log"; exit 1; }
}
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee "$out/device.txt"
if part clock; then
  build build-clock GS_FDTD_RUN_CLOCK
  for g in ${GS_PROBE_CLOCK:-1000x500 250x250}; do
    echo "== clock, grid $g"
    GS_FDTD_RUN_FORM=tiles build-clock/gpustencil bench fdtd --grid $g --steps 2048 2>&1 | grep -E "^clock" |
      awk '!seen[$3]++'
  done 2>&1 | tee "$out/clock.txt"
fi
if part probe; then
  build build-probe GS_FDTD_RUN_PROBES
  for run in ${GS_PROBE_GRIDS:-250x250 1000x500 2000x1000}; do # grid or grid:cut (GS_FDTD_RUN_CUT)
    g=${run%%:*} c=; [ "$run" = "$g" ] || c=${run#*:}
    nopml_scene "${g%x*}" "${g#*x}" 4000 /tmp/probe.in
    for probe in ${GS_PROBES:-0 1 2 3}; do
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
  build build-probe GS_FDTD_RUN_PROBES
  for run in ${GS_PROBE_DURATIONS:-100x100:1,101,101,1,101,101:3 100x100:-:3 250x250:-:0 250x250:-:3}; do
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
