#!/usr/bin/env bash
# B-scan surveys timed whole, gpustencil beside gprMax 4's own GPU solver, in one job on the same
# GPUs (issue 37). For each model and each GPU count G (1, and 2, 4, 8 where nvidia-smi -L lists
# that many; a 2D model on 1 GPU only, since our 2D surveys run their traces one after the other):
#   ours:   mpirun --bind-to none -np G gpustencil fdtd MODEL.in -n K -o DIR
#           (a 3D survey's traces shared out over the ranks, one rank a GPU, each GPU taking as
#           many traces side by side as hold about 32 M cells: docs/fdtd.md, "Surveys")
#   gprMax: python -m gprMax MODEL.in -n K -gpu 0 (G = 1), or its MPI task farm
#           mpirun -n G+1 python -m gprMax MODEL.in -n K --taskfarm -gpu 0 .. G-1 (G > 1),
#           both through the bundle's run.sh (-n K, --taskfarm K --ngpus G)
# Wall time around each whole command: model builds, start-up and output writing count for both.
# Prints model | cells | K | GPUs | gprMax wall s | ours wall s | ours solve s (the busiest rank's
# "N steps in T s") | ratio (gprMax's wall over ours) | traces per hour of each | scaling of each
# (traces per hour on G GPUs over G x its 1-GPU figure) | our pace's scaling (the same over our
# "survey:" line's runs and seconds: the runs alone, the process's start and end left out) |
# set-up % (ours: a trace's set-up over its solve time, the median over the traces after each
# rank's first, from the per-trace lines of a survey over several ranks) | agreement of the
# receivers of the last trace both codes finished
# (scripts/gprmax/cmp.py: the worst component, 20 log10 max|ours - gprMax| over its peak) | trace.
#
# Models (GS_SURVEY_MODELS, NAME:K words):
#   gpr_debye_bscan:40   inputs/bench/gpr_debye_bscan.in, the two-pole Debye soil scene of
#                        gpr_debye.in with the antenna walking 10 mm a trace along x over the
#                        pipes and the sphere (at most 0.39 m: shorter steps beyond 40 traces),
#                        cells of GS_SURVEY_DX m (default 0.002: 300 x 180 x 150 = 8.1 M cells,
#                        1819 steps; 0.0015: 19.2 M cells; at most 0.0026, gprMax's limit);
#                        K = GS_SURVEY_TRACES (default 40)
#   cylinder_Bscan_2D:64 gprMax's example (tests/data/gprmax/cylinder_Bscan_2D, the same file as
#                        gprMax's examples/), K = GS_SURVEY_TRACES_2D (default 64)
#   other names: tests/data/gprmax/NAME/NAME.in or inputs/bench/NAME.in (cells of GS_SURVEY_DX).
#
# On the GPU machine, from the repository root, with gprMax's bundle (../shared/peers/gprmax-gpu)
# in .carry/gprmax-gpu and the .deb files gpu_prologue.sh unpacks in .carry/ (carried):
#   bash scripts/survey_peer.sh
# It builds the bundle, then gpustencil for sm_90 (peer_common.sh), runs ours on every model and
# GPU count, then gprMax's. Time budget GS_SURVEY_BUDGET_S (default 560 s from the start, so that
# one 600-s call returns its table): gprMax's runs come last, the most GPUs first and, at a GPU
# count, 2D models first (quicker traces); each is given an equal share of what is left for the runs
# still to come (a run that ends early leaves its time to the next; GS_SURVEY_OVERHEAD_S, default
# 15, is kept for each call's checks before gprMax starts, about 6 s seen); a run still going at its
# share is stopped and marked "stopped" with the traces it finished, and its wall is estimated from
# its files' times: the time from its start (its copy of MODEL.in) to its last finished trace, plus
# the traces left at the pace between its first and last finished; that wall and every figure made
# from it are printed with ~. A run the budget leaves under 20 s for: "not run".
# GS_SURVEY_GX_WARM=1 (default): before a model's first timed gprMax run, one untimed trace of it,
# so that pycuda's kernel cache holds the model's kernels (nvcc compiles them at a model's first
# run): gprMax's wall is then a repeated survey's, without that one-off compile (0: the compile
# counted in its first run). On one H200 with the defaults (2026-11-29) the whole job took 477 s:
# builds 117 s, ours 63 s, gprMax's 3D survey stopped after 25 of its 40 traces. For complete
# gprMax runs on several GPUs, give each model a call of its own (GS_SURVEY_MODELS).
# Without a GPU: bash scripts/survey_peer.sh --selftest runs ours on the CPU ($GS_BIN, default
# build/gpustencil; GS_SURVEY_GPUS ranks, default "1 2") on tests/data/gprmax's sources_bscan (3D,
# 3 traces) and bscan16 (2D, 4 traces), and stands gprMax's reference outputs in for gprMax's runs
# with made-up walls and file times (1 s, then 2 s a trace over G GPUs; the 3D run on 2 GPUs
# "stopped" after 2 of its 3 traces): the parsing, the estimates, the comparison and the table are
# those of a real run; fails when a row lacks our time, a complete row its ratio, the stopped row
# its estimate, or the receivers agree worse than -60 dB (ctest survey_peer_selftest).
#
# Environment (besides the above):
#   GS_SURVEY_GPUS   the GPU counts (default: 1 2 4 8 up to the GPUs nvidia-smi -L lists)
#   GS_SURVEY_WORK   work folder (default /tmp/gs_survey); GS_MPIEXEC (default mpirun)
#   GS_PEER_BUNDLE   gprMax's bundle (default .carry/gprmax-gpu); GS_PYTHON as gprmax_peer.sh
# Output: the table on stdout, $OUT/survey_peer.txt (this job's whole output),
# $OUT/survey_peer.csv, $OUT/survey_peer_logs.tar.gz (every run's log, both codes' .h5 files).
selftest=0
[ "${1:-}" = --selftest ] && selftest=1
# shellcheck source=peer_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/peer_common.sh"
peer_start $selftest
W=${GS_SURVEY_WORK:-/tmp/gs_survey}
peer_python survey_peer
bundle=${GS_PEER_BUNDLE:-.carry/gprmax-gpu}
gpu=0
budget=${GS_SURVEY_BUDGET_S:-560}
dx=${GS_SURVEY_DX:-0.002}
mpiexec=${GS_MPIEXEC:-mpirun}
if [ $selftest = 1 ]; then
  specs=${GS_SURVEY_MODELS:-sources_bscan:3 bscan16:4}
else
  specs=${GS_SURVEY_MODELS:-gpr_debye_bscan:${GS_SURVEY_TRACES:-40} cylinder_Bscan_2D:${GS_SURVEY_TRACES_2D:-64}}
fi
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
rm -rf "$W/models" "$W/gs" "$W/gx" "$W/logs"
mkdir -p "$W/models" "$W/gs" "$W/gx" "$W/logs"
exec > >(tee "$out/survey_peer.txt") 2>&1
num() { awk -v v="$1" -v f="$2" 'BEGIN{printf f, v}'; }

# ---- the models: $W/models/NAME.in (and its side files), K traces each
debye_bscan() { # $1 K: inputs/bench/gpr_debye_bscan.in with cells of $dx m, the walk at most 0.39 m
  local f="$W/models/gpr_debye_bscan.in" step
  step=$(awk -v k="$1" -v d="$dx" 'BEGIN{s = 0.010; if (k > 1 && s * (k - 1) > 0.39) s = int(0.39 / (k - 1) / d) * d
    if (s < d) s = d; printf "%.6g", s}')
  peer_scene inputs/bench/gpr_debye_bscan.in "$f" "$dx" || return 1
  sed -i "s/^#src_steps:.*/#src_steps: $step 0 0/; s/^#rx_steps:.*/#rx_steps: $step 0 0/" "$f"
  # gprMax's rounding: a step of whole cells; the last receiver must stay out of the 10-cell PML
  awk -v k="$1" -v d="$dx" -v s="$step" 'BEGIN{c = int(s / d + 0.5); x = 0.120 + (k - 1) * c * d
    printf "gpr_debye_bscan: %d traces, cells of %s m, %d cells (%.4f m) a trace: source x 0.080 -> %.3f, receiver 0.120 -> %.3f m\n", k, d, c, c * d, x - 0.04, x
    if (x > 0.600 - 11 * d) { print "gpr_debye_bscan: the receiver walks into the PML: fewer traces (GS_SURVEY_TRACES)"; exit 1 }}'
}
prep_model() { # $1 NAME, $2 K
  if [ "$1" = gpr_debye_bscan ]; then
    debye_bscan "$2"
  elif [ -f "tests/data/gprmax/$1/$1.in" ]; then
    find "tests/data/gprmax/$1" -maxdepth 1 -type f ! -name '*.h5' ! -name command.txt ! -name field_peak \
      -exec cp {} "$W/models/" \;
  elif [ -f "inputs/bench/$1.in" ]; then
    peer_scene "inputs/bench/$1.in" "$W/models/$1.in" "$dx"
  else
    echo "survey_peer: no model $1 (inputs/bench/$1.in, tests/data/gprmax/$1/$1.in)"
    return 1
  fi
}
is_2d() { # a scene one cell thick
  awk '/^#domain:/ {x = $2; y = $3; z = $4} /^#dx_dy_dz:/ {a = $2; b = $3; c = $4}
    END {exit !(x / a < 1.5 || y / b < 1.5 || z / c < 1.5)}' "$1"
}
models=() traces=()
for s in $specs; do
  m=${s%%:*} k=${s#*:}
  [[ $s == *:* && $k =~ ^[0-9]+$ && $k -ge 1 ]] || { echo "survey_peer: $s: NAME:K expected"; exit 1; }
  prep_model "$m" "$k" || exit 1
  models+=("$m") traces+=("$k")
done

# ---- the GPU counts
if [ $selftest = 1 ]; then
  ngpu=2
else
  ngpu=$(nvidia-smi -L 2> /dev/null | grep -c '^GPU')
fi
gcounts=${GS_SURVEY_GPUS:-}
if [ -z "$gcounts" ]; then
  for g in 1 2 4 8; do [ "$g" -le "${ngpu:-1}" ] && gcounts="$gcounts $g"; done
fi
read -r -a gcounts <<< "$gcounts"
read -r -a gcounts < <(printf '%s\n' "${gcounts[@]}" | sort -n -u | tr '\n' ' ')
gpus_of() { # the GPU counts model $1 runs on
  if is_2d "$W/models/$1.in"; then echo 1; else echo "${gcounts[*]}"; fi
}
log "models: ${specs}; GPU counts ${gcounts[*]} ($ngpu GPU(s) seen); budget $budget s"

peer_build $selftest

# ---- ours: every model on every GPU count, wall time around mpirun
declare -A ours ours_rc
for i in "${!models[@]}"; do
  m=${models[$i]} k=${traces[$i]}
  for g in $(gpus_of "$m"); do
    left=$((budget - $(elapsed)))
    [ $left -lt 60 ] && left=60
    log "gpustencil: $m, $k traces on $g GPU(s)"
    t0=$(now)
    timeout -k 5 "$left" "$mpiexec" --bind-to none --oversubscribe -np "$g" "$bin" fdtd "$W/models/$m.in" \
      -n "$k" "${backend[@]}" -o "$W/gs/${m}_g$g" > "$W/logs/gs_${m}_g$g.log" 2>&1
    ours_rc[$m,$g]=$?
    ours[$m,$g]=$(awk -v a="$t0" -v b="$(now)" 'BEGIN{printf "%.2f", b - a}')
    grep -E "^fdtd: .*(cells of|steps in|shared out)" "$W/logs/gs_${m}_g$g.log" | sed 's/^/  /'
    echo "  wall ${ours[$m,$g]} s, exit ${ours_rc[$m,$g]}"
    [ "${ours_rc[$m,$g]}" = 0 ] || grep -m 3 -E "^gpustencil|rror" "$W/logs/gs_${m}_g$g.log" || tail -3 "$W/logs/gs_${m}_g$g.log"
  done
done

# ---- gprMax: the bundle's driver (in --selftest, gprMax's reference outputs and made-up walls)
gx_label() { # $1 model, $2 K, $3 G: the driver's name of the run (its folder under $W/gx)
  if [ "$3" = 1 ]; then echo "$1_gpu${gpu}_n$2"; else echo "$1_taskfarm$3gpu_n$2"; fi
}
gx_fake() { # $1 model, $2 K, $3 G: what the driver leaves of a run (its words, its folder, the files'
  # times): 1 s of start-up, then a trace every 2/G s; the 3D model's run on 2 GPUs stopped at its share
  local label rc=0 ndone=$2 wall t0 n d
  label=$(gx_label "$1" "$2" "$3")
  d="$W/gx/$label"
  wall=$(awk -v k="$2" -v g="$3" 'BEGIN{printf "%.3f", 1 + 2 * k / g}')
  if [ "$3" = 2 ] && ! is_2d "$W/models/$1.in"; then rc=124 ndone=$(($2 - 1)); fi
  mkdir -p "$d"
  t0=$(($(date +%s) - 100))
  cp "$W/models/$1.in" "$d/" && touch -d "@$t0" "$d/$1.in"
  for ((n = 1; n <= ndone; n++)); do
    cp "tests/data/gprmax/$1/$1$n.h5" "$d/"
    touch -d "@$(awk -v t="$t0" -v n="$n" -v g="$3" 'BEGIN{printf "%.3f", t + 1 + 2 * n / g}')" "$d/$1$n.h5"
  done
  printf 'RESULT %s  (mode=selftest, backend=cuda, rc=%s)\n  wall clock         : %s s   (made up)\n' "$label" "$rc" "$wall"
}
overhead=${GS_SURVEY_OVERHEAD_S:-15} # seconds a driver's call may spend on its checks (about 6 s seen) before gprMax starts
reserve=10 # seconds kept for the comparisons and the table
# the runs in turn: the most GPUs first, and at a GPU count the 2D models (quicker traces) first, so
# that the time a quick run leaves goes to the longer ones
jobs=()
for g in $(printf '%s\n' "${gcounts[@]}" | sort -rn); do
  for twod in 1 0; do
    for i in "${!models[@]}"; do
      is_2d "$W/models/${models[$i]}.in" && flat=1 || flat=0
      [ "$flat" = "$twod" ] && [[ " $(gpus_of "${models[$i]}") " == *" $g "* ]] && jobs+=("${models[$i]} ${traces[$i]} $g")
    done
  done
done
declare -A gx_note warmed
for j in "${!jobs[@]}"; do
  read -r m k g <<< "${jobs[$j]}"
  glog="$W/logs/gx_${m}_g$g.log"
  : > "$glog"
  if [ $selftest = 1 ]; then
    gx_fake "$m" "$k" "$g" > "$glog"
    continue
  fi
  rest=$((${#jobs[@]} - j))
  if [ "${GS_SURVEY_GX_WARM:-1}" = 1 ] && [ -z "${warmed[$m]:-}" ]; then
    tw=$(((budget - $(elapsed) - reserve) / (rest + 1) - overhead))
    [ $tw -gt 120 ] && tw=120
    if [ $tw -ge 20 ]; then
      warmed[$m]=1
      log "gprMax: one untimed trace of $m (its kernels into pycuda's cache; stopped after $tw s)"
      GX_RUN_TIMEOUT=$tw GX_BUDGET_S=$((tw + overhead)) gx_within $((tw + overhead + 25)) -n 1 "$W/models/$m.in" \
        > "$W/logs/gx_warm_$m.log" 2>&1
      grep -a -E "wall clock" "$W/logs/gx_warm_$m.log" | sed 's/^/  /'
    fi
  fi
  share=$(((budget - $(elapsed) - reserve) / rest - overhead))
  if [ $share -lt 20 ]; then
    gx_note[$m,$g]="not run (budget)"
    log "gprMax: $m on $g GPU(s): no time left in the budget"
    continue
  fi
  args=(-n "$k")
  [ "$g" = 1 ] || args=(--taskfarm "$k" --ngpus "$g")
  log "gprMax: $m, $k traces on $g GPU(s) (stopped after $share s)"
  GX_RUN_TIMEOUT=$share GX_BUDGET_S=$((share + overhead)) gx_within $((share + overhead + 25)) "${args[@]}" \
    "$W/models/$m.in" > "$glog" 2>&1
  grep -a -E "^RESULT|wall clock|^  grid|timed out" "$glog" | sed 's/^/  /'
done

# ---- the table
gx_result() { # $1 model, $2 K, $3 G: "WALL RC DONE LABEL" of the driver's run, or nothing
  local label wall rc ndone
  label=$(awk -v m="$1" -v k="$2" -v g="$3" '$1 == "RESULT" && ($2 ~ "^" m "_gpu[0-9]+_n" k "$" && g == 1 ||
    $2 == m "_taskfarm" g "gpu_n" k) {print $2; exit}' "$W/logs/gx_$1_g$3.log" 2> /dev/null)
  [ -n "$label" ] || return
  read -r wall rc < <(awk -v l="$label" '$1 == "RESULT" {on = ($2 == l); if (on) {r = $0; sub(/.*rc=/, "", r); sub(/\).*/, "", r)}}
    on && /wall clock *:/ {sub(/.*: */, ""); print $1, r; exit}' "$W/logs/gx_$1_g$3.log")
  ndone=$(find "$W/gx/$label" -maxdepth 1 -regextype posix-extended -regex ".*/$1[0-9]+\.h5" 2> /dev/null | wc -l)
  echo "${wall:--} ${rc:--} $ndone $label"
}
gx_estimate() { # $1 run folder, $2 model, $3 K: a stopped run's wall, from its files' times (the .in
  # copied in at its start, each finished trace's .h5): the time to its last finished trace, plus the
  # traces left at the pace between its first and last finished (with one: the time to it, a trace)
  local t0
  t0=$(find "$1" -maxdepth 1 -name "$2.in" -printf '%T@\n' | head -1)
  find "$1" -maxdepth 1 -regextype posix-extended -regex ".*/$2[0-9]+\.h5" -printf '%T@\n' | sort -g |
    awk -v t0="$t0" -v k="$3" '{t[NR] = $1} END {if (NR == 0 || t0 == "") {print "-"; exit}
      span = t[NR] - t0; pace = NR > 1 ? (t[NR] - t[1]) / (NR - 1) : span; printf "%.1f", span + (k - NR) * pace}'
}
last_common() { # $1 ours' folder, $2 gprMax's, $3 model, $4 K: the last trace both wrote
  local n
  for ((n = $4; n >= 1; n--)); do [ -f "$1/$3$n.h5" ] && [ -f "$2/$3$n.h5" ] && { echo "$n"; return; }; done
  echo "$4"
}
cells_of() { # the model's cells from our run's header line
  sed -n -e 's/^fdtd: .* \([0-9][0-9]*\) x \([0-9][0-9]*\) x \([0-9][0-9]*\) cells of .*/\1 \2 \3/p' \
    -e 's/^fdtd: .* \([0-9][0-9]*\) x \([0-9][0-9]*\) cells of .*/\1 \2 1/p' "$1" | head -1 | awk '{printf "%.0f", $1 * $2 * $3}'
}
setup_pct() { # the median of set-up over solve time (%) of the traces after each rank's first
  sed -n 's/^fdtd: run [0-9]* of [0-9]* done in \([0-9.]*\) s (\([0-9.]*\) s with its set-up); group [0-9]*: \([0-9]*\) of .*/\1 \2 \3/p' "$1" |
    awk '$3 > 1 && $1 > 0 {print ($2 - $1) / $1 * 100}' | sort -g |
    awk '{v[NR] = $1} END {if (NR == 0) print "-"; else printf "%.1f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'
}
per_hour() { # $1 traces in $2 seconds, printed with format $3 (default %.0f)
  awk -v k="$1" -v w="$2" -v f="${3:-%.0f}" 'BEGIN{if (w + 0 > 0) printf f, k * 3600 / w; else print "-"}'
}
scaling() { # $1 traces per hour on $3 GPUs, $2 on 1
  awk -v a="$1" -v b="$2" -v g="$3" 'BEGIN{if (a + 0 > 0 && b + 0 > 0) printf "%.3f", a / (g * b); else print "-"}'
}
csv="$out/survey_peer.csv"
bad=0
declare -A tph_gs tph_gx est pace_gs
echo "model,cells,traces,gpus,gprmax_wall_s,gpustencil_wall_s,gpustencil_solve_s,ratio,gprmax_traces_per_h,gpustencil_traces_per_h,gprmax_scaling,gpustencil_scaling,setup_pct,agreement_db,worst,trace_compared,gprmax_status,gpustencil_pace_per_h,gpustencil_pace_scaling" > "$csv"
echo
line='%-18s %9s %4s %4s %10s %10s %9s %8s %10s %10s %8s %8s %8s %7s %9s %-10s %5s  %s\n'
# shellcheck disable=SC2059
printf "$line" model cells K GPUs "gprMax s" "ours s" "ours s" ratio "gprMax t/h" "ours t/h" "gprMax" "ours" "ours" "set-up" "agree dB" "(worst)" "trace" "gprMax's run"
# shellcheck disable=SC2059
printf "$line" "" "" "" "" "wall" "wall" "solve" "" "" "" "scaling" "scaling" "pace" "%" "" "" "" ""
for i in "${!models[@]}"; do
  m=${models[$i]} k=${traces[$i]}
  for g in $(gpus_of "$m"); do
    gl="$W/logs/gs_${m}_g$g.log"
    cells=$(cells_of "$gl")
    solve=$(sed -n 's/^fdtd: [0-9]* steps in \([0-9.]*\) s .*/\1/p' "$gl" | head -1)
    pace_gs[$m,$g]=-
    if [ "${ours_rc[$m,$g]}" = 0 ]; then # runs an hour over the runs alone, from the count and the span
      read -r pn pt < <(sed -n 's/^fdtd: survey: \([0-9]*\) run(s) in \([0-9.]*\) s,.*/\1 \2/p' "$gl" | head -1)
      [ -n "${pt:-}" ] && pace_gs[$m,$g]=$(per_hour "$pn" "$pt" %.1f)
    fi
    gs=- tph_gs[$m,$g]=-
    if [ "${ours_rc[$m,$g]}" = 0 ]; then
      gs=${ours[$m,$g]}
      tph_gs[$m,$g]=$(per_hour "$k" "$gs")
    else
      bad=1
    fi
    gx=- tph_gx[$m,$g]=- est[$m,$g]="" status=${gx_note[$m,$g]:-"no result"} label=""
    read -r gwall grc gdone label < <(gx_result "$m" "$k" "$g")
    if [ -n "$label" ] && [ "$gwall" != - ]; then
      if [ "$gdone" -ge "$k" ]; then
        gx=$gwall status="done"
        [ "$grc" = 0 ] || status="done, exit $grc"
      elif [ "$gdone" -gt 0 ] && { [ "$grc" = 124 ] || [ "$grc" = 137 ]; }; then
        gx=$(gx_estimate "$W/gx/$label" "$m" "$k")
        [ "$gx" = - ] || gx="~$gx" est[$m,$g]="~"
        status="stopped at $(num "$gwall" "%.0f") s after $gdone of $k traces"
      else
        status="failed: exit $grc, $gdone of $k traces"
      fi
      [ "$gx" = - ] || tph_gx[$m,$g]="${est[$m,$g]}$(per_hour "$k" "${gx#\~}")"
    fi
    [ $selftest = 0 ] && [ "${status#failed}" != "$status" ] && bad=1
    ratio=$(awk -v a="${gx#\~}" -v b="$gs" 'BEGIN{if (a + 0 > 0 && b + 0 > 0) printf "%.2f", a / b; else print "-"}')
    [ "$ratio" = - ] || ratio="${est[$m,$g]}$ratio"
    scale_gx=- scale_gs=- pace_scale=-
    if [ "$g" != 1 ] && [ -n "${tph_gs[$m,1]:-}" ]; then
      scale_gs=$(scaling "${tph_gs[$m,$g]}" "${tph_gs[$m,1]}" "$g")
      pace_scale=$(scaling "${pace_gs[$m,$g]:-}" "${pace_gs[$m,1]:-}" "$g")
      scale_gx=$(scaling "${tph_gx[$m,$g]#\~}" "${tph_gx[$m,1]#\~}" "$g")
      [ "$scale_gx" = - ] || [ -z "${est[$m,$g]}${est[$m,1]}" ] || scale_gx="~$scale_gx"
    fi
    sp=$(setup_pct "$gl")
    n=$(last_common "$W/gs/${m}_g$g" "$W/gx/$label" "$m" "$k")
    read -r db worst < <(peer_agreement "$m" "$W/gs/${m}_g$g/$m$n.h5" "$W/gx/$label/$m$n.h5" "$W/logs/cmp_${m}_g$g.log")
    # shellcheck disable=SC2059
    printf "$line" "$m" "${cells:--}" "$k" "$g" "$gx" "$gs" "${solve:--}" "$ratio" "${tph_gx[$m,$g]}" "${tph_gs[$m,$g]}" \
      "$scale_gx" "$scale_gs" "$pace_scale" "$sp" "${db:--}" "${worst:-}" "$n" "$status"
    echo "$m,${cells:-},$k,$g,$gx,$gs,${solve:-},$ratio,${tph_gx[$m,$g]},${tph_gs[$m,$g]},$scale_gx,$scale_gs,$sp,${db:-},${worst:-},$n,$status,${pace_gs[$m,$g]:-},$pace_scale" >> "$csv"
    if [ $selftest = 1 ]; then # every complete row timed and compared; the stopped row estimated and compared
      [ "${db:-}" = identical ] || awk -v d="${db:-0}" 'BEGIN{exit !(d + 0 < -60)}' || bad=1
      if [ "$status" = "done" ]; then
        [ "${ratio#\~}" != - ] && [ "$ratio" = "${ratio#\~}" ] || bad=1
      elif [ "${status#stopped}" = "$status" ] || [ "${ratio#\~}" = "$ratio" ]; then
        bad=1
      fi
    fi
  done
done
echo "(wall: seconds around the whole command, its set-up included; ours solve: the busiest rank's solver seconds"
echo " (\"N steps in T s\"); ratio: gprMax's wall over ours; t/h: traces per hour; scaling: traces per hour on G"
echo " GPUs over G x the 1-GPU figure; ours pace: the same over our runs alone, from the first run's set-up to the"
echo " last run's files (our \"survey:\" line), the job's start and end (launcher, MPI, CUDA) left out;"
echo " set-up %: ours, a trace's set-up over its solve time after each rank's first"
echo " trace (the lines of a survey over several ranks); agree dB: the receivers of the last trace both codes"
echo " finished, the worst component's 20 log10 max|ours - gprMax| / its peak; ~: a run stopped at its share of the"
echo " budget: its wall to its last finished trace plus the traces left at its pace, and what is made from it)"
if [ $selftest = 1 ]; then
  echo "(--selftest: ours on the CPU; gprMax's columns are made up from its reference outputs, 2 s a trace)"
elif [ "${GS_SURVEY_GX_WARM:-1}" = 1 ]; then
  cold=()
  for m in "${models[@]}"; do [ -n "${warmed[$m]:-}" ] || cold+=("$m"); done
  echo "(gprMax's kernels came from pycuda's cache: an untimed trace of each model ran first, nvcc compiling them)"
  [ ${#cold[@]} = 0 ] || echo "(not for ${cold[*]}: the budget left no time; their compile is in their first timed run)"
fi
peer_pack "$out/survey_peer_logs.tar.gz"
log "done; $out/survey_peer.txt, $out/survey_peer.csv, $out/survey_peer_logs.tar.gz"
[ "$bad" = 0 ] || { echo "survey_peer: a run of ours failed or a gprMax run failed (or, --selftest, a row is incomplete or agrees worse than -60 dB)"; exit 1; }
