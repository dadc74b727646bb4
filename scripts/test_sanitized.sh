#!/usr/bin/env bash
# The unit, cli, scale, fdtd and MPI tests again, on a build with AddressSanitizer and UBSan (CPU
# backend, GCC): any invalid access or undefined operation fails the test that hit it. Part of
# scripts/test.sh. Leaks are not checked here: Open MPI unloads its components at exit, so its own
# allocations can only be told from ours with full stack unwinding on every malloc, which made one
# `gpustencil info` take 40 s. The libFuzzer targets (tests/fuzz, no MPI) check leaks instead, on
# the scene parser and the PNG reader, where error paths allocate.
# Tests labelled heavy (up to minutes of 2 cores each here: the plane-wave groups, the outputs,
# checkpoints and sources of 3D models over many splits, the damaged-checkpoint series) are left
# out; lighter tests run the same code (tests/CMakeLists.txt lists which). The emulator's tests
# are not built (GS_EMU=OFF): ASan does not follow their fibers.
# Build folder: $GS_ASAN_BUILD_DIR (default ./build-asan). Extra arguments go to ctest.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${GS_ASAN_BUILD_DIR:-$here/build-asan}
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S "$here" -B "$build" -DGPUSTENCIL_CUDA=OFF -DGS_EMU=OFF -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS=$flags" -DGS_TIMEOUT_SCALE=4 \
  "-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined" >/dev/null
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
cd "$build"
echo "gpustencil: the tests again with AddressSanitizer and UBSan ($build)"
# scale_bounded_memory and png_limits measure resident memory, which ASan's shadow and quarantine inflate.
ctest --output-on-failure -j "${GS_TEST_JOBS:-2}" -L 'unit|cli|mpi|scale|fdtd' -LE 'gpu|fuzz|slurm|lint|heavy' \
  -E '^(scale_bounded_memory|png_limits)$' "$@"
