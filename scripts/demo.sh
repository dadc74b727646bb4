#!/usr/bin/env bash
# The run command (README): install what is missing, build, then run the
# default job on the shipped inputs with GS_RANKS ranks (default 2): the
# placement table, `scale` over inputs/images into out/scaled/, and the FDTD
# scene inputs/gpr.in into out/gpr/ (receivers.csv, snapshots/*.png).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
ranks=${GS_RANKS:-2}
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun -np "$ranks" --oversubscribe)
cd "$here"
echo "+ ${mpirun[*]} build/gpustencil info"
"${mpirun[@]}" "$build/gpustencil" info
echo "+ ${mpirun[*]} build/gpustencil scale --divisor 2 --overwrite -o out/scaled inputs/images"
"${mpirun[@]}" "$build/gpustencil" scale --divisor 2 --overwrite -o out/scaled inputs/images
echo "outputs: $(ls out/scaled | tr '\n' ' ')"
echo "+ build/gpustencil fdtd inputs/gpr.in -o out/gpr"
"$build/gpustencil" fdtd inputs/gpr.in -o out/gpr
echo "outputs: out/gpr/receivers.csv, $(ls out/gpr/snapshots | wc -l) snapshots in out/gpr/snapshots/"
