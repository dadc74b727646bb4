#!/usr/bin/env bash
# The test command (README, CI): install what is missing, build, run ctest (unit, cli, mpi, scale,
# fdtd, gprmax, emu, slurm, lint, fuzz; gpu tests skip with 77 without a GPU), then the tests
# that AddressSanitizer and UBSan add most to on a build with them (scripts/test_sanitized.sh).
# usage: scripts/test.sh [--slow] [CTEST ARGS...]
#   --slow (or GS_SLOW=1): the slow tier too (label slow: minutes each on 2 cores; their rules run
#     in smaller tests in every run, and the GPU check, scripts/gpu_check.sh, runs them): the CPU
#     runs of gprMax's own 100^3-cell models, three plane-wave groups over ranks, the emulator on
#     the H200's cut of the largest on-chip grids (docs/design.md, Tests). Run before a release.
#   CTEST ARGS go to the first ctest (e.g. -L unit, -L gpu, -R scale); a -LE of yours replaces
#   the default -LE slow.
# GS_SANITIZE=0 skips the sanitized run; GS_TEST_JOBS sets ctest's -j (default 2).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_BUILD_DIR:-$here/build}
if [ "${1:-}" = --slow ]; then
  GS_SLOW=1
  shift
fi
# The lint tests need Debian 12's clang-format (version 14), the fuzz tests clang and libFuzzer,
# gprmax_out_read h5py and numpy (it reads our gprMax files as gprMax's tools do); the program
# needs none of them.
GS_EXTRA_PKGS="${GS_EXTRA_PKGS:-} clang-format-14 clang-14 libclang-rt-14-dev python3-h5py python3-numpy" \
  "$here/scripts/setup.sh"
# Open MPI refuses to start as root without these.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tier=(-LE slow) # (ctest ANDs several -LE: a -LE of the caller's replaces this one)
[ "${GS_SLOW:-0}" = 1 ] && tier=()
for a in "$@"; do case $a in -LE | --label-exclude) tier=() ;; esac; done
(cd "$build" && ctest --output-on-failure -j "${GS_TEST_JOBS:-2}" "${tier[@]}" "$@")
if [ "${GS_SANITIZE:-1}" != 0 ]; then
  "$here/scripts/test_sanitized.sh"
fi
