#!/usr/bin/env bash
# One GPU-machine call for the 3D kernel's speed work (issue #18): build the targets it needs for
# sm_90, check CPU = GPU bits for every fused-kernel variant (GS_FDTD3_MARCH, kernels/fdtd3d.cu)
# and on the small_3d scene, then time the variants (bench_fdtd3d) and the program (bench fdtd).
# Logs under $OUT (or ./gpu-out). Knobs: VARIANTS, SIZES (kernel benches), PROGRAM (grids for
# `gpustencil bench fdtd`), NCU=1 (one ncu of the kernels on 256^3 with CPML).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$here/gpu-out}; mkdir -p "$out"
cd "$here"
grep -q ring_kernel kernels/fdtd3d.cu || { echo "not the staged-kernel tree"; git log -1 --oneline; exit 3; }
nvidia-smi -L
for deb in .carry/*.deb; do [ -f "$deb" ] && dpkg -i "$deb" >/dev/null 2>&1; done
ldconfig
t0=$SECONDS
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 --target gpustencil bench_fdtd3d test_fdtd3d > "$out/build.log" 2>&1 || { grep -E -A3 "error" "$out/build.log" | head -40; exit 1; }
echo "== built in $((SECONDS - t0)) s"
bin=build-gpu/gpustencil
VARIANTS=${VARIANTS:-w64r12d3 regs w32r16d3 w64r16d3 w64r8d3 w64r8d4 w32r8d4}
{
  for v in $VARIANTS; do echo "== bits, fused variant $v"; GS_FDTD3_MARCH=$v build-gpu/tests/test_fdtd3d gpu 2>&1 | tail -8; done
  echo "== bits, boxes as tiles"; GS_FDTD3_BOXES=tiles build-gpu/tests/test_fdtd3d gpu 2>&1 | tail -2
  (cd build-gpu && ctest -R "fdtd3d_physics|gpu_fdtd3d_cpu_vs_gpu|gpu_bench_fdtd3d_smoke" 2>&1 | tail -5)
  s=small_3d
  for be in cpu cuda; do $bin fdtd tests/data/gprmax/$s/$s.in --backend $be -o /tmp/3d-$s-$be 2>&1 | grep -E "checksum"; done
  python3 -c "
import h5py, numpy as np
a = h5py.File('/tmp/3d-$s-cpu/$s.h5'); b = h5py.File('/tmp/3d-$s-cuda/$s.h5')
same = all(np.array_equal(a['rxs'][r][c][()], b['rxs'][r][c][()]) for r in a['rxs'] for c in a['rxs'][r])
print('$s: CPU and GPU receivers', 'bit-identical' if same else 'DIFFER')"
} 2>&1 | tee "$out/bits.txt" | grep -E "==|DIFFER|differ|FAIL|fail|same bits|identical|checksum|tests passed"
{
  for n in ${SIZES:-1024}; do
    for v in $VARIANTS; do
      for p in 0 10; do GS_FDTD3_MARCH=$v build-gpu/tests/bench_fdtd3d $n 50 $p | sed "s/^/$v: /"; done
    done
  done
  [ -n "${TILES:-}" ] && GS_FDTD3_BOXES=tiles build-gpu/tests/bench_fdtd3d ${TILES} 50 10 | sed "s/^/boxes as tiles: /"
} 2>&1 | tee "$out/bench_kernel.txt"
for g in ${PROGRAM:-}; do $bin bench fdtd --grid $g --steps 100 2>&1 | tee -a "$out/bench_program.txt"; done
if [ -n "${NCU:-}" ]; then
  ncu --clock-control none --kernel-name regex:"ring_kernel|h_kernel|e_kernel" --launch-skip 3 --launch-count 3 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
    build-gpu/tests/bench_fdtd3d 256 4 10 > "$out/ncu.txt" 2>&1
  grep -E "ring_kernel|h_kernel|e_kernel|DRAM Throughput|Memory Throughput|Duration|Achieved Occupancy|Compute \(SM\)" "$out/ncu.txt" | head -40
fi
echo "== done in $((SECONDS - t0)) s"
