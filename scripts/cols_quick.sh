#!/usr/bin/env bash
# A short GPU-machine call for the columns form on chip (issue #20): build gpustencil and
# test_fdtd_gpu only, each columns form's bit tests, compute-sanitizer on the regs form, then
# bench fdtd per form (GS_COLS_FORMS, GS_COLS_GRIDS) and the 2000 x 1000 grid without CPML.
# GS_COLS_PARTS picks parts (default all): build tests san bench (gpu_check.sh's cols section
# runs the bench part on its own build).
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
part() { [ -z "${GS_COLS_PARTS:-}" ] || [[ " $GS_COLS_PARTS " == *" $1 "* ]]; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
b=build-gpu/gpustencil
if part build; then
  cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 &&
    cmake --build build-gpu -j 16 --target gpustencil test_fdtd_gpu > "$out/build.log" 2>&1 ||
    { grep -E "error" "$out/build.log" | head; exit 1; }
fi
if part tests; then
  (cd build-gpu && ctest --output-on-failure -j 6 -R "gpu_fdtd_onchip_(ez|regs)|gpu_fdtd_fuse") 2>&1 | tail -12 | tee "$out/cols_tests.txt"
fi
part san && sed 's/^#time_window:.*/#time_window: 8/' tests/data/onchip/cols_big.in > /tmp/cols_big8.in &&
  for tool in ${GS_SAN_TOOLS-racecheck memcheck}; do
  GS_FDTD_RUN_FORM=regs compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/test_fdtd_gpu \
    tests/data/fuse/thick_pml.in 48 > /tmp/san.txt 2>&1
  echo "compute-sanitizer $tool, regs, fuse/thick_pml (48 steps): exit $? $(grep -E "SUMMARY|checks" /tmp/san.txt | tr '\n' ' ')"
  GS_FDTD_RUN_FORM=regs GPUSTENCIL_ONCHIP=1 compute-sanitizer --tool $tool --error-exitcode 9 $b fdtd \
    /tmp/cols_big8.in -o /tmp/cb8 > /tmp/san.txt 2>&1
  echo "compute-sanitizer $tool, regs, fdtd cols_big.in (8 steps): exit $? $(grep -E "SUMMARY" /tmp/san.txt)"
done 2>&1 | tee -a "$out/cols_tests.txt"
part bench || exit 0
printf '#domain: 2 1 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 4000\n#pml_cells: 0\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 1 0.5 0 w\n' > /tmp/nopml.in
for form in ${GS_COLS_FORMS:-tiles regs}; do
  for g in ${GS_COLS_GRIDS:-2000x1000 1000x1000 600x300}; do
    GS_FDTD_RUN_FORM=$form $b bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "^bench|T = 1 \(|on chip"
  done
  GS_FDTD_RUN_FORM=$form GPUSTENCIL_ONCHIP=1 $b fdtd /tmp/nopml.in -o /tmp/nopml-$form 2>&1 | grep -E "checksum|steps in" |
    sed "s/^/no CPML, form $form: /"
done 2>&1 | tee "$out/cols_bench.txt"
