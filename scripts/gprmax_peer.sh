#!/usr/bin/env bash
# gprMax 4's CUDA solver beside gpustencil on one GPU, in one job (issue #36): gprMax's benchmark
# cubes (free space, 1 mm cells, 10-cell PML, 1559 steps) and our GPR scenes (inputs/bench: soil of
# two Debye, Lorentz or Drude poles, or magnetic Debye soil, over 72 % of the domain, with a PEC
# pipe, an air-filled PVC pipe, a water sphere, a Hertzian dipole and a receiver), each run by both
# codes. Prints model | cells | steps | gprMax s | gpustencil s | ratio (gprMax's time over ours:
# solver seconds, gprMax's "Time taken" against our "steps in") | agreement (the receivers'
# worst component, 20 log10 of max|ours - gprMax| over the component's peak, scripts/gprmax/cmp.py)
# and, from `bench fdtd MODEL.in`, our Mcells/s, the bytes per cell of the traffic model and the
# fraction of its floor (docs/usage.md, bench).
#
# On the GPU machine, from the repository root, with gprMax's bundle (../shared/peers/gprmax-gpu)
# copied to .carry/gprmax-gpu and the .deb files gpu_prologue.sh unpacks in .carry/:
#   bash scripts/gprmax_peer.sh
# It builds the bundle, then gpustencil for sm_90 (about 2 minutes), runs ours on every
# model, then gprMax on every model (about 5 minutes with the defaults).
# Without a GPU: bash scripts/gprmax_peer.sh --selftest runs ours on the CPU ($GS_BIN, default
# build/gpustencil) on tests/data/gprmax/small_3d (GS_PEER_SELFTEST_MODELS: other 3D folders there)
# and takes gprMax's reference output there for gprMax's run (a made-up solver time of 1 s): the
# parsing, the comparison and the table are those of a real run; fails above -60 dB (ctest
# gprmax_peer_selftest).
#
# Environment:
#   GS_PEER_CUBES   sides of gprMax's benchmark cubes (default "100 200 300 400"; "" for none)
#   GS_PEER_SCENES  our scenes, inputs/bench/NAME.in (default "gpr_debye gpr_lorentz gpr_drude
#                   gpr_magnetic"; "" for none)
#   GS_PEER_DX      our scenes' cell size in metres, the same 0.6 x 0.36 x 0.3 m domain and 7 ns
#                   (default 0.002: 300 x 180 x 150 = 8.1 M cells, 1819 steps; 0.0015: 19.2 M cells,
#                   2424 steps; 0.0012: 37.5 M cells). At most 0.0026: gprMax refuses a model whose
#                   shortest wavelength (water's, at the pulse's 4.2 GHz) spans fewer than 3 cells
#   GS_PEER_FILES   gprMax input files run as they stand by both codes (default none), e.g. the
#                   bundle's .carry/gprmax-gpu/src/gprMax/examples/antenna_like_GSSI_1500_fs.in:
#                   ours runs their #python blocks with the bundle's built gprMax 4 package and
#                   toolboxes on PYTHONPATH, as a gprMax 4 user's python3 has them
#   GS_PEER_BENCH   1 (default): also `bench fdtd MODEL.in` for each model; 0: not
#   GS_PEER_BUDGET_S  seconds for the whole job (default 570): gprMax's runs get what is left
#   GS_PEER_BUNDLE  gprMax's bundle (default .carry/gprmax-gpu); GS_PEER_WORK (default /tmp/gs_peer)
#   GS_PEER_GPU     the CUDA device both codes use (default 0)
#   GS_PYTHON       a python3 with numpy and h5py (default: the first of python3, /usr/bin/python3 with them)
# Output: the table on stdout, $OUT/peer.txt (this job's whole output), $OUT/peer.csv, and
# $OUT/peer_logs.tar.gz (every run's log, the receivers' .h5 files of both codes).
selftest=0
[ "${1:-}" = --selftest ] && selftest=1
# shellcheck source=peer_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/peer_common.sh"
peer_start $selftest
W=${GS_PEER_WORK:-/tmp/gs_peer}
peer_python gprmax_peer
bundle=${GS_PEER_BUNDLE:-.carry/gprmax-gpu}
gpu=${GS_PEER_GPU:-0}
dx=${GS_PEER_DX:-0.002}
budget=${GS_PEER_BUDGET_S:-570}
cubes=${GS_PEER_CUBES-100 200 300 400}
scenes=${GS_PEER_SCENES-gpr_debye gpr_lorentz gpr_drude gpr_magnetic}
rm -rf "$W/models" "$W/gs" "$W/gx" "$W/logs"
mkdir -p "$W/models" "$W/gs" "$W/gx" "$W/logs"
exec > >(tee "$out/peer.txt") 2>&1

# ---- the models: $W/models/NAME.in, in the order they run
models=()
cube_model() { # gprMax's benchmark cube of side n cells (the bundle's file where it has one)
  local n=$1 f="$W/models/bench_cube_$1.in"
  if [ -f "$bundle/models/bench_cube_$n.in" ]; then
    cp "$bundle/models/bench_cube_$n.in" "$f"
  else
    local d c
    d=$(awk -v n="$n" 'BEGIN{printf "%.3f", n / 1000}')
    c=$(awk -v n="$n" 'BEGIN{printf "%.3f", n / 2000}')
    printf '#title: gprMax GPU benchmark cube %sx%sx%s cells (free space, Hertzian dipole and receiver at the centre)\n#domain: %s %s %s\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 3e-9\n\n#waveform: gaussiandotnorm 1 900e6 myWave\n#hertzian_dipole: x %s %s %s myWave\n#rx: %s %s %s\n' \
      "$n" "$n" "$n" "$d" "$d" "$d" "$c" "$c" "$c" "$c" "$c" "$c" > "$f"
  fi
  models+=("bench_cube_$n")
}
if [ $selftest = 1 ]; then
  for m in ${GS_PEER_SELFTEST_MODELS:-small_3d}; do
    cp "tests/data/gprmax/$m/$m.in" "$W/models/"
    models+=("$m")
  done
else
  for s in $scenes; do
    peer_scene "inputs/bench/$s.in" "$W/models/$s.in" "$dx" || exit 1
    models+=("$s")
  done
  for n in $cubes; do cube_model "$n"; done
  for f in ${GS_PEER_FILES:-}; do
    cp "$f" "$W/models/" || exit 1
    models+=("$(basename "$f" .in)")
  done
fi
log "models: ${models[*]} (our scenes with cells of $dx m)"

# ---- builds: gprMax's bundle, then gpustencil for sm_90 (peer_common.sh)
peer_build $selftest

# ---- ours: fdtd MODEL.in (the receivers' .h5, "N steps in T s"), then bench fdtd MODEL.in
# An MPI started alone (gprMax 4's package imports mpi4py, in our #python blocks too) needs an rsh
# agent even on one node; the GPU machine has no ssh (the bundle's run.sh does the same)
if ! command -v ssh > /dev/null && ! command -v rsh > /dev/null; then export OMPI_MCA_plm_rsh_agent=${OMPI_MCA_plm_rsh_agent:-false}; fi
# gprMax 4's package and toolboxes as the bundle built them, for the #python blocks of GS_PEER_FILES
gx_src=${GX_WORK:-/tmp/gx_work}/src
gx_pythonpath=$gx_src/gprMax:$gx_src/pycuda:$gx_src/pydeps
for m in "${models[@]}"; do
  log "gpustencil: $m"
  PYTHONPATH="$gx_pythonpath${PYTHONPATH:+:$PYTHONPATH}" "$bin" fdtd "$W/models/$m.in" "${backend[@]}" -o "$W/gs/$m" \
    > "$W/logs/gs_$m.log" 2>&1
  grep -E "^fdtd: .*(3D|steps in)" "$W/logs/gs_$m.log" | sed 's/^/  /'
  grep -q "steps in" "$W/logs/gs_$m.log" || tail -3 "$W/logs/gs_$m.log" | sed 's/^/  failed: /'
  if [ "${GS_PEER_BENCH:-1}" = 1 ]; then
    steps=()
    [ $selftest = 1 ] && steps=(--steps 20)
    "$bin" bench fdtd "$W/models/$m.in" "${backend[@]}" "${steps[@]}" > "$W/logs/bench_$m.log" 2>&1
    sed -n '2,3p' "$W/logs/bench_$m.log"
  fi
done

# ---- gprMax: every model in one call of the bundle's driver, within what is left of the budget
if [ $selftest = 1 ]; then # gprMax's reference outputs stand in for its runs
  for m in "${models[@]}"; do
    mkdir -p "$W/gx/${m}_gpu$gpu"
    cp "tests/data/gprmax/$m/$m.h5" "$W/gx/${m}_gpu$gpu/"
    printf 'RESULT %s_gpu%s  (selftest)\n  gprMax solve time  : 1.0000 s   (the reference output, not a run)\n' "$m" "$gpu"
  done > "$W/logs/gx_runs.log"
else
  # the driver starts no run in the last 60 s before the job's budget (its own stops 40 s early and
  # it keeps 20); a run still going then is stopped, so that the table comes out within the 600 s a call
  left=$((budget - $(elapsed)))
  [ $left -lt 60 ] && left=60
  log "gprMax: ${models[*]} (GX_BUDGET_S=$((left - 40)), stopped after $left s)"
  paths=()
  for m in "${models[@]}"; do paths+=("$W/models/$m.in"); done
  GX_BUDGET_S=$((left - 40)) gx_within "$left" "${paths[@]}" > "$W/logs/gx_runs.log" 2>&1
  grep -a -E "^RESULT|solve time|^  grid" "$W/logs/gx_runs.log" | sed 's/^/  /'
fi

# ---- the table
gx_seconds() { # gprMax's solve seconds of model $1 from the driver's RESULT block, or -
  local v
  v=$(awk -v want="^RESULT $1_gpu[0-9]+ " '$0 ~ want {on = 1; next} /^RESULT / {on = 0}
    on && /gprMax solve time  *:/ {sub(/.*solve time  *: */, ""); sub(/ .*/, ""); print; exit}' "$W/logs/gx_runs.log")
  echo "${v:--}"
}
agreement() { # the worst component's dB of our receivers against gprMax's, or - with the reason in the log
  local ref
  ref=$(find "$W/gx" -path "$W/gx/$1_gpu*/$1.h5" | head -1) # the driver's run folder (GPU as it names it)
  peer_agreement "$1" "$W/gs/$1/$1.h5" "$ref" "$W/logs/cmp_$1.log"
}
csv="$out/peer.csv"
incomplete=0
echo "model,cells,steps,gprmax_s,gpustencil_s,ratio,agreement_db,worst,mcells,bytes_per_cell,of_floor" > "$csv"
echo
printf '%-15s %10s %6s %10s %12s %7s %9s %-12s %10s %9s %9s\n' model cells steps "gprMax s" "gpustencil s" ratio "agree dB" "(worst)" "Mcells/s" "B/cell" "of floor"
for m in "${models[@]}"; do
  g="$W/logs/gs_$m.log"
  cells=$(sed -n 's/^fdtd: .*3D, \([0-9]*\) x \([0-9]*\) x \([0-9]*\) cells.*/\1 \2 \3/p' "$g" | awk '{printf "%.0f", $1 * $2 * $3}')
  read -r steps ours < <(sed -n 's/^fdtd: \([0-9]*\) steps in \([0-9.]*\) s .*/\1 \2/p' "$g")
  theirs=$(gx_seconds "$m")
  ratio=$(awk -v a="$theirs" -v b="${ours:-}" 'BEGIN{if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-"}')
  read -r db worst < <(agreement "$m")
  mc=- bpc=- fl=-
  if [ -f "$W/logs/bench_$m.log" ]; then
    read -r mc bpc < <(sed -n 's/^  \([0-9.]*\) Mcells\/s, [0-9.]* ms per step, \([0-9.]*\) bytes per cell.*/\1 \2/p' "$W/logs/bench_$m.log")
    fl=$(sed -n 's/.*the step runs at \([0-9.]*\) of its floor.*/\1/p' "$W/logs/bench_$m.log")
  fi
  printf '%-15s %10s %6s %10s %12s %7s %9s %-12s %10s %9s %9s\n' "$m" "${cells:--}" "${steps:--}" "$theirs" \
    "${ours:--}" "$ratio" "${db:--}" "${worst:-}" "${mc:--}" "${bpc:--}" "${fl:--}"
  echo "$m,${cells:-},${steps:-},$theirs,${ours:-},$ratio,${db:-},${worst:-},${mc:-},${bpc:-},${fl:-}" >> "$csv"
  # a row without both times, or (selftest) receivers further than -60 dB from gprMax's: the job failed
  [ "$ratio" != - ] || incomplete=1
  [ $selftest = 0 ] || [ "${db:-}" = identical ] || awk -v d="${db:-0}" 'BEGIN{exit !(d + 0 < -60)}' || incomplete=1
done
echo "(ratio: gprMax's solver seconds over ours; agree dB: 20 log10 max|ours - gprMax| / the component's peak,"
echo " the worst receiver component; Mcells/s, B/cell, of floor: bench fdtd MODEL.in, a second run of ours)"
peer_pack "$out/peer_logs.tar.gz"
log "done; $out/peer.txt, $out/peer.csv, $out/peer_logs.tar.gz"
[ "$incomplete" = 0 ] || { echo "gprmax_peer: some models lack a time of either code (or agree worse than -60 dB in --selftest)"; exit 1; }
