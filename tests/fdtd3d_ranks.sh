#!/usr/bin/env bash
# A 3D model split over ranks gives one rank's checksum line,
# receivers.csv and MODEL.h5 byte for byte: 1, 2, 3, 4, 6 and 8 ranks,
# decompositions 1x1x8, 2x2x2, 4x1x1, uneven ones (3x1x1, 2x1x3, 1x2x4) and the
# default, rank boundaries inside the CPML slabs, on small_3d (gprMax's
# reference scene), tests/data/dist3d/boundary.in (magnetic and Hertzian
# dipoles, voltage sources, receivers and a magnetic material on the rank
# boundaries, transmission lines reading H across them, two runs moved by
# #src_steps/#rx_steps), gprMax's sources_3d (every source kind, excitation
# files) and dist3d/dispersive.in (Debye, Lorentz and Drude materials across
# the rank boundaries, the same sources). What a
# split does not take yet is refused in one line (exit 2), as are a --decomp
# not matching the ranks and parts thinner than 2 nodes; a rank failing in
# the exchange ends every rank within 10 s. GS_BACKEND picks the backend
# (cuda: skipped without a GPU), GS_MAX_RANKS limits the rank count,
# GS_TRANSPORTS the halo transports (default mpi-host; on cuda every one).
# Argument: the group to run (small, boundary, sources, dispersive, overlap,
# refusals; default all).
set -u
source "$(dirname "${BASH_SOURCE[0]}")/ranks3_lib.sh" fdtd3d_ranks "${1:-all}"

small=("$src/tests/data/gprmax/small_3d/small_3d.in" --steps 150)
if want small; then
run small-1 1 "${small[@]}"
for d in 1x1x8 2x2x2 4x1x1 3x1x1 1x2x1; do split small "receivers.csv small_3d.h5" "$d" "${small[@]}"; done
if [ "$b" = cuda ]; then # the GPU's parts (one-thread-per-node passes) against the CPU twin on one rank
  "$mpi" -np 1 "$bin" fdtd --backend cpu "${small[@]}" -o "$w/small-cpu" > "$w/small-cpu.log" 2>&1 || f "small-cpu"
  same small-cpu small-1 receivers.csv small_3d.h5
fi
run small-1x1x1 1 "${small[@]}" --decomp 1x1x1
same small-1 small-1x1x1 receivers.csv small_3d.h5
if [ "$max" -ge 2 ]; then # the default split of 2 ranks: the least halo bytes (37 x 31 nodes across x)
  run small-auto 2 "${small[@]}"
  same small-1 small-auto receivers.csv small_3d.h5
  grep -q "decomposition 2x1x1" "$w/small-auto.log" || f "default decomposition: $(grep decomposition "$w/small-auto.log")"
fi
fi

bnd=("$src/tests/data/dist3d/boundary.in" -n 2)
if want boundary; then
run boundary-1 1 "${bnd[@]}"
for d in 2x1x1 1x1x2 3x1x1 2x1x3 1x2x4 2x2x2; do
  split boundary "receivers_run001.csv receivers_run002.csv boundary1.h5 boundary2.h5" "$d" "${bnd[@]}"
done
fi

srcs=("$src/tests/data/gprmax/sources_3d/sources_3d.in" --steps 300)
if want sources; then
  run sources-1 1 "${srcs[@]}"
  for d in 2x2x1 1x1x3 1x2x1; do split sources "receivers.csv sources_3d.h5" "$d" "${srcs[@]}"; done
fi

disp=("$src/tests/data/dist3d/dispersive.in" -n 2)
if want dispersive; then # poles at the owned nodes only
  run dispersive-1 1 "${disp[@]}"
  for d in 2x1x1 1x1x2 3x1x1 2x2x2 1x1x8; do
    split dispersive "receivers_run001.csv receivers_run002.csv dispersive1.h5 dispersive2.h5" "$d" "${disp[@]}"
  done
fi

# The overlapped schedule (exchanges behind the interior) takes scenes without H sources: the
# dispersive and boundary scenes less their magnetic dipoles and transmission lines (Debye,
# Lorentz, Drude poles, Hertzian dipoles, voltage sources, a magnetic material, moving sources
# on the rank boundaries), and the same with the two-pass schedule forced (GS_FDTD3_PARTS=passes).
if want overlap; then
  for scene in dispersive boundary; do
    grep -vE "^#(magnetic_dipole|transmission_line):" "$src/tests/data/dist3d/$scene.in" > "$w/${scene}_e.in"
  done
  # A snapshot between steps: a collective call there hung when some parts (2 nodes thick between
  # two neighbours: 1x1x8 of 19 nodes) took the two-pass schedule and the others did not.
  echo "#snapshot: 0 0 0 0.048 0.040 0.036 0.004 0.004 0.004 0.3e-9 snap" >> "$w/dispersive_e.in"
  ov=("$w/dispersive_e.in" -n 2)
  run ov-1 1 "${ov[@]}"
  for d in 2x1x1 1x1x3 2x2x2 1x1x8 3x2x1; do
    split ov "receivers_run001.csv receivers_run002.csv dispersive_e1.h5 dispersive_e2.h5" "$d" "${ov[@]}"
  done
  grep -q "exchanges behind the interior" "$w/ov-2x1x1-${transports%% *}.log" || f "ov: not the overlapped schedule"
  GS_FDTD3_PARTS=passes run ov-passes 2 "${ov[@]}" --decomp 1x2x1
  same ov-1 ov-passes receivers_run001.csv receivers_run002.csv
  grep -q "between the H and E passes" "$w/ov-passes.log" || f "ov-passes: not the two-pass schedule"
  bo=("$w/boundary_e.in" -n 2)
  run bo-1 1 "${bo[@]}"
  for d in 2x1x1 1x2x4 2x1x3; do
    split bo "receivers_run001.csv receivers_run002.csv boundary_e1.h5 boundary_e2.h5" "$d" "${bo[@]}"
  done
fi

if want refusals && [ "$max" -ge 2 ]; then
  refuse() { # PATTERN RANKS ARGS...: one line, exit 2
    local pat=$1 n=$2; shift 2
    local out rc
    out=$("$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" -o "$w/x" 2>&1); rc=$?
    { [ "$rc" = 2 ] && grep -qE -- "$pat" <<<"$out" && [ "$(grep -c "gpustencil: fdtd" <<<"$out")" = 1 ]; } \
      || f "refusal '$pat' ($rc): $out"
  }
  refuse "'2x2x1' makes 4 parts for 2 rank" 2 "${small[@]}" --decomp 2x2x1
  refuse "'2x1' is not PXxPYxPZ" 2 "${small[@]}" --decomp 2x1
  refuse "'2x1x1' makes 2 parts for 1 rank" 1 "${small[@]}" --decomp 2x1x1
  printf '%s\n' "#domain: 0.006 0.006 0.006" "#dx_dy_dz: 0.002 0.002 0.002" "#time_window: 20" "#pml_cells: 0" \
    > "$w/tiny.in"
  [ "$max" -ge 8 ] && refuse "8x1x1: 4 nodes along x make parts thinner than 2 nodes" 8 "$w/tiny.in" --decomp 8x1x1
  [ "$max" -ge 3 ] && refuse "3 ranks: no split of 4 x 4 x 4 nodes leaves every part 2 nodes thick" 3 "$w/tiny.in"
  printf '%s\n' "#domain: 3 3 3" "#dx_dy_dz: 0.001 0.001 0.001" "#time_window: 2e-9" > "$w/huge.in"
  refuse "huge.in: rank 0's part of the model needs [0-9.]+ GiB of host memory, the rank has" 2 "$w/huge.in" --backend cpu
  printf 'time a\n0 1\n1e-12 2\n' > "$w/short.txt" # a source's error found by its owner (rank 1) alone
  printf '%s\n' "#domain: 0.02 0.02 0.02" "#dx_dy_dz: 0.001 0.001 0.001" "#time_window: 40" "#pml_cells: 4" \
    "#excitation_file: $w/short.txt" "#magnetic_dipole: x 0.015 0.01 0.01 a" > "$w/short.in"
  refuse "short.in:5: #excitation_file: waveform a is not defined at .* s .outside the file.s times." 2 "$w/short.in" --decomp 2x1x1
  # A rank failing in the exchange ends every rank within 10 s, naming itself.
  start=$(date +%s)
  out=$(GPUSTENCIL_FAULT=halo.exchange@1 timeout 60 "$mpi" -np 2 --oversubscribe -x GPUSTENCIL_FAULT "$bin" fdtd \
        --backend "$b" "${small[@]}" -o "$w/fault" 2>&1); rc=$?
  took=$(( $(date +%s) - start ))
  { [ $rc != 0 ] && [ $rc != 124 ] && [ $took -le 10 ] && grep -qE "fatal: halo.exchange failed: .*rank 1/2" <<<"$out"; } \
    || f "fault injection: rc $rc after ${took}s: $(grep fatal <<<"$out")"
fi
echo "fdtd3d_ranks ($b, $group): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
