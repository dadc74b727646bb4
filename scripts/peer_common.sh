# shellcheck shell=bash disable=SC2034,SC2154 # globals shared with the callers, set on one side, read on the other
# Sourced by the scripts that run gprMax 4's GPU solver beside gpustencil (gprmax_peer.sh,
# survey_peer.sh): their start (the GPU machine's prologue, or the CPU for --selftest), the clock
# and log lines, the python that reads .h5 files, the builds (gprMax's bundle, then gpustencil for
# sm_90), the receivers' agreement and a scene's scaled copy.
# The functions read and set the caller's globals: here, out (peer_start), t_start, py, bin,
# backend, and W (the work folder), bundle (gprMax's bundle), gpu (the CUDA device) set by it.

# peer_start SELFTEST: 1: strict mode, the repository root as the working directory ($here), the
# output folder ($out: $OUT, or ./gpu-out); 0: the GPU machine's prologue (gpu_prologue.sh: the same,
# and the carried .deb files). Starts the clock of elapsed and log.
peer_start() {
  if [ "$1" = 1 ]; then
    set -uo pipefail
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    out=${OUT:-$here/gpu-out}
    mkdir -p "$out"
    cd "$here" || exit 1
  else
    # shellcheck source=gpu_prologue.sh
    source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
  fi
  t_start=$(date +%s)
}
elapsed() { echo $(($(date +%s) - t_start)); }
log() { echo "== [$(elapsed) s] $*"; }
now() { date +%s.%N; }

# peer_python NAME: py, a python3 with numpy and h5py (GS_PYTHON first), or "" with a message
peer_python() {
  py=""
  local p
  for p in ${GS_PYTHON:-} python3 /usr/bin/python3; do
    if "$p" -c "import h5py, numpy" > /dev/null 2>&1; then py=$p; return; fi
  done
  echo "$1: no python3 with numpy and h5py (set GS_PYTHON): no receivers compared"
}

# gx_within SECONDS ARGS: the bundle's driver on GPU $gpu, stopped after SECONDS (0: never), its run
# folders and gx_results.csv under $W/gx (not in $OUT: few files come back); gx ARGS: never stopped
gx_within() {
  local s=$1
  shift
  timeout -k 10 "$s" env -u OUT GX_OUTDIR="$W/gx" GX_GPU="$gpu" bash "$bundle/run.sh" --gpu "$gpu" "$@"
}
gx() { gx_within 0 "$@"; }

# peer_build SELFTEST: bin and backend of gpustencil; on the GPU machine the bundle's build (gprMax
# 4 + pycuda), then gpustencil's for sm_90 in build-gpu, logs in $W/logs; exits on a failure
peer_build() {
  if [ "$1" = 1 ]; then
    bin=${GS_BIN:-build/gpustencil}
    backend=(--backend cpu)
    [ -x "$bin" ] || { echo "selftest: no $bin (cmake --build build --target gpustencil)"; exit 1; }
    return
  fi
  bin=build-gpu/gpustencil
  backend=()
  nvidia-smi -L
  [ -f "$bundle/run.sh" ] || { echo "no gprMax bundle at $bundle (copy ../shared/peers/gprmax-gpu there, carried)"; exit 1; }
  # pycuda's Boost subset needs this header; a bundle without it builds only where the machine has a
  # system Boost.Python to fall back on (the H200 machine of 2026-11-30 had none).
  local arity=$bundle/src/pycuda/bpl-subset/bpl_subset/boost/mpl/aux_/preprocessed/gcc/template_arity.hpp
  [ -d "$(dirname "$arity")" ] && [ ! -f "$arity" ] &&
    echo "note: $arity is missing: pycuda builds only with a system Boost.Python; copy Boost's" \
      "boost/mpl/aux_/preprocessed/gcc/template_arity.hpp (Boost 1.x) there if its build fails"
  # One after the other: the bundle's pycuda build failed (a compile error) beside ours on 16 cores.
  log "build: gprMax 4 + pycuda (the bundle), then gpustencil (sm_90)"
  if ! gx --build-only > "$W/logs/gx_build.log" 2>&1; then
    tail -30 "$W/logs/gx_build.log"
    cp /tmp/gx_work/logs/*.log "$out/" 2> /dev/null
    echo "gprMax bundle build failed"
    exit 1
  fi
  log "gprMax bundle built"
  (cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > "$W/logs/cmake.log" 2>&1 &&
    cmake --build build-gpu -j "$(nproc)" --target gpustencil > "$W/logs/build.log" 2>&1) ||
    { grep -E "error" "$W/logs/build.log" "$W/logs/cmake.log" | head; echo "gpustencil build failed"; exit 1; }
  log "gpustencil built"
}

# peer_agreement NAME OURS.h5 REF.h5 LOG: "DB WORST" (the worst receiver component's dB of ours
# against the reference, scripts/gprmax/cmp.py; "identical" where every one is), or "-" without
# both files or a python (cmp.py's output in LOG)
peer_agreement() {
  if [ -z "$py" ] || [ ! -f "$2" ] || [ ! -f "$3" ]; then echo "-"; return; fi
  "$py" scripts/gprmax/cmp.py --limit 0 --name "$1" "$2" "$3" > "$4" 2>&1
  sed -n "s/^$1: worst \(-*[0-9.inf]*\) dB (\(.*\))\$/\1 \2/p" "$4" | tr ' ' '_' | sed 's/_/ /' |
    sed 's/^-inf .*/identical/' | head -1
}

# peer_scene SRC.in DST.in DX: a copy of a scene with cells of DX metres (the same domain)
peer_scene() {
  sed "s/^#dx_dy_dz:.*/#dx_dy_dz: $3 $3 $3/" "$1" > "$2"
}

# peer_pack TAR: every run's log, .h5 and .csv under $W (and the bundle's logs) under 20 MB
peer_pack() {
  find "$W/logs" "$W/gs" "$W/gx" /tmp/gx_work/logs -maxdepth 2 \( -name '*.log' -o -name '*.h5' -o -name '*.csv' \) \
    -size -20M 2> /dev/null | tar -czf "$1" -T - 2> /dev/null
}
