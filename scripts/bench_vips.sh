#!/usr/bin/env bash
# End-to-end scale on the CPU backend against libvips on the same machine:
#   parallel -j$JOBS vips linear IN 'OUT[compression=L]' 0.5 0 --uchar
# over one set of large 8-bit grey PNGs, at the same zlib level.
# Prints images/s, output bytes and the ratios. Needs libvips-tools and
# parallel (installed when missing, as root).
# usage: scripts/bench_vips.sh [LEVEL] [COUNT] [W] [H] [FILTER]
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
level=${1:-6}; count=${2:-16}; W=${3:-4000}; H=${4:-3000}; filter=${5:-}
jobs=${JOBS:-$(nproc)}
GS_EXTRA_PKGS="libvips-tools parallel" "$here/scripts/setup.sh" >/dev/null
w=${GS_BENCH_DIR:-/tmp/gs-bench-vips}; mkdir -p "$w/set"
for i in $(seq 1 "$count"); do
  [ -f "$w/set/img$i.png" ] || echo "$w/set/img$i.png $W $H grey 8 seed=$i level=6"
done | xargs -r -P "$jobs" -n 7 "$build/tests/gs_mkpng"
rm -rf "$w/vips" "$w/gs"; mkdir -p "$w/vips"
t0=$(date +%s.%N)
ls "$w/set"/*.png | parallel -j"$jobs" vips linear {} "'$w/vips/{/}[compression=$level]'" 0.5 0 --uchar
t1=$(date +%s.%N)
args=(--backend cpu -d 2 --png-level "$level" -o "$w/gs")
[ -n "$filter" ] && args+=(--png-filter "$filter")
"$build/gpustencil" scale "${args[@]}" "$w/set" > "$w/gs.log"
t2=$(date +%s.%N)
for f in "$w/gs"/*.png; do "$build/tests/gs_mkpng" --check "$f" || { echo "invalid output $f" >&2; exit 1; }; done
python3 - "$w" "$count" "$t0" "$t1" "$t2" "$level" "$jobs" "${filter:-default}" <<'PY'
import os, sys
w, n = sys.argv[1], int(sys.argv[2]); t0, t1, t2 = map(float, sys.argv[3:6])
size = lambda d: sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d))
sv, sg = size(w + "/vips"), size(w + "/gs")
iv, ig = n / (t1 - t0), n / (t2 - t1)
print(f"level {sys.argv[6]}, {n} images, {sys.argv[7]} jobs/threads, gpustencil filter {sys.argv[8]}")
print(f"  vips:       {t1-t0:7.2f} s  {iv:6.2f} images/s  {sv/1e6:8.1f} MB out")
print(f"  gpustencil: {t2-t1:7.2f} s  {ig:6.2f} images/s  {sg/1e6:8.1f} MB out")
print(f"  speed ratio {ig/iv:.2f}x, size ratio {sg/sv:.3f}")
PY
