#!/usr/bin/env bash
# Jobs bounded by what they do (the reliability issue; docs/usage.md, "Limits on a job's length"):
# a #time_window of 2^40 steps with no source (the fields stay zero), or one whose steps would take
# longer than 7 days at the fastest this backend could go, and bench options that would run for
# more than an hour, are refused at once: exit status 2, one line, no output folder. --stop-after
# bounds a job's steps (a long model goes on with --restart).
set -u
bin=${GS_BIN:?}
work=${GS_WORK:?}/job_length
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0; checks=0
refused() { # refused PATTERN -- command...: exit 2, one stderr line matching PATTERN, within 20 s, no folder o
  local pat=$1; shift 2
  local err rc lines
  err=$(timeout 20 "$@" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != 2 ] || [ "$lines" != 1 ] || ! grep -qE -- "$pat" <<<"$err" || [ -e o ]; then
    echo "FAIL: '$*' -> rc=$rc (want 2), $lines stderr lines (want 1):"; echo "$err" | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
cpu=(--backend cpu)
h2='#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n'
h3='#domain: 0.02 0.02 0.02\n#dx_dy_dz: 0.001 0.001 0.001\n#pml_cells: 2\n'
src2='#waveform: ricker 1 1e9 w\n#hertzian_dipole: z 0.05 0.05 0 w\n'
printf "$h2#time_window: 1099511627776\n" >idle2.in
refused "idle2.in: 1099511627776 steps with no source \(the fields stay zero\): at most 1000000" -- \
  "$bin" fdtd "${cpu[@]}" idle2.in -o o
printf "$h3#time_window: 1099511627776\n#rx: 0.01 0.01 0.01\n" >idle3.in
refused "idle3.in: 1099511627776 steps with no source" -- "$bin" fdtd "${cpu[@]}" idle3.in -o o
printf "$h2#time_window: 1099511627776\n$src2" >long2.in
refused "long2.in: 1099511627776 steps of 2500 cells on 1 rank\(s\) would take at least [0-9.e+]+ days \(the limit is 7 days\)" -- \
  "$bin" fdtd "${cpu[@]}" long2.in -o o
printf "$h2#time_window: 20\n$src2" >short.in
refused "short.in: [0-9]+ steps of 2500 cells on 1 rank\(s\) would take at least" -- \
  "$bin" fdtd "${cpu[@]}" --steps 1000000000000 short.in -o o
refused "short.in: [0-9]+ steps of 2500 cells" -- "$bin" fdtd "${cpu[@]}" -n 100000 --steps 100000000 short.in -o o
# --stop-after: this job's steps only (the model goes on with --restart)
out=$(timeout 60 "$bin" fdtd "${cpu[@]}" --stop-after 50 idle2.in -o o 2>&1); rc=$?
checks=$((checks + 1))
[ "$rc" = 0 ] && grep -q "stopped after step 50 of 1099511627776" <<<"$out" ||
  { echo "FAIL: --stop-after 50 of 2^40 steps -> rc=$rc: $out" | head -5; fail=$((fail + 1)); }
rm -rf o
# (sizes within memory, steps beyond an hour on up to some thousands of cores; bench scale: 24)
refused "bench fdtd: these options would take at least .* \(the limit is 1 h\)" -- \
  "$bin" bench fdtd "${cpu[@]}" --grid 4096x4096 --steps 100000000
refused "bench fdtd: these options would take at least" -- "$bin" bench fdtd "${cpu[@]}" --grid 100x100x100 --steps 1000000000
refused "bench scale: these options would take at least" -- "$bin" bench scale "${cpu[@]}" --size 1024 --reps 100000
echo "job_length: $checks checks, $fail failed"
[ $fail = 0 ]
