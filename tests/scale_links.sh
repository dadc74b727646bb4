#!/usr/bin/env bash
# scale over inputs that cannot all be read (the reliability issue): a dangling link and a link
# loop named *.png are each one failure in the summary (named once, with the reason) while the
# rest are scaled, exit status 1 (also a dangling link given itself); with --recursive, a link
# back to a folder above (a cycle) is named once and not followed, links to other folders are.
# On 1 and 2 ranks.
set -u
w=${GS_WORK:?}/scale_links; rm -rf "$w"; mkdir -p "$w/in/sub" "$w/in/other"
mk=${GS_MKPNG:?}; bin=${GS_BIN:?}
$mk "$w/in/a.png" 40 30 grey 8 || exit 1
cp "$w/in/a.png" "$w/in/sub/b.png"; cp "$w/in/a.png" "$w/in/other/c.png"
ln -s nowhere.png "$w/in/dangling.png"; ln -s loop.png "$w/in/loop.png"; ln -s nowhere "$w/in/gone"
ln -s .. "$w/in/sub/up"; ln -s ../other "$w/in/sub/side"
fail=0
scale() { # scale WANT_SUMMARY NP OPTIONS...: exit 1, the summary, each failure once
  local want=$1 np=$2; shift 2
  rm -rf "$w/out"
  local launch=("${GS_MPIEXEC:?}" -np "$np")
  [ "$np" = 1 ] && launch=()
  local all
  all=$(timeout 60 "${launch[@]}" "$bin" scale --backend "${GS_BACKEND:-cpu}" -d 2 "$@" -o "$w/out" "$w/in" 2>&1); rc=$?
  [ "$rc" = 1 ] || { echo "FAIL: $np rank(s) $*: exit status $rc, want 1"; fail=1; }
  grep -q "$want" <<<"$all" || { echo "FAIL: $np rank(s) $*: summary: $(grep 'scale:' <<<"$all")"; fail=1; }
  for f in "dangling.png: No such file or directory" "loop.png: Too many levels of symbolic links"; do
    [ "$(grep -c "$w/in/$f" <<<"$all")" = 1 ] || { echo "FAIL: $np rank(s) $*: '$f' not said once"; fail=1; }
  done
  "$GS_MKPNG" --check "$w/out/a.png" || { echo "FAIL: $np rank(s) $*: a.png not scaled"; fail=1; }
  echo "$all" | grep -v '^scale:\|^---\|^$\|Primary job\|non-zero\|mpirun\|job to be\|Process name\|Exit code\|^  ' |
    sed 's/^/  /'
}
scale "1 done, 0 skipped, 2 failed" 1
scale "4 done, 0 skipped, 3 failed" 1 --recursive
[ "$(grep -c . <<<"$(ls -R "$w/out")")" -gt 0 ] && [ -f "$w/out/sub/side/c.png" ] && [ -f "$w/out/other/c.png" ] ||
  { echo "FAIL: --recursive: the other folder through a link not scaled"; fail=1; }
scale "4 done, 0 skipped, 3 failed" 2 --recursive
# a dangling link given itself is one failure too; a name that is not there a usage error (2)
rm -rf "$w/out"
all=$("$bin" scale --backend "${GS_BACKEND:-cpu}" -d 2 -o "$w/out" "$w/in/a.png" "$w/in/dangling.png" 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "1 done, 0 skipped, 1 failed" <<<"$all" || { echo "FAIL: a dangling link given: rc=$rc: $all"; fail=1; }
all=$("$bin" scale --backend "${GS_BACKEND:-cpu}" -d 2 -o "$w/out2" "$w/in/a.png" "$w/in/none.png" 2>&1); rc=$?
[ "$rc" = 2 ] && [ ! -e "$w/out2" ] || { echo "FAIL: a missing input: rc=$rc: $all"; fail=1; }
echo "scale_links: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
