#!/usr/bin/env bash
# Fails on any difference between the C/CUDA sources and what clang-format 14 makes of them
# (the repository's .clang-format). Skips (77) when no clang-format 14 is installed: other
# versions lay out the same code differently. Reformat with: scripts/check_format.sh --fix
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
cf=""
for c in clang-format-14 clang-format; do
  if command -v "$c" >/dev/null && "$c" --version | grep -q 'version 14\.'; then cf=$c; break; fi
done
[ -n "$cf" ] || { echo "clang-format 14 not installed (apt-get install clang-format-14): skipped"; exit 77; }
mapfile -t files < <(find src mpi kernels tests -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' \) | sort)
if [ "${1:-}" = --fix ]; then "$cf" -i "${files[@]}"; exit 0; fi
"$cf" --dry-run --Werror "${files[@]}"
echo "clang-format: ${#files[@]} files clean"
