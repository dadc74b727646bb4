#!/usr/bin/env bash
# Throughput and output size of `gpustencil scale` (CPU backend) for zlib
# levels and PNG filters on one image set. usage: scripts/bench_levels.sh SETDIR
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=${GS_BUILD_DIR:-$here/build}/gpustencil
set=${1:?image folder}; tmp=$(mktemp -d)
in=$(du -sb "$set" | cut -f1)
printf "%-6s %-9s %8s %9s %10s\n" level filter seconds MP/s "out/in"
for filter in none sub up paeth adaptive; do for level in 0 1 3 6 9; do
  rm -rf "$tmp/out"
  line=$("$bin" scale --backend cpu -d 2 --png-level $level --png-filter $filter -o "$tmp/out" "$set" 2>/dev/null)
  secs=$(sed -E 's/.* in ([0-9.]+) s .*/\1/' <<<"$line"); mps=$(sed -E 's/.*: ([0-9.]+) MP\/s.*/\1/' <<<"$line")
  out=$(du -sb "$tmp/out" | cut -f1)
  printf "%-6s %-9s %8s %9s %10.3f\n" $level $filter "$secs" "$mps" "$(echo "$out / $in" | bc -l)"
done; done
rm -rf "$tmp"
