#!/usr/bin/env bash
# Codec benchmark. For each image kind, on one set of generated
# images: the end-to-end rate of one thread,
#   gpustencil scale --backend cpu --threads 1 -d 2 --png-level L -o OUT SET
# (Mpixel/s per core, from the program's own summary line), and, in the same
# run on the same images, the codec ceiling (tests/bench_codec.c: ISA-L
# inflate of the images' zlib streams plus ISA-L deflate level 1 of the rows,
# one core), and their ratio.
# usage: scripts/bench_codec.sh [KIND...]     KIND: grey8 grey16 rgb8 rgb16 greyalpha8 (default: grey8 grey16 rgb8)
# environment: GS_BUILD_DIR (./build), GS_BENCH_DIR (/tmp/gs-bench-codec), COUNT (16), W (3072), H (2048),
#   IN_LEVEL (zlib level of the generated inputs, 6), PNG_LEVEL (--png-level of the outputs, 1), REPS (3),
#   E2E_REPS (end-to-end runs, the median reported: 1),
#   LEVELS=1 (also print every --png-level's speed and size on the rows)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
w=${GS_BENCH_DIR:-/tmp/gs-bench-codec}
count=${COUNT:-16}; W=${W:-3072}; H=${H:-2048}; in_level=${IN_LEVEL:-6}; level=${PNG_LEVEL:-1}; reps=${REPS:-3}
e2e_reps=${E2E_REPS:-1}
[ -x "$build/tests/gs_bench_codec" ] || { echo "bench_codec: $build/tests/gs_bench_codec missing (build with ISA-L)" >&2; exit 1; }
kinds=("$@"); [ ${#kinds[@]} -gt 0 ] || kinds=(grey8 grey16 rgb8)
echo "bench_codec: $count images of ${W}x${H} per kind (inputs zlib level $in_level), output --png-level $level, $(nproc) cores here, $(date -u +%F)"
for kind in "${kinds[@]}"; do
  case $kind in
    grey8) t="grey 8" ;; grey16) t="grey 16" ;; rgb8) t="rgb 8" ;; rgb16) t="rgb 16" ;; greyalpha8) t="greyalpha 8" ;;
    *) echo "bench_codec: unknown kind $kind" >&2; exit 2 ;;
  esac
  set_dir=$w/$kind-${W}x$H-l$in_level; mkdir -p "$set_dir"
  for i in $(seq 1 "$count"); do
    [ -f "$set_dir/img$i.png" ] || "$build/tests/gs_mkpng" "$set_dir/img$i.png" "$W" "$H" $t "seed=$i" "level=$in_level"
  done
  : > "$w/scale.log"
  for _ in $(seq 1 "$e2e_reps"); do
    rm -rf "$w/out"
    "$build/gpustencil" scale --backend cpu --threads 1 -d 2 --png-level "$level" -o "$w/out" "$set_dir" >> "$w/scale.log"
  done
  out_bytes=$(du -sb "$w/out" | cut -f1); in_bytes=$(du -sb "$set_dir" | cut -f1)
  args=(--reps "$reps"); [ "${LEVELS:-0}" = 1 ] && args+=(--levels)
  "$build/tests/gs_bench_codec" "${args[@]}" "$set_dir"/*.png > "$w/ceiling.log"
  python3 - "$kind" "$w/scale.log" "$w/ceiling.log" "$in_bytes" "$out_bytes" <<'PY'
import re, sys
kind, scale, ceil = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read()
runs = sorted(re.findall(r"in ([0-9.]+) s .*?: ([0-9.]+) MP/s.*\((.*)\)", scale), key=lambda r: float(r[1]))
m = runs[len(runs) // 2]  # the median run (E2E_REPS runs)
e2e = float(m[1])
c = float(re.search(r"ceiling \(both\): +([0-9.]+)", ceil).group(1))
print(f"{kind}: end to end {e2e:.1f} Mpixel/s on 1 thread (median of {len(runs)}: {m[0]} s, {m[2]}; "
      f"all: {' '.join(r[1] for r in runs)}), "
      f"codec ceiling {c:.1f} Mpixel/s, ratio {e2e / c:.2f}; PNG in {int(sys.argv[4]) / 1e6:.1f} MB, out {int(sys.argv[5]) / 1e6:.1f} MB")
for line in ceil.splitlines():
    print("   " + line)
PY
done
