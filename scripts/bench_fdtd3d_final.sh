#!/usr/bin/env bash
# The GPU-machine call behind docs/performance.md's session-7 3D figures (issue #18): build for
# sm_90; start `gpustencil bench fdtd --grid 1024x1024x1024` in the background (its set-up is
# minutes of host work); CPU = GPU bits for the fused variants in VARIANTS with the overlapped and
# the one-stream launch (GS_FDTD3_OVERLAP), and on small_3d; the kernel alone (bench_fdtd3d) at
# 1024^3 and 512^3 with 0 and 10 CPML cells (launch modes BENCH_OVERLAPS, default "0 1"); the
# program at 512^3; the program at 1024^3 once done; the largest grid that fits (bench_fdtd3d
# LARGEST, if set). Logs under $OUT (or ./gpu-out).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$here/gpu-out}; mkdir -p "$out"
cd "$here"
stamp() { echo "== $(date -u +%T) $*"; }
nvidia-smi -L
for deb in .carry/*.deb; do [ -f "$deb" ] && dpkg -i "$deb" >/dev/null 2>&1; done
ldconfig
cmake -S . -B build-gpu -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$out/cmake.log" 2>&1 || { tail -20 "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j16 --target gpustencil bench_fdtd3d test_fdtd3d > "$out/build.log" 2>&1 || { grep -E -A3 "error" "$out/build.log" | head -40; exit 1; }
bin=build-gpu/gpustencil
stamp "program 1024^3 started"
($bin bench fdtd --grid 1024x1024x1024 --steps 100 > "$out/program1024.txt" 2>&1; echo "== $(date -u +%T) program 1024^3 ended" >> "$out/program1024.txt") &
big=$!
VARIANTS=${VARIANTS:-w64r12d3 w64r8d3}
overlap_ok=1
{
  for v in $VARIANTS; do
    for ov in 1 0; do
      r=$(GS_FDTD3_OVERLAP=$ov GS_FDTD3_MARCH=$v build-gpu/tests/test_fdtd3d gpu 2>&1 | tail -1)
      echo "bits $v overlap=$ov: $r"
      [[ $ov == 1 && $r != *" 0 failed"* ]] && overlap_ok=0
    done
  done
  s=small_3d
  for be in cpu cuda; do $bin fdtd tests/data/gprmax/$s/$s.in --backend $be -o /tmp/3d-$s-$be 2>&1 | grep -E "checksum"; done
  python3 -c "
import h5py, numpy as np
a = h5py.File('/tmp/3d-$s-cpu/$s.h5'); b = h5py.File('/tmp/3d-$s-cuda/$s.h5')
same = all(np.array_equal(a['rxs'][r][c][()], b['rxs'][r][c][()]) for r in a['rxs'] for c in a['rxs'][r])
print('$s: CPU and GPU receivers', 'bit-identical' if same else 'DIFFER')"
  (cd build-gpu && ctest -R "fdtd3d_physics|gpu_fdtd3d_cpu_vs_gpu|gpu_bench_fdtd3d_smoke" 2>&1 | tail -3)
} 2>&1 | tee "$out/bits.txt"
grep -q "overlap=1: .* [1-9][0-9]* failed" "$out/bits.txt" && overlap_ok=0
[ $overlap_ok = 1 ] || echo "overlapped launch: bits FAILED"
stamp "kernel benches"
{
  for n in 1024 512; do
    for v in $VARIANTS; do
      for ov in ${BENCH_OVERLAPS:-0 1}; do
        for p in 0 10; do GS_FDTD3_OVERLAP=$ov GS_FDTD3_MARCH=$v build-gpu/tests/bench_fdtd3d $n 50 $p | sed "s/^/$v overlap=$ov: /; s/, NVIDIA H200//"; done
      done
    done
  done
} 2>&1 | tee "$out/bench_kernel.txt"
stamp "program 512^3"
$bin bench fdtd --grid 512x512x512 --steps 200 2>&1 | tee "$out/program512.txt"
stamp "benches done; waiting for the 1024^3 program"
while kill -0 $big 2>/dev/null && [ $SECONDS -lt 540 ]; do sleep 5; done
cat "$out/program1024.txt"
if ! kill -0 $big 2>/dev/null && [ $SECONDS -lt 560 ] && [ -n "${LARGEST:-}" ]; then
  stamp "largest"; timeout $((590 - SECONDS)) build-gpu/tests/bench_fdtd3d $LARGEST 10 10 2>&1 | tee "$out/largest.txt"
fi
stamp "done ($SECONDS s)"
