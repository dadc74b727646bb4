#!/usr/bin/env bash
# A 2D survey's runs shared out over groups of ranks (--ranks-per-run, or one rank a run by
# default) give one rank's files byte for byte: gprMax's 8-trace TMx B-scan with two stepped
# receivers, -n 6 on 1, 2 and 3 ranks, groups of 1 and 2, and the runs split over all the ranks;
# the B-scan picture assembled from every group's runs; a refusal of groups with checkpoints.
# usage: fdtd2d_survey.sh (GS_BIN, GS_SOURCE_DIR, GS_MPIEXEC, GS_WORK; GS_BACKEND cpu or cuda)
set -u
source "$(dirname "${BASH_SOURCE[0]}")/ranks3_lib.sh" fdtd2d_survey "${1:-all}"
scene=("$src/tests/data/gprmax/bscan_tmx/bscan_tmx.in" -n 6)
files="bscan.png"
for r in 1 2 3 4 5 6; do files="$files bscan_tmx$r.h5 receivers_run00$r.csv"; done
run one 1 "${scene[@]}"
farms 6 "$files" "${scene[@]}"
[ "$max" -lt 2 ] || [ "$(grep -c '^checksum' "$w/farm2.log")" = 1 ] || f "farm2: not one checksum line"
if [ "$max" -ge 4 ]; then
  run groups2 4 "${scene[@]}" --ranks-per-run 2
  same one groups2 $files
  grep -q "shared out over 2 groups of 2 rank" "$w/groups2.log" || f "groups2: no groups line"
fi
run whole2 2 "${scene[@]}" --ranks-per-run 2
same one whole2 $files
grep -q "shared out" "$w/whole2.log" && f "whole2: the runs were shared out"
refuse_job odd 2 "does not divide the 2 ranks" "${scene[@]}" --ranks-per-run 3
refuse_job ckpt 2 "need the runs one after the other" "${scene[@]}" --ranks-per-run 1 --checkpoint-every 20

# Resume: a survey stopped by --stop-after again and again (and killed with -9 at random points),
# continued with --restart DIR -n 6 until it ends: the files of the unbroken survey, bscan.png
# included (its columns of finished runs kept in their markers), byte for byte; a run's files,
# once marked finished, never written again (same inode and mtime).
ck=("${scene[@]}" --checkpoint-every 100)
stamps() { for r in 1 2 3 4 5 6; do [ -f "$w/resume/.survey/run00000$r.done" ] &&
  stat -c "%i %Y %n" "$w/resume/bscan_tmx$r.h5" "$w/resume/receivers_run00$r.csv"; done; }
"$bin" fdtd --backend "$b" "${ck[@]}" --stop-after 450 -o "$w/resume" > "$w/resume.log" 2>&1 || f "resume: stop"
grep -q "of a survey's run; continue with --restart $w/resume and the same -n" "$w/resume.log" ||
  f "resume: no stop line: $(tail -2 "$w/resume.log")"
for try in $(seq 1 30); do
  before=$(stamps)
  if [ $((try % 3)) = 0 ]; then
    "$bin" fdtd --backend "$b" "${ck[@]}" --restart "$w/resume" -o "$w/resume" > "$w/resume$try.log" 2>&1 &
    pid=$!
    sleep "0.0$((RANDOM % 9 + 1))"
    kill -9 "$pid" 2> /dev/null
    wait "$pid"
  else
    "$bin" fdtd --backend "$b" "${ck[@]}" --stop-after 450 --restart "$w/resume" -o "$w/resume" \
      > "$w/resume$try.log" 2>&1 || f "resume: try $try: $(tail -2 "$w/resume$try.log")"
  fi
  now=$(stamps)
  [ "${now:0:${#before}}" = "$before" ] || f "resume: a finished run's files were written again (try $try)"
  [ -f "$w/resume/.survey/run000006.done" ] && break
done
grep -q "run 1 of 6 finished before: its files are kept" "$w"/resume[0-9]*.log || f "resume: no kept line"
"$bin" fdtd --backend "$b" "${ck[@]}" --restart "$w/resume" -o "$w/resume" > "$w/resume-end.log" 2>&1 ||
  f "resume: last restart: $(tail -2 "$w/resume-end.log")"
for x in $files; do cmp -s "$w/one/$x" "$w/resume/$x" || f "resume: $x differs"; done

# A resume from the folder of another input (a receiver moved): refused at the first marker,
# exit 2, one line naming it; nothing there written.
sed 's/^#rx: 0 0.040 /#rx: 0 0.042 /' "${scene[0]}" > "$w/other.in"
cmp -s "$w/other.in" "${scene[0]}" && f "other input: the edit changed nothing"
before=$(ls -l --time-style=+%s.%N "$w/resume" | md5sum)
"$bin" fdtd --backend "$b" "$w/other.in" -n 6 --restart "$w/resume" -o "$w/resume" > "$w/other.log" 2> "$w/other.err"
rc=$?
[ $rc = 2 ] && [ "$(grep -c . "$w/other.err")" = 1 ] && grep -q "run000001.done: not the marker of a finished run of" \
  "$w/other.err" || f "other input: exit $rc, stderr: $(head -c 400 "$w/other.err")"
[ "$(ls -l --time-style=+%s.%N "$w/resume" | md5sum)" = "$before" ] || f "other input: files in the folder changed"
# A finished run whose receiver file was removed since runs again (the others' files untouched),
# and the folder ends as the unbroken survey's.
rm "$w/resume/receivers_run003.csv"
keep=$(stat -c "%i %Y %n" "$w/resume/bscan_tmx2.h5" "$w/resume/bscan_tmx4.h5")
"$bin" fdtd --backend "$b" "${scene[@]}" --restart "$w/resume" -o "$w/resume" > "$w/gone.log" 2>&1 ||
  f "removed file: $(tail -2 "$w/gone.log")"
grep -q "run 3 of 6 is marked finished but its receiver files are gone: it runs again" "$w/gone.log" ||
  f "removed file: no line saying run 3 runs again"
[ "$(stat -c "%i %Y %n" "$w/resume/bscan_tmx2.h5" "$w/resume/bscan_tmx4.h5")" = "$keep" ] ||
  f "removed file: other runs' files written again"
for x in $files; do cmp -s "$w/one/$x" "$w/resume/$x" || f "removed file: $x differs"; done
[ $fail = 0 ] && echo "fdtd2d_survey: ok"
exit $fail
