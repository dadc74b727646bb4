#!/usr/bin/env bash
# The test command (README, CI): install what is missing, build, run ctest (unit, cli, mpi, scale,
# fdtd, slurm, lint, fuzz; gpu tests skip with 77 without a GPU), then the same tests again on a
# build with AddressSanitizer and UBSan (scripts/test_sanitized.sh).
# Extra arguments go to the first ctest (e.g. -L unit, -L gpu, -R scale); GS_SANITIZE=0 skips the
# sanitized run.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
# The lint tests need Debian 12's clang-format (version 14), the fuzz tests clang and libFuzzer,
# gprmax_out_read h5py and numpy (it reads our gprMax files as gprMax's tools do); the program
# needs none of them.
GS_EXTRA_PKGS="${GS_EXTRA_PKGS:-} clang-format-14 clang-14 libclang-rt-14-dev python3-h5py python3-numpy" \
  "$here/scripts/setup.sh"
# Open MPI refuses to start as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$build" && ctest --output-on-failure -j "${GS_TEST_JOBS:-2}" "$@")
if [ "${GS_SANITIZE:-1}" != 0 ]; then
  "$here/scripts/test_sanitized.sh"
fi
