#!/usr/bin/env bash
# One GPU-machine call: build for sm_90, run every test (the gpu ones included), check that the
# CPU and GPU give the same bits on the shipped scene (1 and 2 ranks, every transport the machine
# has), and run the benchmarks whose figures docs/performance.md quotes. Logs go to $OUT (or
# ./gpu-out). Debian packages the machine lacks (libdeflate, ISA-L) are unpacked from .carry/
# (scripts/gpu_prologue.sh).
# GS_SECTIONS picks parts (default all): tests bits bench codec 3d dist3 ranks3 scale3 onchip cols fuse fuse2 small2;
# GS_CMPI_ONLY=1 builds once, against the CUDA-aware Open MPI of .carry; GS_TARGETS names the targets to
# build (default all: the sections that run no ctest need only gpustencil)
source "$(dirname "${BASH_SOURCE[0]}")/gpu_prologue.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 NCCL_NVLS_ENABLE=0
want() { [ -z "${GS_SECTIONS:-}" ] || [[ " $GS_SECTIONS " == *" $1 "* ]]; }
log() { echo "== $*"; }
log "machine"; nvidia-smi -L; nproc
ngpu=$(nvidia-smi -L | wc -l)
log "build"
mpi_args=()
if [ "${GS_CMPI_ONLY:-0}" = 1 ] && [ -f .carry/openmpi-cuda-4.1.4.tar.xz ]; then
  # One build against the CUDA-aware Open MPI (saves the second build of section dist3)
  tar -C / -xJf .carry/openmpi-cuda-4.1.4.tar.xz
  export PATH=/opt/ompi-cuda/bin:$PATH LD_LIBRARY_PATH=/opt/ompi-cuda/lib:${LD_LIBRARY_PATH:-}
  mpi_args=(-DMPI_C_COMPILER=/opt/ompi-cuda/bin/mpicc -DMPIEXEC_EXECUTABLE=/opt/ompi-cuda/bin/mpirun)
fi
cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 "${mpi_args[@]}" > "$out/cmake.log" 2>&1 ||
  { tail "$out/cmake.log"; exit 1; }
cmake --build build-gpu -j "$(nproc)" ${GS_TARGETS:+--target $GS_TARGETS} > "$out/build.log" 2>&1 || { grep -E "error" "$out/build.log" | head; exit 1; }
bin=build-gpu/gpustencil
if want tests; then
  log "tests (all labels but fuzz; slow included: the CPU twins of gprMax's 100^3 models, which CI leaves out)"
  (cd build-gpu && ctest --output-on-failure -j 8 -LE fuzz > "$out/ctest.log" 2>&1); tail -30 "$out/ctest.log"
fi
if want bits; then
  log "bits: gpr.in on cpu and cuda, 1 and $ngpu ranks"
  for run in "1 cpu" "1 cuda" "$ngpu cuda"; do
    set -- $run
    mpirun -np "$1" --oversubscribe $bin fdtd inputs/gpr.in --backend "$2" -o "/tmp/bits-$1-$2" 2>&1 | grep -E "checksum|transport"
    md5sum "/tmp/bits-$1-$2/receivers.csv"
  done | tee "$out/bits.txt"
fi
if want small2 && [ "$ngpu" -gt 1 ]; then
  log "small2: small 2D grids over 2..$ngpu GPUs against one GPU (the grid on chip) in the same job"
  for g in 2000x1000 1000x1000; do
    for n in 2 4; do
      [ "$n" -le "$ngpu" ] || continue
      for r in ${GS_SMALL2_DEPTHS:-auto 2 4 8}; do
        mpirun -np $n $bin bench fdtd --grid $g --steps 4000 --halo-depth $r 2>&1 | grep -vE "^$"
      done
    done
  done 2>&1 | tee "$out/small2.txt"
fi
if want bench; then
  log "bench fdtd, 1 GPU and $ngpu GPUs"
  $bin bench fdtd --grid 16384x16384 --steps 500 2>&1 | tee "$out/bench_fdtd1.txt"
  [ "$ngpu" -gt 1 ] && mpirun -np "$ngpu" $bin bench fdtd --grid 16384x16384 --steps 500 2>&1 | tee "$out/bench_fdtd_n.txt"
  $bin bench scale --size 1024 --reps 20 2>&1 | tee "$out/bench_scale.txt"
fi
if want 3d; then
  log "3d: CPU and GPU bits on every 3D scene of tests/data/gprmax, then the 3D benches (set-up timed)"
  scenes3d=$(for d in tests/data/gprmax/*/; do
    f=$(ls "$d"*.in 2>/dev/null | head -1); [ -n "$f" ] || continue
    python3 - "$f" <<'PY' && basename "$d"
import sys
words = {l.split(':')[0]: l.split(':')[1].split() for l in open(sys.argv[1]) if l.startswith('#') and ':' in l}
n = [float(a) / float(b) for a, b in zip(words['#domain'], words['#dx_dy_dz'])]
# 3D, and small enough for the CPU twin here (the 100^3 ones: gpu_gprmax_* compares the GPU with gprMax)
sys.exit(0 if min(n) > 1.5 and n[0] * n[1] * n[2] < 4e5 else 1)
PY
  done)
  for s in $scenes3d; do
    in=$(ls tests/data/gprmax/$s/*.in | head -1); m=$(basename "$in" .in)
    for be in cpu cuda; do
      (cd "tests/data/gprmax/$s" && "$here/$bin" fdtd "$m.in" --backend $be -o /tmp/3d-$s-$be 2>&1 | grep -E "checksum|Mcells")
    done
    python3 -c "
import h5py, numpy as np, glob
for fa in sorted(glob.glob('/tmp/3d-$s-cpu/*.h5')):
    fb = fa.replace('-cpu/', '-cuda/')
    a = h5py.File(fa); b = h5py.File(fb)
    same = all(np.array_equal(a['rxs'][r][c][()], b['rxs'][r][c][()]) for r in a['rxs'] for c in a['rxs'][r])
    print('$s', fa.split('/')[-1], ': CPU and GPU receivers', 'bit-identical' if same else 'DIFFER')"
  done 2>&1 | tee "$out/3d_bits.txt"
  for n in 512 1024; do build-gpu/tests/bench_fdtd3d $n 200 0; build-gpu/tests/bench_fdtd3d $n 200 10; done 2>&1 | tee "$out/3d_bench.txt"
  for n in 512 1024; do
    TIMEFORMAT="bench fdtd --grid ${n}^3: %R s wall in all (set-up included)"
    time $bin bench fdtd --grid ${n}x${n}x${n} --steps 200
  done 2>&1 | tee -a "$out/3d_bench.txt"
fi
if want dist3; then
  log "dist3: 3D over $ngpu GPUs: bits on every transport (CUDA-aware Open MPI from .carry too), time 1 vs $ngpu ranks"
  if [ -f .carry/openmpi-cuda-4.1.4.tar.xz ]; then
    tar -C / -xJf .carry/openmpi-cuda-4.1.4.tar.xz
    ( export PATH=/opt/ompi-cuda/bin:$PATH LD_LIBRARY_PATH=/opt/ompi-cuda/lib:${LD_LIBRARY_PATH:-}
      cmake -S . -B build-cmpi -DCMAKE_CUDA_ARCHITECTURES=90 -DMPI_C_COMPILER=/opt/ompi-cuda/bin/mpicc \
        -DMPIEXEC_EXECUTABLE=/opt/ompi-cuda/bin/mpirun > "$out/cmake-cmpi.log" 2>&1 &&
        cmake --build build-cmpi -j "$(nproc)" --target gpustencil > "$out/build-cmpi.log" 2>&1 || { echo "cmpi build failed"; exit 1; }
      for g in small boundary sources dispersive; do
        GS_BIN=build-cmpi/gpustencil GS_SOURCE_DIR=$PWD GS_MPIEXEC=/opt/ompi-cuda/bin/mpirun GS_BACKEND=cuda \
          GS_MAX_RANKS=$ngpu GS_TRANSPORTS="mpi-cuda mpi-host" GS_WORK=/tmp/gs-d3 timeout 400 bash tests/fdtd3d_ranks.sh $g
        echo "fdtd3d_ranks $g (mpi-cuda mpi-host, up to $ngpu GPUs): exit $?"
      done ) 2>&1 | tee "$out/dist3_bits.txt" | grep -E "exit|FAIL" | head -20
  fi
  for n in 1 $ngpu; do
    for t in auto mpi-host; do
      [ "$n" = 1 ] && [ "$t" = mpi-host ] && continue
      mpirun -np $n $bin fdtd tests/data/dist3d/timing256.in --backend cuda --halo-transport $t -o /tmp/t256-$n-$t 2>&1 |
        grep -E "checksum|steps in|transport" | sed "s/^/np $n $t: /"
    done
  done 2>&1 | tee "$out/dist3_time.txt"
  for n in 512; do build-gpu/tests/bench_fdtd3d $n 200 10; $bin bench fdtd --grid ${n}x${n}x${n} --steps 200; done 2>&1 |
    tee "$out/dist3_bench1.txt"
  build-gpu/tests/bench_gridsync 20000 2>&1 | tee "$out/gridsync.txt"
fi
if want scale3; then
  log "scale3: 3D strong and weak scaling over $ngpu GPUs against 1 GPU in the same job, bench halo 3D"
  for run in ${GS_SCALE3_RUNS:-512:auto 1024:auto 1024:mpi-cuda}; do # edge:transport
    n=${run%%:*}
    mpirun -np "$ngpu" $bin bench fdtd --grid ${n}x${n}x${n} --steps 100 --halo-transport ${run#*:}
  done 2>&1 | tee "$out/scale3.txt"
  mpirun -np "$ngpu" $bin bench fdtd --grid 1024x1024x1024 --steps 100 --weak 2>&1 | tee -a "$out/scale3.txt"
  for t in auto mpi-cuda; do
    mpirun -np "$ngpu" $bin bench halo --grid 512x512x512 --reps 50 --halo-transport $t
  done 2>&1 | tee -a "$out/scale3.txt"
  if [ "$ngpu" -ge 4 ]; then # a model bigger than one GPU (no one-GPU ratio: it does not fit); 2048^3 (8.6 G
    # cells, 51 bytes each: 110 GB a GPU) needs H200s; on 80 GB cards 1600^3 (4.1 G cells, 52 GB a GPU)
    mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits | head -1)
    big=2048; [ "$mib" -ge 130000 ] || big=1600
    nvidia-smi --query-gpu=memory.used --format=csv,noheader -lms 500 > "$out/scale3_big_mem.txt" & smi=$!
    TIMEFORMAT="bench fdtd --grid ${big}^3 on $ngpu GPUs: %R s wall (set-up included)"
    { time mpirun -np "$ngpu" $bin bench fdtd --grid ${big}x${big}x${big} --steps 20; } 2>&1 | tee -a "$out/scale3.txt"
    kill $smi; sort -n "$out/scale3_big_mem.txt" | tail -1 | sed 's/^/most GPU memory used a card: /' | tee -a "$out/scale3.txt"
  fi
fi
if want ranks3; then
  if [ "${GS_RANKS3_CTEST:-1}" = 1 ]; then
    log "ranks3: the 3D GPU bit tests (one GPU against gprMax and the CPU twin; the split models over $ngpu GPUs)"
    (cd build-gpu && timeout 420 ctest --output-on-failure -j 4 -R "${GS_RANKS3_TESTS:-gpu_.*(3d|gprmax_(hertzian|dispersive|plane)).*}") \
      > "$out/ranks3_ctest.log" 2>&1; grep -E "Test +#|tests passed|FAIL" "$out/ranks3_ctest.log" | tail -40
  fi
  # GS_RANKS3_GROUPS: groups of tests/fdtd3d_ranks.sh on up to $ngpu GPUs, each split on every transport
  # the build has (ipc, mpi-host, and mpi-cuda against the CUDA-aware Open MPI), against one rank
  for g in ${GS_RANKS3_GROUPS:-}; do
    GS_BIN=$bin GS_SOURCE_DIR=$PWD GS_MPIEXEC=mpirun GS_BACKEND=cuda GS_MAX_RANKS=$ngpu GS_WORK=/tmp/gs-r3 \
      timeout ${GS_RANKS3_TIMEOUT:-300} bash tests/fdtd3d_ranks.sh "$g" > "$out/ranks3_$g.txt" 2>&1
    echo "fdtd3d_ranks $g (every transport, up to $ngpu GPUs): exit $? $(grep -c FAIL "$out/ranks3_$g.txt") failures"
    grep FAIL "$out/ranks3_$g.txt" | head -5
  done 2>&1 | tee "$out/ranks3_groups.txt"
  if [ -z "${GS_RANKS3_GROUPS:-}" ] || [ "$ngpu" -lt 4 ]; then # (the groups ran 4 ranks on ipc on 4 GPUs)
    log "ranks3: 4 parts in a row over ipc, 4 ranks on $ngpu GPUs, twice (each part's exchange pass in order)"
    for rep in 1 2; do
      GS_BIN=$bin GS_SOURCE_DIR=$PWD GS_MPIEXEC=mpirun GS_BACKEND=cuda GS_MAX_RANKS=4 GS_TRANSPORTS=ipc \
        GS_WORK=/tmp/gs-ipc$rep timeout 200 bash tests/fdtd3d_ranks.sh small
    done 2>&1 | tee "$out/ranks3_ipc4.txt" | tail -4
  fi
fi
if want codec; then
  log "codec: one thread against the codec ceiling (ISA-L inflate + deflate of the same images)"
  GS_BUILD_DIR=build-gpu COUNT=${GS_CODEC_COUNT:-8} REPS=3 scripts/bench_codec.sh grey8 grey16 rgb8 2>&1 | tee "$out/codec.txt"
  log "scale end to end: ${GS_E2E_COUNT:-400} grey 8-bit images of 4096^2, 1 and $ngpu ranks"
  # In memory (tmpfs): files written just before, on the VM's disk, read back at 3.5 Gpixel/s while
  # their write-back is still going.
  e2e=/dev/shm/gs-e2e; [ -d /dev/shm ] || e2e=/tmp/gs-e2e; mkdir -p "$e2e/in"
  seq 1 "${GS_E2E_COUNT:-400}" | xargs -P "$(nproc)" -I{} build-gpu/tests/gs_mkpng "$e2e/in/img{}.png" 4096 4096 grey 8 seed={} level=6
  du -sh "$e2e/in"
  for n in 1 $ngpu; do
    rm -rf "$e2e/out"
    mpirun -np $n $bin scale -d 2 -o "$e2e/out" "$e2e/in" 2>&1 | tail -2 | tee -a "$out/e2e.txt"
  done
fi
if want onchip; then
  log "onchip: the 2D grid on chip: bit tests, sanitizers, bench fdtd on small and large grids"
  (cd build-gpu && ctest --output-on-failure -R "onchip|gpu_fdtd_cpu_vs_gpu") 2>&1 | tail -12 | tee "$out/onchip_tests.txt"
  build-gpu/tests/test_fdtd_gpu tests/data/onchip/onchip.in 2>&1 | tee -a "$out/onchip_tests.txt"
  build-gpu/tests/test_fdtd_gpu tests/data/onchip/tiny.in 2>&1 | tail -3 | tee -a "$out/onchip_tests.txt"
  # Every 2D scene test (gprMax's references, the CLI, checkpoints) with the grid on chip wherever one rank runs
  (cd build-gpu && GPUSTENCIL_ONCHIP=1 ctest -j 8 -LE "fuzz|slow" -R "gprmax_(2D|cyl|lossy|buried|tmx|bscan|multi|tmy|quirk|compound|magnetic_n|waveforms|np2)|fdtd_cli|ckpt_corrupt|gpu_fdtd_cpu|fdtd_cavity|fdtd_energy|fdtd_greens|fdtd_cpml") 2>&1 |
    tail -6 | sed 's/^/GPUSTENCIL_ONCHIP=1: /' | tee -a "$out/onchip_tests.txt"
  for tool in racecheck synccheck memcheck; do
    compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/test_fdtd_gpu tests/data/onchip/onchip.in 24 \
      > "$out/onchip_$tool.txt" 2>&1; echo "compute-sanitizer $tool: exit $?" | tee -a "$out/onchip_tests.txt"
    tail -3 "$out/onchip_$tool.txt"
  done
  for g in 2000x1000 1000x1000 600x300 2048x1100 4000x2000; do $bin bench fdtd --grid $g --steps 2000; done 2>&1 |
    tee "$out/onchip_bench.txt"
  $bin bench fdtd --grid 16384x16384 --steps 300 2>&1 | tee -a "$out/onchip_bench.txt"
  # Without CPML: the interior's speed alone (4000 steps of 2000 x 1000 free space, one source)
  printf '#domain: 2 1 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 4000\n#pml_cells: 0\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 1 0.5 0 w\n' > /tmp/nopml.in
  for v in 1 0; do GPUSTENCIL_ONCHIP=$v $bin fdtd /tmp/nopml.in -o /tmp/nopml$v 2>&1 | grep -E "checksum|steps in" | sed "s/^/no CPML, GPUSTENCIL_ONCHIP=$v: /"; done 2>&1 | tee -a "$out/onchip_bench.txt"
  for v in 1 0; do
    TIMEFORMAT="gpr.in GPUSTENCIL_ONCHIP=$v: %R s wall"
    time (GPUSTENCIL_ONCHIP=$v $bin fdtd inputs/gpr.in -o /tmp/oc$v 2>&1 | grep -E "checksum|steps in")
  done 2>&1 | tee -a "$out/onchip_bench.txt"
  if [ "$ngpu" -gt 1 ]; then
    for g in 2000x1000 1000x1000; do mpirun -np "$ngpu" $bin bench fdtd --grid $g --steps 2000; done 2>&1 |
      tee -a "$out/onchip_bench.txt"
  fi
fi
if want cols; then
  log "cols: the columns form on chip: each form's bit tests and sanitizers, bench per form"
  (cd build-gpu && ctest --output-on-failure -j 6 -R "gpu_fdtd_onchip|gpu_fdtd_fuse") 2>&1 | tail -25 | tee "$out/cols_tests.txt"
  for form in ez regs; do # (a test needs 48 steps to capture its CUDA graph; the big scene through the CLI, 8 steps)
    sed 's/^#time_window:.*/#time_window: 8/' tests/data/onchip/cols_big.in > /tmp/cols_big8.in
    for tool in memcheck racecheck synccheck; do
      for s in fuse/thick_pml onchip/tiny; do
        GS_FDTD_RUN_FORM=$form compute-sanitizer --tool $tool --error-exitcode 9 build-gpu/tests/test_fdtd_gpu \
          tests/data/$s.in 48 > /tmp/san.txt 2>&1
        echo "compute-sanitizer $tool, form $form, $s (48 steps): exit $? $(grep -E "SUMMARY|checks" /tmp/san.txt | tr '\n' ' ')"
      done
      GS_FDTD_RUN_FORM=$form GPUSTENCIL_ONCHIP=1 compute-sanitizer --tool $tool --error-exitcode 9 $bin fdtd \
        /tmp/cols_big8.in -o /tmp/cb8 > /tmp/san.txt 2>&1
      echo "compute-sanitizer $tool, form $form, fdtd cols_big.in (8 steps): exit $? $(grep -E "SUMMARY" /tmp/san.txt)"
    done
  done 2>&1 | tee -a "$out/cols_tests.txt"
  printf '#domain: 2 1 0.001\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 4000\n#pml_cells: 0\n#waveform: ricker 1 3e9 w\n#hertzian_dipole: z 1 0.5 0 w\n' > /tmp/nopml.in
  for form in ${GS_COLS_FORMS:-tiles ez regs}; do
    for g in ${GS_COLS_GRIDS:-2000x1000 1000x1000 600x300}; do
      GS_FDTD_RUN_FORM=$form $bin bench fdtd --grid $g --steps 4000 2>&1 | grep -A1 -E "^bench|T = 1 \(|on chip"
    done
    GS_FDTD_RUN_FORM=$form GPUSTENCIL_ONCHIP=1 $bin fdtd /tmp/nopml.in -o /tmp/nopml-$form 2>&1 |
      grep -E "checksum|steps in" | sed "s/^/no CPML, form $form: /"
  done 2>&1 | tee "$out/cols_bench.txt"
fi
if want fuse; then
  log "fuse: T steps fused a pass: bit tests, sanitizers, 2D scene tests with it forced, bench fdtd"
  build-gpu/tests/test_fdtd_gpu tests/data/fuse/fuse.in 2>&1 | tee "$out/fuse_tests.txt"
  for s in onchip/many_rx onchip/tiny fuse/thick_pml fuse/no_pml fuse/two_sides; do
    build-gpu/tests/test_fdtd_gpu tests/data/$s.in 2>&1 | grep -E "fused|checks|not the bits" | sed "s|^|$s: |"; done |
    tee -a "$out/fuse_tests.txt"
  for sc in fuse thick_pml; do
    sed 's/^#time_window:.*/#time_window: 40/' tests/data/fuse/$sc.in > /tmp/fz.in
    for tool in memcheck racecheck synccheck; do
      GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=4 compute-sanitizer --tool $tool --error-exitcode 9 $bin fdtd /tmp/fz.in \
        -o /tmp/fz-$tool > "$out/fuse_$tool.txt" 2>&1
      echo "compute-sanitizer $tool (fdtd $sc.in, 40 steps in passes of 4): exit $?" | tee -a "$out/fuse_tests.txt"
      tail -2 "$out/fuse_$tool.txt"
    done
  done
  if [ "${GS_FUSE_CTEST:-1}" = 1 ]; then # every 2D scene test with the passes forced wherever one rank runs off chip
    (cd build-gpu && GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=5 ctest -j 8 -LE "fuzz|slow" -R "gprmax_(2D|cyl|lossy|buried|tmx|bscan|multi|tmy|quirk|compound|magnetic_n|waveforms|np2)|fdtd_cli|ckpt_corrupt|gpu_fdtd_cpu|fdtd_cavity|fdtd_energy|fdtd_greens|fdtd_cpml") 2>&1 |
      tail -6 | sed 's/^/GPUSTENCIL_ONCHIP=0 GPUSTENCIL_FUSE=5: /' | tee -a "$out/fuse_tests.txt"
  fi
  for g in ${GS_FUSE_GRIDS:-16384x16384 8192x8192 4096x4096}; do $bin bench fdtd --grid $g --steps ${GS_FUSE_STEPS:-300}; done 2>&1 |
    tee "$out/fuse_bench.txt"
fi
if want fuse2 && [ "$ngpu" -gt 1 ]; then
  log "fuse2: deep-halo cycles as fused passes over $ngpu GPUs: bits against one rank, bench"
  (cd build-gpu && ctest --output-on-failure -R "gpu_fdtd_ranks$") 2>&1 | tail -4 | tee "$out/fuse2.txt"
  for g in ${GS_FUSE2_GRIDS:-16384x16384 8192x8192}; do
    mpirun -np "$ngpu" $bin bench fdtd --grid $g --steps 294 2>&1 | grep -vE "^$"
    GPUSTENCIL_DEBUG=1 GPUSTENCIL_FUSE=7 mpirun -np "$ngpu" $bin bench fdtd --grid $g --steps 294 --halo-depth 7 2>&1 |
      grep -E "^bench|rank|fused" | sed -E 's/debug: \+[0-9.]+ s /debug: /' | sort | uniq | grep -vE "debug: \[rank [1-9]"
  done 2>&1 | tee -a "$out/fuse2.txt"
fi
