#!/bin/bash
# The whole GPU suite of this tree (ctest -L gpu), and bench fdtd's scenes once.
source scripts/gpu_prologue.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec > >(tee $out/summary.txt) 2>&1
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
nvidia-smi -L; git log --oneline -1 2>/dev/null
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; tail -20 $out/build.log; exit 1; }
log built
(cd build-gpu && timeout 400 ctest -j8 -L gpu --output-on-failure > $out/ctest.log 2>&1); grep -E "Test +#.*(Failed|Timeout|\*\*\*)|tests passed|tests failed" $out/ctest.log | head -40
grep -E "Test +#" $out/ctest.log | sed 's/ \+/ /g' > $out/ctest_tests.txt
log tests
