#!/usr/bin/env bash
# The run command (README): install what is missing, build, then run the
# default job on the shipped inputs with 2 ranks (GS_RANKS to change):
# the placement table, then the scale workload on inputs/images.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
ranks=${GS_RANKS:-2}
"$here/scripts/setup.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mpirun=(mpirun -np "$ranks" --oversubscribe)
set -x
"${mpirun[@]}" "$build/gpustencil" info
