#!/usr/bin/env bash
# The test command (README, CI): install what is missing, build, run ctest.
# Extra arguments go to ctest (e.g. -L unit, -L gpu, -R scale).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
# The lint tests need Debian 12's clang-format (version 14); the program does not.
GS_EXTRA_PKGS="${GS_EXTRA_PKGS:-} clang-format-14" "$here/scripts/setup.sh"
# Open MPI refuses to start as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
cd "$build"
ctest --output-on-failure -j "${GS_TEST_JOBS:-2}" "$@"
