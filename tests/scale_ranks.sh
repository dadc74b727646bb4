#!/usr/bin/env bash
# 1, 2 and 4 ranks produce byte-identical outputs for a mixed set (folders,
# --recursive, several strips), and the run refuses an existing output, then
# --skip-existing and --overwrite behave.
set -u
if [ "${GS_BACKEND:-cpu}" = cuda ] && ! nvidia-smi -L > /dev/null 2>&1; then echo "no GPU: skipped"; exit 77; fi
w=${GS_WORK:?}/scale_ranks; rm -rf "$w"; mkdir -p "$w/in/sub/deeper"
mk=${GS_MKPNG:?}; bin=${GS_BIN:?}; mpi=${GS_MPIEXEC:?}
b=${GS_BACKEND:-cpu}
$mk "$w/in/a.png" 1500 1800 grey 8 seed=1 || exit 1
$mk "$w/in/b.png" 640 480 rgb 8 seed=2 || exit 1
$mk "$w/in/sub/c.png" 1111 3333 grey 16 seed=3 || exit 1
$mk "$w/in/sub/d.png" 99 77 greyalpha 8 seed=4 || exit 1
$mk "$w/in/sub/deeper/e.png" 257 129 palette 8 trns seed=5 || exit 1
$mk "$w/in/sub/deeper/f.png" 31 17 rgba 16 interlace seed=6 || exit 1
for i in $(seq 1 10); do $mk "$w/in/small$i.png" $((i * 37)) $((i * 11)) grey 8 seed=$((i + 10)) || exit 1; done
fail=0
for n in 1 2 4; do
  "$mpi" -np $n --oversubscribe "$bin" scale --backend "$b" -r -d 3 --png-level 4 -o "$w/out$n" "$w/in" > "$w/log$n" 2>&1 \
    || { echo "FAIL: $n ranks: $(cat "$w/log$n")"; fail=1; }
  grep -q "16 done, 0 skipped, 0 failed" "$w/log$n" || { echo "FAIL: $n ranks summary: $(cat "$w/log$n")"; fail=1; }
done
for n in 2 4; do
  diff -r "$w/out1" "$w/out$n" > /dev/null || { echo "FAIL: outputs of 1 and $n ranks differ"; fail=1; }
done
[ -f "$w/out1/sub/deeper/e.png" ] || { echo "FAIL: relative path not kept"; fail=1; }
# Existing outputs: refused before any work (exit 2), skipped, or replaced.
out=$("$bin" scale --backend "$b" -r -d 3 -o "$w/out1" "$w/in" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "exists" <<<"$out" || { echo "FAIL: existing output not refused ($rc): $out"; fail=1; }
rm "$w/out1/sub/c.png"
out=$("$bin" scale --backend "$b" -r -d 3 --png-level 4 --skip-existing -o "$w/out1" "$w/in" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "1 done, 15 skipped" <<<"$out" || { echo "FAIL: --skip-existing ($rc): $out"; fail=1; }
cmp -s "$w/out1/sub/c.png" "$w/out2/sub/c.png" || { echo "FAIL: resumed c.png differs"; fail=1; }
out=$("$bin" scale --backend "$b" -r -d 3 --overwrite -o "$w/out1" "$w/in" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "16 done" <<<"$out" || { echo "FAIL: --overwrite ($rc): $out"; fail=1; }
# --progress draws a progress line on rank 0 even when stderr is not a terminal.
out=$("$bin" scale --backend "$b" -r -d 3 --overwrite --progress -o "$w/out1" "$w/in" 2>&1 >/dev/null); rc=$?
[ $rc = 0 ] && grep -qE "^scale: 16/16 files \(100%\), .* ETA" <<<"$out" || { echo "FAIL: --progress ($rc): $out"; fail=1; }
# An output folder whose parents do not exist yet is created.
out=$("$bin" scale --backend "$b" -d 3 -o "$w/new/nested/dir" "$w/in/a.png" 2>&1); rc=$?
[ $rc = 0 ] && [ -f "$w/new/nested/dir/a.png" ] || { echo "FAIL: nested output folder ($rc): $out"; fail=1; }
# Two inputs mapping to one output are refused before any work.
out=$("$bin" scale --backend "$b" -d 3 -o "$w/dup" "$w/in/a.png" "$w/in/a.png" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "both map to" <<<"$out" && [ ! -e "$w/dup/a.png" ] || { echo "FAIL: collision ($rc): $out"; fail=1; }
# Bad divisor and a missing input: one line, exit 2.
for args in "-d 0" "-d -1" "-d nan" "-d inf" "-d 1e-300"; do
  out=$("$bin" scale --backend "$b" $args -o "$w/x" "$w/in" 2>&1); rc=$?
  [ $rc = 2 ] && [ "$(wc -l <<<"$out")" = 1 ] || { echo "FAIL: '$args' ($rc): $out"; fail=1; }
done
out=$("$bin" scale --backend "$b" -d 2 -o "$w/x" "$w/nope.png" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "nope.png: No such file" <<<"$out" || { echo "FAIL: missing input ($rc): $out"; fail=1; }
echo "scale_ranks: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
