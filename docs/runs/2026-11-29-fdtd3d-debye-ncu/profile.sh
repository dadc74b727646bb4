#!/bin/bash
# where one step of the Debye-soil trace (inputs/bench/gpr_debye.in, 8.1 M cells) spends its time: ncu, one step's kernels
source scripts/gpu_prologue.sh
t0=$(date +%s); log(){ echo "== [$(( $(date +%s)-t0 )) s] $*"; }
{ cmake -S . -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 > $out/cmake.log 2>&1 && cmake --build build-gpu -j16 --target gpustencil > $out/build.log 2>&1; } || { grep -E "error" $out/build.log | head; exit 1; }
log built
sed -e "s/^#time_window:.*/#time_window: 40/" inputs/bench/gpr_debye.in > /tmp/d.in
build-gpu/gpustencil fdtd /tmp/d.in -o /tmp/d0 | tail -2
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu | head -1)
timeout 200 $NCU --launch-skip 100 --launch-count 16 --csv --page raw --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__grid_size,launch__block_size,sm__warps_active.avg.pct_of_peak_sustained_active build-gpu/gpustencil fdtd /tmp/d.in -o /tmp/d1 > $out/ncu.csv 2> $out/ncu.err
python3 - $out/ncu.csv <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = next(i for i, r in enumerate(rows) if r and r[0] == 'ID')
head = rows[h]; units = rows[h + 1]
col = {n: head.index(n) for n in head}
tot = 0
for r in rows[h + 2:]:
    if len(r) < len(head): continue
    name = r[col['Kernel Name']][:60]
    t = float(r[col['gpu__time_duration.sum']].replace(',', ''))
    tot += t
    print(f"{name:60s} {t:9.1f} {units[col['gpu__time_duration.sum']]} dram% {r[col['dram__throughput.avg.pct_of_peak_sustained_elapsed']]:>6s} sm% {r[col['sm__throughput.avg.pct_of_peak_sustained_elapsed']]:>6s} inst {r[col['smsp__inst_executed.sum']]:>12s} rd {r[col['dram__bytes_read.sum']]:>10s} wr {r[col['dram__bytes_write.sum']]:>10s} grid {r[col['launch__grid_size']]:>8s} occ% {r[col['sm__warps_active.avg.pct_of_peak_sustained_active']]}")
print('total', tot)
PY
tail -3 $out/ncu.err
log end
