#!/usr/bin/env bash
# Everything for one GPU-machine call: build for sm_90, run all tests (GPU
# ones included), placement, kernel benchmark, ncu, end-to-end scale runs.
# Writes logs under $OUT (or ./gpu-out). Usage: scripts/gpu_session.sh [quick]
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${OUT:-$here/gpu-out}; mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
log() { echo "== $*"; }
# GS_SECTIONS: which parts to run (default all): tests info scale ncu e2e huge fdtd fdtd2 exp cmpi scaling k4 bits final
#   graphs halo2 ncu4 stage (session 3) s4 (session 4: A/B against .carry/base.tar.gz, built in the background) final4;
#   k4 variants are built in the background right after the main build
want() { [ -z "${GS_SECTIONS:-}" ] || [[ " $GS_SECTIONS " == *" $1 "* ]]; }
cd "$here"
log "machine"; nvidia-smi -L; nvidia-smi topo -m 2>/dev/null | head -8; nproc
ngpu=$(nvidia-smi -L | wc -l)
if ! pkg-config --exists libdeflate && ls .carry/libdeflate*.deb > /dev/null 2>&1; then
  dpkg -i .carry/libdeflate0_*.deb .carry/libdeflate-dev_*.deb > /dev/null 2>&1 && echo "libdeflate installed from .carry"
fi
log "build"
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 -DGPUSTENCIL_PTXAS_VERBOSE=ON > /tmp/gs-cmake.log 2>&1 || { tail /tmp/gs-cmake.log; exit 1; }
cmake --build build-gpu -j "$(nproc)" > /tmp/gs-build.log 2>&1 || { grep -E "error" /tmp/gs-build.log | head; exit 1; }
grep -A2 "Compiling entry function.*scale_vec_kernel.*sm_90" /tmp/gs-build.log | grep -E "registers|spill" | head -8
bin=build-gpu/gpustencil
k4v=${GS_K4:-GS_FDTD_COLS=2 GS_FDTD_STREAM=1 GS_FDTD_COLS=2,GS_FDTD_STREAM=1}
if want k4; then # variant builds in the background while the tests run
  ( for v in $k4v; do
      d=build-k4-${v//[^A-Za-z0-9]/_}
      cmake -S . -B $d -DCMAKE_CUDA_ARCHITECTURES=90 "-DGPUSTENCIL_SCALE_TUNING=${v//,/;}" > /dev/null 2>&1 &&
        cmake --build $d --target gpustencil test_fdtd_gpu -j 8 > /dev/null 2>&1 || echo "$v: build failed"
    done ) > /tmp/k4build.log 2>&1 &
  k4pid=$!
fi
# s4: the session-3 build (.carry/base.tar.gz: git archive 0a16f45) and variant builds (GS_S4_BUILDS="MACRO=V ...",
# run as GS_S4_VARIANTS names) beside the tests, for A/B runs (in session 4: GS_FDTD_FLAT=0, a macro since removed)
if want s4; then
  ( rm -rf /tmp/gs-base && mkdir -p /tmp/gs-base && tar -C /tmp/gs-base -xzf .carry/base.tar.gz &&
    cmake -S /tmp/gs-base -B /tmp/gs-base/build -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF > /dev/null 2>&1 &&
    cmake --build /tmp/gs-base/build --target gpustencil -j 8 > /dev/null 2>&1 || echo "base build failed"
    for v in ${GS_S4_BUILDS:-}; do d=build-s4-${v//[^A-Za-z0-9]/_}
      cmake -S . -B $d -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF "-DGPUSTENCIL_SCALE_TUNING=${v//,/;}" > /dev/null 2>&1 &&
        cmake --build $d --target gpustencil -j 8 > /dev/null 2>&1 || echo "$v build failed"
    done ) > /tmp/basebuild.log 2>&1 &
  basepid=$!
fi
if want tests; then
log "tests (all labels)"
(cd build-gpu && GS_TEST_JOBS=8 ctest --output-on-failure -j 8 > "$out/ctest.log" 2>&1); tail -25 "$out/ctest.log"
grep -hE "^(cavity|energy|greens|cpml|Ez|Hx|Hy) " build-gpu/Testing/Temporary/LastTest.log | head -20
fi
if want info; then
log "info"
mpirun -np "$ngpu" --oversubscribe $bin info 2>&1 | tee "$out/info.txt"
mpirun -np "$ngpu" --oversubscribe $bin info --json > "$out/info.json" 2>&1
fi
if want scale; then
log "bench scale"
$bin bench scale --size 1024 --reps 30 2>&1 | tee "$out/bench_scale.txt"
if [ -n "${GS_TUNE:-}" ]; then
  for v in $GS_TUNE; do  # e.g. "GS_SCALE_UNROLL=8 GS_SCALE_THREADS=512,GS_SCALE_UNROLL=2"
    d=build-tune-${v//[^A-Za-z0-9]/_}
    cmake -S . -B $d -DCMAKE_CUDA_ARCHITECTURES=90 -DBUILD_TESTING=OFF "-DGPUSTENCIL_SCALE_TUNING=${v//,/;}" > /dev/null 2>&1 &&
      cmake --build $d --target gpustencil -j "$(nproc)" > /dev/null 2>&1 || { echo "tune $v: build failed"; continue; }
    echo "-- variant $v"
    if [ "${GS_TUNE_BENCH:-scale}" = fdtd ]; then
      for g in 16384x16384 8192x8192; do $d/gpustencil bench fdtd --grid $g --steps 300 2>&1 | grep Mcells; done
    else
      $d/gpustencil bench scale --size 1024 --reps 30 2>&1 | grep -E "memcpy|scale"
    fi
  done 2>&1 | tee "$out/bench_tune.txt"
fi
fi
if want ncu; then
  log "ncu"
  timeout 120 ncu --kernel-name regex:scale_vec --launch-skip 2 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $bin bench scale --size 1024 --reps 1 > "$out/ncu.txt" 2>&1
  grep -E "Memory Throughput|DRAM Throughput|Duration|Registers Per|Achieved Occupancy|Theoretical Occ" "$out/ncu.txt" | head -12
fi
if want e2e; then
log "scale end to end"
w=/tmp/gs-e2e; rm -rf $w; mkdir -p $w/set
mk=build-gpu/tests/gs_mkpng
for i in $(seq 1 ${GS_E2E_COUNT:-48}); do echo "$w/set/img$i.png 4096 4096 grey 8 seed=$i"; done | xargs -P "$(nproc)" -n 6 $mk
du -sh $w/set
for b in cpu cuda; do for n in 1 $ngpu; do
  rm -rf $w/out-$b-$n
  mpirun -np $n --oversubscribe $bin scale --backend $b -d 2 -o $w/out-$b-$n $w/set 2>&1 | grep -E "scale:" | sed "s/^/$b np=$n: /" | tee -a "$out/e2e.txt"
done; done
diff -r $w/out-cpu-1 $w/out-cuda-$ngpu > /dev/null && echo "cpu 1-rank and cuda $ngpu-rank outputs: identical" || echo "cpu and cuda outputs DIFFER"
fi
if want huge; then
  log "40000x40000 16-bit"
  w=/tmp/gs-e2e; mkdir -p $w; mk=build-gpu/tests/gs_mkpng
  time $mk $w/huge.png 40000 40000 grey 16 level=${GS_HUGE_LEVEL:-1}
  ls -la $w/huge.png
  python3 - $bin $w <<'PY'
import resource, subprocess, sys, time
bin, w = sys.argv[1:3]
t = time.time()
r = subprocess.run([bin, "scale", "--backend", "cuda", "-d", "2", "-o", w + "/huge-out", w + "/huge.png"], capture_output=True, text=True)
print(r.stdout.strip(), r.stderr.strip()[-300:])
print(f"huge 40000x40000x16: {time.time()-t:.1f} s, exit {r.returncode}, peak RSS {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss/1024:.0f} MiB")
PY
fi
if want fdtd; then
  log "fdtd"
  timeout 120 compute-sanitizer --tool memcheck --leak-check no build-gpu/tests/test_fdtd_gpu inputs/gpr.in 40 2>&1 | grep -E "ERROR SUMMARY|relative L2|checks" | head -5
  for g in 16384x16384 8192x8192 2000x1000; do $bin bench fdtd --grid $g --steps ${GS_FDTD_STEPS:-300} 2>&1 | grep -v notice; done | tee "$out/bench_fdtd.txt"
  timeout 180 ncu --kernel-name regex:"step_interior" --launch-skip 20 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $bin bench fdtd --grid 8192x8192 --steps 30 > "$out/ncu_fdtd.txt" 2>&1
  grep -E "step_kernel|DRAM Throughput|Duration|Registers Per|Achieved Occupancy|L2 Hit|Memory Throughput" "$out/ncu_fdtd.txt" | head -24
  grep -B1 -A3 "Compiling entry function.*step_kernel.*sm_90" /tmp/gs-build.log | grep -E "entry|registers|spill" | head -8
  /usr/bin/time -v $bin fdtd inputs/gpr.in -o /tmp/gpr-gpu 2>&1 | grep -E "checksum|Mcells|Maximum resident" | tee "$out/gpr_gpu.txt"
  build-gpu/gpustencil fdtd --backend cpu inputs/gpr.in -o /tmp/gpr-cpu 2>&1 | grep -E "checksum|Mcells" | tee -a "$out/gpr_gpu.txt"
  cmp /tmp/gpr-gpu/receivers.csv /tmp/gpr-cpu/receivers.csv && echo "gpr.in receivers.csv: CPU and GPU identical"
  $bin fdtd inputs/gpr.in -n ${GS_BSCAN_RUNS:-60} -o /tmp/gpr-bscan 2>&1 | grep -E "checksum|Mcells" | tee -a "$out/gpr_gpu.txt"
  cp /tmp/gpr-bscan/bscan.png "$out/bscan.png" 2>/dev/null
  cp /tmp/gpr-gpu/snapshots/ez_00001600.png "$out/gpr_ez_1600.png" 2>/dev/null
fi
if want fdtd2; then
  log "fdtd on 1 and $ngpu ranks (mpi-host halo exchange)"
  for n in 8192 16384; do
    printf '%s\n' "#title: scaling $n" "#domain: $n.0e-3 $n.0e-3 0.001" "#dx_dy_dz: 0.001 0.001 0.001" \
      "#time_window: ${GS_FDTD2_STEPS:-200}" "#material: 6 0.005 1 0 soil" "#box: 0 0 0 $n.0e-3 $((n / 2)).0e-3 0.001 soil" \
      "#waveform: ricker 1 10e9 w" "#hertzian_dipole: z $((n / 2)).0e-3 $((n / 2 + 5)).0e-3 0 w" \
      "#rx: $((n / 2 + 10)).0e-3 $((n / 2 + 5)).0e-3 0" "#messages: n" > /tmp/scal$n.in
    for r in 1 $ngpu; do
      mpirun -np $r --oversubscribe $bin fdtd /tmp/scal$n.in -o /tmp/scal$n-$r 2>&1 | grep -E "checksum|Mcells|decomposition" | sed "s/^/$n^2 np=$r: /"
    done
    cmp /tmp/scal$n-1/receivers.csv /tmp/scal$n-$ngpu/receivers.csv && echo "$n^2: receivers.csv identical on 1 and $ngpu GPUs"
  done 2>&1 | tee "$out/fdtd_ranks.txt"
fi
if want exp; then
  log "ipc ordering and decomposition experiments"
  (cd build-gpu && timeout 300 ctest --timeout 280 --output-on-failure -R "gpu_fdtd_ranks|gpu_halo_copy" > "$out/halo_tests.log" 2>&1)
  grep -E "FAIL|fdtd_ranks \(|tests passed|Passed|Failed|Timeout" "$out/halo_tests.log" | head -10
  GPUSTENCIL_IPC_SYNC=event GS_BIN=$bin GS_SOURCE_DIR=$PWD GS_MPIEXEC=mpirun GS_BACKEND=cuda GS_MAX_RANKS=4 GS_TRANSPORTS=ipc \
    GS_HALO_DECOMPS="2x1 2x2" GS_WORK=/tmp/gs-ev timeout 200 bash tests/fdtd_ranks.sh 2>&1 | tail -3 | sed "s/^/event sync: /"
  bf() { timeout 100 mpirun -np $ngpu -x GPUSTENCIL_IPC_SYNC $bin bench fdtd --steps ${GS_HALO_STEPS:-300} --csv "$out/bench.csv" "$@" 2>&1 | grep -E "ranks:|error" | sed "s/^/$GPUSTENCIL_IPC_SYNC $* /"; }
  for sy in flag event; do export GPUSTENCIL_IPC_SYNC=$sy
    bf --grid 16384x16384 --decomp 2x1 --halo-transport ipc --halo-depth 1
    bf --grid 16384x16384 --decomp 2x1 --halo-transport ipc --halo-depth 1 --no-overlap
  done; export GPUSTENCIL_IPC_SYNC=flag
  for g in 16384x16384 8192x8192 2000x1000; do for d in 1x2 2x1; do for r in 1 2 4; do
    bf --grid $g --decomp $d --halo-transport ipc --halo-depth $r
  done; done; done
  bf --grid 2000x1000 --decomp 1x2 --halo-transport ipc --halo-depth 1 --no-overlap
  bf --grid 8192x8192 --decomp 1x2 --halo-transport mpi-host --halo-depth 1
  for v in "--decomp 2x1 --halo-depth 1" "--decomp 1x2 --halo-depth 1" "--decomp 1x2 --halo-depth 8" "--decomp 2x1 --halo-depth 8"; do
    timeout 60 mpirun -np $ngpu $bin bench halo --grid 16384x16384 --reps 200 --halo-transport ipc $v --csv "$out/bench.csv" 2>&1 | grep -E "  |error" | sed "s/^/$v: /"
  done
fi
if want cmpi; then
  # The CUDA-aware Open MPI from .carry: mpi-cuda halo tests and benchmark.
  log "CUDA-aware Open MPI: mpi-cuda"
  tar -C / -xJf .carry/openmpi-cuda-4.1.4.tar.xz
  ( export PATH=/opt/ompi-cuda/bin:$PATH LD_LIBRARY_PATH=/opt/ompi-cuda/lib:${LD_LIBRARY_PATH:-}
    ompi_info --parsable --all | grep mpi_built_with_cuda_support:value
    cmake -S . -B build-cmpi -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/ompi-cuda/bin/mpicc \
      -DMPIEXEC_EXECUTABLE=/opt/ompi-cuda/bin/mpirun > /tmp/gs-cmake2.log 2>&1 || { tail -5 /tmp/gs-cmake2.log; exit 1; }
    cmake --build build-cmpi -j "$(nproc)" --target gpustencil > /tmp/gs-build2.log 2>&1 || { grep error /tmp/gs-build2.log | head; exit 1; }
    build-cmpi/gpustencil info --backend cuda | head -1
    GS_BIN=build-cmpi/gpustencil GS_SOURCE_DIR=$PWD GS_MPIEXEC=/opt/ompi-cuda/bin/mpirun GS_BACKEND=cuda GS_MAX_RANKS=2 \
      GS_TRANSPORTS="mpi-cuda ipc" GS_HALO_DECOMPS="2x1 1x2" GS_WORK=/tmp/gs-cmpi timeout 300 bash tests/fdtd_ranks.sh > "$out/cmpi_tests.log" 2>&1
    grep -E "FAIL|fdtd_ranks" "$out/cmpi_tests.log" | head
    for g in 16384x16384 8192x8192 2000x1000; do for r in 1 4; do
      timeout 100 mpirun -np 2 build-cmpi/gpustencil bench fdtd --grid $g --steps ${GS_HALO_STEPS:-300} --halo-transport mpi-cuda \
        --halo-depth $r --csv "$out/bench.csv" 2>&1 | grep -E "^bench|ranks:"
    done; done
    timeout 60 mpirun -np 2 build-cmpi/gpustencil bench halo --grid 16384x16384 --decomp 1x2 --halo-depth 8 --reps 200 \
      --halo-transport mpi-cuda --csv "$out/bench.csv" 2>&1 | grep -E "^bench|  "
  ) 2>&1 | grep -v "cuMemHostRegister\|^ *$\|^---\|open-mpi\|registered memory\|Local host\|NOTE:\|Registration cache\|Host:" | tee "$out/cmpi.txt"
fi
if want scaling; then
  log "bench fdtd: 1 GPU"
  for g in 16384x16384 8192x8192 2000x1000; do $bin bench fdtd --grid $g --steps ${GS_FDTD_STEPS:-300} 2>&1 | grep -v notice; done | tee "$out/bench_fdtd.txt"
  log "bench fdtd on $ngpu ranks"
  for g in ${GS_HALO_GRIDS:-16384x16384 8192x8192 2000x1000}; do
    for v in "--halo-transport ipc --halo-depth 1" "--halo-transport ipc --halo-depth 1 --no-overlap" "--halo-transport ipc --halo-depth 2" \
             "--halo-transport ipc --halo-depth 4" "--halo-transport ipc --halo-depth 4 --no-overlap" "--halo-transport ipc --halo-depth 8" \
             "--halo-transport mpi-host --halo-depth 1" "--halo-transport mpi-host --halo-depth 4"; do
      timeout 100 mpirun -np $ngpu $bin bench fdtd --grid $g --steps ${GS_HALO_STEPS:-300} $v --csv "$out/bench.csv" 2>&1 | grep -E "^bench|ranks:|error"
    done
  done 2>&1 | tee "$out/bench_fdtd_ranks.txt"
  timeout 100 mpirun -np $ngpu $bin bench fdtd --grid 8192x8192 --weak --steps ${GS_HALO_STEPS:-300} --csv "$out/bench.csv" 2>&1 | grep -E "^bench|rank|error" | tee -a "$out/bench_fdtd_ranks.txt"
  log "bench halo"
  for v in "--decomp 1x2 --halo-depth 1" "--decomp 1x2 --halo-depth 4" "--decomp 1x2 --halo-depth 8" "--decomp 2x1 --halo-depth 1" "--decomp 2x1 --halo-depth 8"; do
    for t in ipc mpi-host; do
      timeout 60 mpirun -np $ngpu $bin bench halo --grid 16384x16384 --reps 200 --halo-transport $t $v --csv "$out/bench.csv" 2>&1 | grep -E "^bench|  |error"
    done
  done 2>&1 | tee "$out/bench_halo.txt"
  GPUSTENCIL_IPC_SYNC=event timeout 100 mpirun -np $ngpu -x GPUSTENCIL_IPC_SYNC $bin bench fdtd --grid 16384x16384 --steps 300 --halo-transport ipc --halo-depth 1 2>&1 | grep -E "ranks:" | sed "s/^/IPC events: /" | tee -a "$out/bench_fdtd_ranks.txt"
  python3 scripts/plot_bench.py "$out/bench.csv" "$out"
fi
if want k4; then
  # FDTD kernel variants (issue #4): each built with its tests, checked bit for
  # bit against the CPU twin, then timed. GS_K4 lists them (";" between -D flags).
  log "fdtd kernel variants"
  wait $k4pid; cat /tmp/k4build.log
  for v in $k4v; do
    d=build-k4-${v//[^A-Za-z0-9]/_}
    [ -x $d/gpustencil ] || continue
    echo "-- variant $v"
    $d/tests/test_fdtd_gpu inputs/gpr.in 1000 2>&1 | grep -E "differ|checks" | head -4
    for g in 16384x16384 8192x8192 2000x1000; do $d/gpustencil bench fdtd --grid $g --steps 300 2>&1 | grep Mcells; done
  done 2>&1 | tee "$out/k4.txt"
  echo "-- default"; for g in 16384x16384 16384x16384 16384x16384 8192x8192 2000x1000; do $bin bench fdtd --grid $g --steps 300 2>&1 | grep Mcells | sed "s/^/$g /"; done | tee -a "$out/k4.txt"
  log "2x1 column halos by depth"
  for r in 2 4 8; do
    timeout 60 mpirun -np $ngpu $bin bench halo --grid 16384x16384 --reps 100 --halo-transport ipc --decomp 2x1 --halo-depth $r 2>&1 | grep -E "KB sent" | sed "s/^/2x1 R=$r: /"
  done
  log "defaults on 2 GPUs: gpr.in"
  $bin fdtd inputs/gpr.in -o /tmp/g1 2>&1 | grep -E "checksum|Mcells"
  mpirun -np $ngpu $bin fdtd inputs/gpr.in -o /tmp/g2 2>&1 | grep -E "ranks,|checksum|Mcells"
  cmp /tmp/g1/receivers.csv /tmp/g2/receivers.csv && echo "gpr.in: receivers.csv identical on 1 and $ngpu GPUs (defaults)"
fi
if want bits; then
  # Multi-rank bit checks for kernel variants and depths on gpr.in.
  log "bits"
  $bin fdtd inputs/gpr.in -o /tmp/b1 2>&1 | grep -E "checksum"
  chk() { local b=$1; shift; mpirun -np $ngpu -x GPUSTENCIL_IPC_SYNC $b fdtd inputs/gpr.in -o /tmp/bx "$@" 2>&1 | grep -E "checksum" | sed "s/^/$(basename $(dirname $b)) $* /"; cmp -s /tmp/b1/receivers.csv /tmp/bx/receivers.csv && echo "   same" || echo "   DIFFERENT"; }
  for v in ${GS_BITS_VARIANTS:-GS_FDTD_COLS=1}; do
    d=build-k4-${v//[^A-Za-z0-9]/_}
    cmake -S . -B $d -DCMAKE_CUDA_ARCHITECTURES=90 "-DGPUSTENCIL_SCALE_TUNING=${v//,/;}" -DBUILD_TESTING=OFF > /dev/null 2>&1 &&
      cmake --build $d --target gpustencil -j "$(nproc)" > /dev/null 2>&1 || { echo "$v: build failed"; continue; }
    chk $d/gpustencil --halo-depth 8
  done
  for a in "--halo-depth 8" "--halo-depth 8 --no-overlap" "--halo-depth 8 --halo-transport mpi-host" "--halo-depth 4" "--halo-depth 2" "--halo-depth 1" "--halo-depth 5"; do
    chk $bin $a
  done
  GPUSTENCIL_IPC_SYNC=event chk $bin --halo-depth 8
fi
if want graphs; then
  log "CUDA graphs: bench fdtd with and without, 1 GPU and $ngpu GPUs"
  for g in 16384x16384 8192x8192 2000x1000 1000x1000; do for x in "" --no-graphs; do
    $bin bench fdtd --grid $g --steps 300 $x 2>&1 | grep -E "Mcells" | sed "s/^/$g ${x:-graphs} 1 GPU: /"
  done; done | tee "$out/graphs_1gpu.txt"
  for g in 16384x16384 8192x8192 2000x1000 1000x1000; do for x in "" --no-graphs; do
    timeout 100 mpirun -np $ngpu $bin bench fdtd --grid $g --steps 300 $x --csv "$out/graphs.csv" 2>&1 | grep -E "ranks:|error" | sed "s/^/$g ${x:-graphs}: /"
  done; done | tee "$out/graphs_2gpu.txt"
  $bin fdtd inputs/gpr.in -o /tmp/gg 2>&1 | grep -E "graphs|checksum|Mcells" | tee -a "$out/graphs_1gpu.txt"
  $bin fdtd inputs/gpr.in -o /tmp/gn --no-graphs 2>&1 | grep -E "checksum|Mcells" | tee -a "$out/graphs_1gpu.txt"
  cmp /tmp/gg/receivers.csv /tmp/gn/receivers.csv && echo "gpr.in: receivers.csv identical with and without graphs" | tee -a "$out/graphs_1gpu.txt"
fi
if want halo2; then
  log "bench halo: fused copy + flag, message sizes"
  for v in "16384x16384 1x2 1" "16384x16384 1x2 4" "16384x16384 1x2 8" "16384x16384 2x1 1" "16384x16384 2x1 8" "65536x4096 1x2 8" \
           "262144x1024 1x2 8" "1048576x256 1x2 8"; do
    for c in ${GS_IPC_COPIES:-kernel engine}; do
      set -- $v
      GPUSTENCIL_IPC_COPY=$c timeout 60 mpirun -np $ngpu -x GPUSTENCIL_IPC_COPY $bin bench halo --grid $1 --decomp $2 --halo-depth $3 \
        --reps ${GS_HALO_REPS:-200} --halo-transport ipc --csv "$out/halo2.csv" 2>&1 | grep -E "KB sent|cudaMemcpyPeer|error" | sed "s/^/$1 $2 R=$3 $c: /"
    done
  done 2>&1 | tee "$out/halo2.txt"
fi
if want ncu4; then
  log "ncu: marching kernel (4 columns) at 8192^2 and 16384^2"
  grep -A2 -E "Compiling entry function.*(step_interior_vec|step_both).*sm_90" /tmp/gs-build.log | grep -E "registers|spill" | head -4 | tee "$out/ptxas_fdtd.txt"
  timeout 200 ncu --kernel-name regex:"step_both|step_interior" --launch-skip 40 --launch-count 1 \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section LaunchStats --section Occupancy \
    $bin bench fdtd --grid 16384x16384 --steps 30 --no-graphs > "$out/ncu_fdtd4.txt" 2>&1
  grep -E "DRAM Throughput|Duration|Registers Per|Achieved Occupancy|Theoretical Occ|L2 Hit|Memory Throughput|L1/TEX Hit" "$out/ncu_fdtd4.txt" | head -16
fi
if want stage; then
  log "ipc staging of short-row boxes (columns): GPUSTENCIL_IPC_STAGE never vs auto"
  for v in "2x1 1" "2x1 4" "2x1 8" "1x2 8"; do for st in never auto; do
    set -- $v
    GPUSTENCIL_IPC_STAGE=$st timeout 60 mpirun -np $ngpu -x GPUSTENCIL_IPC_STAGE $bin bench halo --grid 16384x16384 --decomp $1 --halo-depth $2 \
      --reps 200 --halo-transport ipc --csv "$out/stage.csv" 2>&1 | grep -E "KB sent|cudaMemcpyPeer|error" | sed "s/^/halo $1 R=$2 $st: /"
  done; done 2>&1 | tee "$out/stage.txt"
  for g in 16384x16384 8192x8192 2000x1000; do for st in never auto; do
    GPUSTENCIL_IPC_STAGE=$st timeout 100 mpirun -np $ngpu -x GPUSTENCIL_IPC_STAGE $bin bench fdtd --grid $g --decomp 2x1 --steps 300 \
      --csv "$out/stage.csv" 2>&1 | grep -E "ranks:|error" | sed "s/^/fdtd $g 2x1 $st: /"
  done; done 2>&1 | tee -a "$out/stage.txt"
fi
if want final; then
  log "bench fdtd: 1 GPU and 2 GPUs (defaults: ipc, automatic halo depth, overlap)"
  for g in 16384x16384 8192x8192 2000x1000; do $bin bench fdtd --grid $g --steps 300 2>&1 | grep -E "^bench|Mcells"; done | tee "$out/final_bench_1gpu.txt"
  for g in 16384x16384 8192x8192 2000x1000; do
    timeout 100 mpirun -np $ngpu $bin bench fdtd --grid $g --steps 300 --csv "$out/final.csv" 2>&1 | grep -E "^bench|ranks:|error"
  done | tee "$out/final_bench_2gpu.txt"
fi
if want s4; then
  log "session 4: this build (new) against the session-3 one (base) and variants, same call"
  wait $basepid; cat /tmp/basebuild.log
  # variant name -> binary and environment
  pick() { x=$bin; e=GS_NONE=1
    case $1 in base) x=/tmp/gs-base/build/gpustencil ;; nopdl) e=GPUSTENCIL_PDL=0 ;; GS_*) x=build-s4-${1//[^A-Za-z0-9]/_}/gpustencil ;; esac; }
  for g in ${GS_S4_GRIDS:-2000x1000 1000x1000 8192x8192 16384x16384}; do
    case $g in 16384x16384) n=300 ;; 8192x8192) n=1000 ;; *) n=5000 ;; esac
    for v in ${GS_S4_VARIANTS:-new nopdl base}; do
      pick $v; [ -x $x ] || continue
      env $e $x bench fdtd --grid $g --steps $n 2>&1 | grep -E "Mcells|error|fatal" | sed "s/^/$g $v 1 GPU: /"
      timeout 100 mpirun -np $ngpu env $e $x bench fdtd --grid $g --steps $n --csv "$out/s4_$v.csv" 2>&1 | grep -E "ranks:|error|fatal" | sed "s/^/$g $v: /"
    done
  done 2>&1 | tee "$out/s4_ab.txt"
  log "session 4: timed-step count (the graph capture inside or outside the timed steps), 2000x1000"
  for v in base new; do for n in 300 2000; do pick $v
    timeout 100 mpirun -np $ngpu $x bench fdtd --grid 2000x1000 --steps $n 2>&1 | grep -E "^bench|ranks:|error" | sed "s/^/$v $n steps: /"
  done; done 2>&1 | tee "$out/s4_steps.txt"
  for d in 2x1 1x2; do for r in auto 4; do
    timeout 100 mpirun -np $ngpu $bin bench fdtd --grid 2000x1000 --steps 5000 --decomp $d --halo-depth $r --csv "$out/s4_new.csv" 2>&1 | grep -E "ranks:|error" | sed "s/^/2000x1000 $d R=$r: /"
  done; done 2>&1 | tee -a "$out/s4_steps.txt"
  log "session 4: gpr.in (receivers on their own stream), new and base"
  for v in base new nopdl; do pick $v
    for k in 1 2 3; do env $e $x fdtd inputs/gpr.in -o /tmp/gpr-$v 2>&1 | grep -E "checksum|Mcells" | sed "s/^/$v: /"; done
  done 2>&1 | tee "$out/s4_gpr.txt"
  for v in new nopdl; do cmp /tmp/gpr-base/receivers.csv /tmp/gpr-$v/receivers.csv && echo "gpr.in receivers.csv: base and $v identical"; done | tee -a "$out/s4_gpr.txt"
  log "session 4: bench halo, one-way and both-ways ceilings"
  for v in "16384x16384 1x2 1" "16384x16384 1x2 8" "16384x16384 2x1 8" "1048576x256 1x2 8" "2097152x128 1x2 8" "4194304x64 1x2 8"; do
    set -- $v
    timeout 60 mpirun -np $ngpu $bin bench halo --grid $1 --decomp $2 --halo-depth $3 --reps 200 --halo-transport ipc \
      --csv "$out/s4_halo.csv" 2>&1 | grep -E "KB sent|cudaMemcpyPeer|both ways|error" | sed "s/^/$1 $2 R=$3: /"
  done 2>&1 | tee "$out/s4_halo.txt"
fi
if want final4; then
  log "session 4 final: bench fdtd, 1 GPU and $ngpu GPUs, defaults (programmatic dependent launch on) and GPUSTENCIL_PDL=0"
  for g in 16384x16384 8192x8192 2000x1000 1000x1000; do
    case $g in 16384x16384) n=300 ;; 8192x8192) n=1000 ;; *) n=5000 ;; esac
    for e in GS_NONE=1 GPUSTENCIL_PDL=0; do
      env $e $bin bench fdtd --grid $g --steps $n 2>&1 | grep -E "Mcells|error|fatal" | sed "s/^/$g $e 1 GPU: /"
      timeout 100 mpirun -np $ngpu env $e $bin bench fdtd --grid $g --steps $n --csv "$out/final4.csv" 2>&1 | grep -E "^bench|ranks:|error|fatal" | sed "s/^/$g $e: /"
    done
  done 2>&1 | tee "$out/final4.txt"
fi
cp build-gpu/Testing/Temporary/LastTest.log /tmp/gs-LastTest.log 2>/dev/null
true
