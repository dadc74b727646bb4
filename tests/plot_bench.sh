#!/usr/bin/env bash
# bench fdtd / bench halo --csv on 2 ranks (CPU backend), then
# scripts/plot_bench.py draws both plots from the rows.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}
w=${GS_WORK:?}/plot_bench; rm -rf "$w"; mkdir -p "$w"
fail=0
"$mpi" -np 2 --oversubscribe "$bin" bench fdtd --backend cpu --grid 256x128 --steps 3 --csv "$w/b.csv" > /dev/null 2>&1 || fail=1
"$mpi" -np 2 --oversubscribe "$bin" bench fdtd --backend cpu --grid 256x128 --steps 3 --halo-depth 2 --no-overlap --csv "$w/b.csv" > /dev/null 2>&1 || fail=1
"$mpi" -np 2 --oversubscribe "$bin" bench halo --backend cpu --grid 256x128 --reps 3 --csv "$w/b.csv" > /dev/null 2>&1 || fail=1
[ "$(grep -c '^fdtd,strong,256,128,2,' "$w/b.csv")" = 2 ] && [ "$(grep -c '^halo,256,128,2,' "$w/b.csv")" = 1 ] || { echo "CSV rows: $(cat "$w/b.csv")"; fail=1; }
python3 "$src/scripts/plot_bench.py" "$w/b.csv" "$w" || fail=1
for f in scaling halo; do
  grep -q "<svg" "$w/$f.svg" 2> /dev/null && grep -q "<rect" "$w/$f.svg" || { echo "no plot $f.svg"; fail=1; }
done
grep -q "mpi-host R=2 overlap off" "$w/scaling.svg" || { echo "scaling.svg lacks a series"; fail=1; }
echo "plot_bench: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
