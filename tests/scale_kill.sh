#!/usr/bin/env bash
# A batch killed with SIGKILL leaves no partial file under a final name;
# --skip-existing then finishes the rest, identical to an unbroken run.
set -u
w=${GS_WORK:?}/scale_kill; rm -rf "$w"; mkdir -p "$w/in"
mk=${GS_MKPNG:?}; bin=${GS_BIN:?}; b=${GS_BACKEND:-cpu}
for i in $(seq 1 12); do $mk "$w/in/img$i.png" 2000 1500 grey 8 noise seed=$i || exit 1; done
"$bin" scale --backend "$b" -d 2 --png-level 9 --threads 2 -o "$w/ref" "$w/in" > /dev/null 2>&1 || exit 1
"$bin" scale --backend "$b" -d 2 --png-level 9 --threads 2 -o "$w/out" "$w/in" > /dev/null 2>&1 &
pid=$!
for _ in $(seq 1 200); do  # kill once some but not all outputs exist
  n=$(ls "$w/out" 2>/dev/null | grep -c '^img' || true)
  [ "$n" -ge 3 ] && break
  sleep 0.02
done
kill -9 $pid; wait $pid 2>/dev/null
fail=0
done_before=$(ls "$w/out" | grep -c '^img' || true)
[ "$done_before" -lt 12 ] || echo "note: the run finished before the kill; the test proves less"
for f in "$w"/out/img*.png; do
  [ -e "$f" ] || continue
  "$GS_MKPNG" --check "$f" || { echo "FAIL: partial file under a final name: $f"; fail=1; }
  cmp -s "$f" "$w/ref/$(basename "$f")" || { echo "FAIL: $f differs from the unbroken run"; fail=1; }
done
out=$("$bin" scale --backend "$b" -d 2 --png-level 9 --skip-existing -o "$w/out" "$w/in" 2>&1) || { echo "FAIL: resume: $out"; fail=1; }
grep -q "$((12 - done_before)) done, $done_before skipped" <<<"$out" || { echo "FAIL: resume summary: $out"; fail=1; }
diff -r -x '.*' "$w/ref" "$w/out" > /dev/null || { echo "FAIL: resumed outputs differ"; fail=1; }
echo "scale_kill: killed after $done_before of 12 files: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
