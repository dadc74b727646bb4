#!/usr/bin/env bash
# A 3D survey's runs shared out over groups of ranks (--ranks-per-run) give one rank's files
# byte for byte: gprMax's sources_bscan (every source kind, excitation files, sources and
# receivers moved by #src_steps/#rx_steps), -n 3, on 1 rank (also 2 runs side by side); 2 and 3
# ranks with the default groups (one rank a run); 4 ranks in 2 groups of 2 (each run split
# 2x1x1); 2 ranks as one group (the runs one after the other, each split). Every MODELn.h5, receivers_runNNN.csv and
# the checksum line; a line per finished run; a group size that does not divide the ranks,
# --checkpoint-every over several groups and --runs-per-gpu past 16, refused in one line (exit
# 2). The pace line counts each run once, however the runs are shared out. A survey stopped and
# killed, then resumed with --restart DIR -n 3, ends with the unbroken survey's files.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/ranks3_lib.sh" fdtd3d_survey "${1:-all}"
scene=("$src/tests/data/gprmax/sources_bscan/sources_bscan.in" -n 3 --steps 40)
files="sources_bscan1.h5 sources_bscan2.h5 sources_bscan3.h5 receivers_run001.csv receivers_run002.csv receivers_run003.csv"
run one 1 "${scene[@]}"
run side2 1 "${scene[@]}" --runs-per-gpu 2 # two runs side by side, then the third on a kept model
same one side2 $files
farms 3 "$files" "${scene[@]}"
# each group counts its own runs: with 2 groups, group 1 has runs 1 and 3
if [ "$max" -ge 2 ]; then
  grep -Eq '^fdtd: run 3 of 3 done in [0-9.]+ s \([0-9.]+ s with its set-up\); group 1: 2 of its 2 runs, about 0 s left$' \
    "$w/farm2.log" || f "farm2: no progress line for run 3: $(grep 'run 3 of' "$w/farm2.log")"
fi
if [ "$max" -ge 4 ]; then
  run groups2 4 "${scene[@]}" --ranks-per-run 2
  same one groups2 $files
  grep -q "2 ranks a run, decomposition 2x1x1" "$w/groups2.log" || f "groups2: no split line"
fi
run whole2 2 "${scene[@]}" --ranks-per-run 2
same one whole2 $files
# the survey's pace over its runs alone: every run counted once, whatever the groups
for j in one side2 whole2 $([ "$max" -ge 2 ] && echo farm2) $([ "$max" -ge 3 ] && echo farm3) \
  $([ "$max" -ge 4 ] && echo groups2); do
  grep -Eq '^fdtd: survey: 3 run\(s\) in [0-9.]+ s, from the first run.s set-up to the last run.s files: [0-9]+ runs an hour$' \
    "$w/$j.log" || f "$j: no survey pace line for its 3 runs: $(grep 'survey:' "$w/$j.log")"
done
refuse_job odd 2 "does not divide the 2 ranks" "${scene[@]}" --ranks-per-run 3
refuse_job ckpt 2 "need the runs one after the other" "${scene[@]}" --ranks-per-run 1 --checkpoint-every 20
refuse_job side17 1 "runs-per-gpu: 17 is outside \[1, 16\]" "${scene[@]}" --runs-per-gpu 17

# Resume: a survey stopped by --stop-after, then killed (kill -9) at random points, continued
# with --restart DIR -n 3 until it ends: the files of the unbroken survey, byte for byte, and a
# run's files, once marked finished, never written again (same inode and mtime).
ck=("${scene[@]}" --checkpoint-every 8)
"$bin" fdtd --backend "$b" "${ck[@]}" --stop-after 17 -o "$w/resume" > "$w/resume.log" 2>&1 || f "resume: stop"
grep -q "continue with --restart" "$w/resume.log" || f "resume: no stop line"
stamps() { for r in 1 2 3; do [ -f "$w/resume/.survey/run00000$r.done" ] &&
  stat -c "%i %Y %n" "$w/resume/sources_bscan$r.h5" "$w/resume/receivers_run00$r.csv"; done; }
for try in 1 2 3 4 5 6 7 8; do
  before=$(stamps)
  "$bin" fdtd --backend "$b" "${ck[@]}" --restart "$w/resume" -o "$w/resume" > "$w/resume$try.log" 2>&1 &
  pid=$!
  sleep "0.$((RANDOM % 9 + 1))"
  kill -9 "$pid" 2> /dev/null
  wait "$pid"
  now=$(stamps)
  [ "${now:0:${#before}}" = "$before" ] || f "resume: a finished run's files were written again (try $try)"
  [ -f "$w/resume/.survey/run000003.done" ] && break
done
"$bin" fdtd --backend "$b" "${ck[@]}" --restart "$w/resume" -o "$w/resume" > "$w/resume-end.log" 2>&1 ||
  f "resume: last restart: $(tail -2 "$w/resume-end.log")"
for x in $files; do cmp -s "$w/one/$x" "$w/resume/$x" || f "resume: $x differs"; done
[ "$fail" = 0 ] && echo "fdtd3d_survey: all runs identical" || exit 1
