#!/usr/bin/env bash
# Checkpoints of 3D models split over ranks (docs/fdtd.md "Checkpoints of 3D models"):
# a run on N ranks stopped with --stop-after (checkpoints every few steps on the way) and
# restarted on the same ranks and split gives the checksum line, receivers.csv and MODEL.h5 of
# the unbroken one-rank run byte for byte: 2, 3, 4, 6 and 8 ranks, splits 2x1x1, 3x1x1 (uneven),
# 4x1x1, 1x2x2, 1x1x8, 2x2x2, 2x1x3, 1x1x2, stopped twice, restarted in place and from another folder,
# on small_3d, dist3d/boundary.in (transmission lines, magnetic dipoles, voltage sources on the
# rank boundaries), dist3d/dispersive.in (Debye, Lorentz, Drude poles across them; also without
# its H sources) and gprMax's plane_wave_vector; -n 2
# with checkpoints on the way gives the outputs of the run without them. One set lies in the
# folder at a time (a file per rank and checkpoint.manifest), none after the run completes.
# Refused in one line (exit 2, rank 0 alone prints it, no rank hangs): another rank count or
# split, a one-rank checkpoint on several ranks and the reverse, a per-rank file corrupted,
# truncated, missing or swapped with another rank's, a manifest damaged, cut, of another
# step, scene or a 2D model, a 3D set given to a 2D model. GS_BACKEND picks the backend (cuda:
# skipped without a GPU), GS_MAX_RANKS limits the rank count. Argument: the group (small,
# sources, refusals; default all).
set -u
group=${1:-all}
want() { [ "$group" = all ] || [ "$group" = "$1" ]; }
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}; b=${GS_BACKEND:-cpu}; max=${GS_MAX_RANKS:-8}
if [ "$b" = cuda ]; then nvidia-smi -L > /dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }; fi
w=${GS_WORK:?}/ckpt3d_ranks_${b}_$group; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { # RANKS LOG ARGS...: the fdtd command on RANKS ranks, stdout and stderr into LOG; its exit status
  local n=$1 log=$2; shift 2
  timeout -k 5 120 "$mpi" -np "$n" --oversubscribe "$bin" fdtd --backend "$b" "$@" > "$log" 2>&1
}
ranks_of() { echo $(( ${1%%x*} * $(cut -dx -f2 <<<"$1") * ${1##*x} )); }
same() { # REF DIR WHAT FILES...: DIR.log has REF.log's checksum line; each file byte for byte; no checkpoint left
  local ref=$1 d=$2 what=$3; shift 3
  [ -n "$(grep checksum "$ref.log")" ] || f "$ref: no checksum"
  [ "$(grep checksum "$ref.log")" = "$(grep checksum "$d.log")" ] || f "$what: checksum differs"
  for x in "$@"; do cmp -s "$ref/$x" "$d/$x" || f "$what: $x differs"; done
  ls "$d" | grep -q '^checkpoint' && f "$what: checkpoint files left after the run completed: $(ls "$d" | tr '\n' ' ')"
}
one_set() { # DIR RANKS STEP WHAT: DIR holds exactly the set of RANKS files at STEP and its manifest
  local d=$1 n=$2 s=$3 what=$4
  local want; want=$(for ((r = 0; r < n; ++r)); do printf 'checkpoint.s%d.r%05d.gsck\n' "$s" "$r"; done; echo checkpoint.manifest)
  [ "$(ls "$d" | grep '^checkpoint' | sort)" = "$(sort <<<"$want")" ] || f "$what: checkpoint files $(ls "$d" | tr '\n' ' ')"
  grep -q "^step $s\$" "$d/checkpoint.manifest" 2>/dev/null || f "$what: manifest $(tr '\n' ' ' < "$d/checkpoint.manifest")"
}
# SCENE_NAME FILES DECOMP STOP EVERY ARGS...: stopped after STOP steps (checkpoints every EVERY),
# restarted in place; the one-rank run's outputs ($w/SCENE_NAME-1).
stop_restart() {
  local name=$1 files=$2 d=$3 stop=$4 every=$5; shift 5
  local n; n=$(ranks_of "$d"); [ "$n" -le "$max" ] || return 0
  local o=$w/$name-$d
  run "$n" "$o.stop.log" "$@" --decomp "$d" -o "$o" --stop-after "$stop" --checkpoint-every "$every" \
    || f "$name $d stop: $(tail -3 "$o.stop.log")"
  grep -q "stopped after step $stop of" "$o.stop.log" || f "$name $d: no 'stopped after step $stop' line"
  [ "$(grep -c "stopped after" "$o.stop.log")" = 1 ] || f "$name $d: the stop line printed by more than rank 0"
  one_set "$o" "$n" "$stop" "$name $d stopped"
  run "$n" "$o.log" "$@" --decomp "$d" -o "$o" --restart "$o" || f "$name $d restart: $(tail -3 "$o.log")"
  [ "$(grep -c "restarting at step $stop from" "$o.log")" = 1 ] || f "$name $d: restart line: $(grep restart "$o.log")"
  same "$w/$name-1" "$o" "$name $d: stop $stop, restart" $files
}

small=("$src/tests/data/gprmax/small_3d/small_3d.in" --steps 150)
if want small; then
  run 1 "$w/small-1.log" "${small[@]}" -o "$w/small-1" || f "small one rank: $(tail -3 "$w/small-1.log")"
  stop_restart small "receivers.csv small_3d.h5" 2x1x1 61 25 "${small[@]}"
  stop_restart small "receivers.csv small_3d.h5" 3x1x1 40 40 "${small[@]}" # 41 nodes: 13, 14, 14
  stop_restart small "receivers.csv small_3d.h5" 4x1x1 1 1 "${small[@]}"
  stop_restart small "receivers.csv small_3d.h5" 1x2x2 99 30 "${small[@]}"
  stop_restart small "receivers.csv small_3d.h5" 1x1x8 75 50 "${small[@]}"
  stop_restart small "receivers.csv small_3d.h5" 2x2x2 120 7 "${small[@]}"
  if [ "$max" -ge 4 ]; then # stopped twice: restarted from the folder before, which keeps its set
    o=$w/small-twice
    run 4 "$o-a.log" "${small[@]}" --decomp 2x2x1 -o "$o-a" --stop-after 30 || f "twice a: $(tail -2 "$o-a.log")"
    run 4 "$o-b.log" "${small[@]}" --decomp 2x2x1 -o "$o-b" --restart "$o-a" --stop-after 50 --checkpoint-every 20 \
      || f "twice b: $(tail -2 "$o-b.log")"
    one_set "$o-a" 4 30 "twice: the folder restarted from"
    one_set "$o-b" 4 80 "twice: the second stop"
    cp "$o-a"/checkpoint.s30.r*.gsck "$o-b/" # an older set a kill left behind: not read, removed at the end
    run 4 "$o.log" "${small[@]}" --decomp 2x2x1 -o "$o" --restart "$o-b" || f "twice: $(tail -2 "$o.log")"
    grep -q "restarting at step 80" "$o.log" || f "twice: no 'restarting at step 80'"
    same "$w/small-1" "$o" "small 2x2x1 stopped at 30 and 80" receivers.csv small_3d.h5
  fi
fi

bnd=("$src/tests/data/dist3d/boundary.in")
disp=("$src/tests/data/dist3d/dispersive.in")
if want sources; then
  run 1 "$w/bnd-1.log" "${bnd[@]}" -o "$w/bnd-1" || f "boundary one rank: $(tail -3 "$w/bnd-1.log")"
  stop_restart bnd "receivers.csv boundary.h5" 2x1x1 90 45 "${bnd[@]}"
  stop_restart bnd "receivers.csv boundary.h5" 2x1x3 77 20 "${bnd[@]}"
  stop_restart bnd "receivers.csv boundary.h5" 1x2x2 33 11 "${bnd[@]}"
  stop_restart bnd "receivers.csv boundary.h5" 3x1x1 100 100 "${bnd[@]}"
  run 1 "$w/disp-1.log" "${disp[@]}" -o "$w/disp-1" || f "dispersive one rank: $(tail -3 "$w/disp-1.log")"
  stop_restart disp "receivers.csv dispersive.h5" 1x1x2 50 25 "${disp[@]}"
  stop_restart disp "receivers.csv dispersive.h5" 2x2x2 64 32 "${disp[@]}"
  stop_restart disp "receivers.csv dispersive.h5" 3x1x1 101 50 "${disp[@]}"
  # The poles in the overlapped schedule (no H sources), and plane waves (every rank's 1D grids).
  grep -vE "^#(magnetic_dipole|transmission_line):" "$src/tests/data/dist3d/dispersive.in" > "$w/disp_e.in"
  run 1 "$w/dispe-1.log" "$w/disp_e.in" -o "$w/dispe-1" || f "dispersive_e one rank: $(tail -3 "$w/dispe-1.log")"
  stop_restart dispe "receivers.csv disp_e.h5" 2x1x2 57 19 "$w/disp_e.in"
  pwv=("$src/tests/data/gprmax/plane_wave_vector/plane_wave_vector.in")
  run 1 "$w/pwv-1.log" "${pwv[@]}" -o "$w/pwv-1" || f "plane_wave_vector one rank: $(tail -3 "$w/pwv-1.log")"
  stop_restart pwv "receivers.csv plane_wave_vector.h5" 2x1x1 40 15 "${pwv[@]}"
  # Two runs (-n 2, moved by #src_steps/#rx_steps) with checkpoints on the way: the outputs without them.
  run 1 "$w/bnd2-1.log" "${bnd[@]}" -n 2 -o "$w/bnd2-1" || f "boundary -n 2: $(tail -3 "$w/bnd2-1.log")"
  if [ "$max" -ge 2 ]; then
    run 2 "$w/bnd2.log" "${bnd[@]}" -n 2 --decomp 1x2x1 --checkpoint-every 30 -o "$w/bnd2" || f "bnd2: $(tail -3 "$w/bnd2.log")"
    same "$w/bnd2-1" "$w/bnd2" "boundary -n 2, 1x2x1, checkpoints every 30" receivers_run001.csv receivers_run002.csv \
      boundary1.h5 boundary2.h5
  fi
fi

if want refusals && [ "$max" -ge 2 ]; then
  refuse() { # WHAT PATTERN RANKS ARGS...: exit 2 within 30 s, one line (rank 0's) matching PATTERN
    local what=$1 pat=$2 n=$3; shift 3
    local start rc took
    start=$(date +%s)
    run "$n" "$w/r.log" "$@" -o "$w/x"; rc=$?
    took=$(( $(date +%s) - start ))
    { [ "$rc" = 2 ] && [ "$took" -le 30 ] && grep -qE -- "$pat" "$w/r.log" && [ "$(grep -v "gpustencil: warning" "$w/r.log" | grep -c "gpustencil: ")" = 1 ]; } \
      || f "$what: exit $rc after ${took}s: $(head -c 800 "$w/r.log")"
  }
  k=$w/keep # a set of 2 ranks split 2x1x1 at step 40, and one of 1 rank at step 40
  run 2 "$w/k.log" "${small[@]}" --decomp 2x1x1 -o "$k" --stop-after 40 || f "keep: $(tail -2 "$w/k.log")"
  run 1 "$w/k1.log" "${small[@]}" -o "$k.one" --stop-after 40 || f "keep one: $(tail -2 "$w/k1.log")"
  t() { rm -rf "$w/bad"; cp -r "$k" "$w/bad"; }
  m=$w/bad/checkpoint.manifest r0=$w/bad/checkpoint.s40.r00000.gsck r1=$w/bad/checkpoint.s40.r00001.gsck
  t; refuse "another split" "checkpoint.manifest: written by 2 ranks split 2x1x1; this run has 2 rank.s. split 1x2x1" \
    2 "${small[@]}" --decomp 1x2x1 --restart "$w/bad"
  [ "$max" -ge 4 ] && refuse "another rank count" "written by 2 ranks split 2x1x1; this run has 4 rank.s. split 2x2x1" \
    4 "${small[@]}" --decomp 2x2x1 --restart "$w/bad"
  refuse "a set on one rank" "written by 2 ranks split 2x1x1; this run has 1 rank.s. split 1x1x1" \
    1 "${small[@]}" --restart "$w/bad"
  refuse "one rank's checkpoint on two" "checkpoint.gsck: written by one rank; this run has 2 ranks" \
    2 "${small[@]}" --restart "$k.one"
  t; python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[-9]^=1; open(p,'wb').write(b)" "$r1"
  refuse "rank 1's data byte flipped" "checkpoint.s40.r00001.gsck: corrupt \(CRC" 2 "${small[@]}" --restart "$w/bad"
  t; python3 -c "import sys; p=sys.argv[1]; b=bytearray(open(p,'rb').read()); b[100]^=4; open(p,'wb').write(b)" "$r0"
  refuse "rank 0's header byte flipped" "checkpoint.s40.r00000.gsck: corrupt header" 2 "${small[@]}" --restart "$w/bad"
  t; truncate -s -3 "$r1"
  refuse "rank 1's file truncated" "checkpoint.s40.r00001.gsck: .*bytes" 2 "${small[@]}" --restart "$w/bad"
  t; truncate -s 60 "$r1"
  refuse "rank 1's file cut in its header" "checkpoint.s40.r00001.gsck" 2 "${small[@]}" --restart "$w/bad"
  t; rm "$r1"
  refuse "rank 1's file missing" "checkpoint.s40.r00001.gsck: No such file" 2 "${small[@]}" --restart "$w/bad"
  t; mv "$r0" "$w/r0"; mv "$r1" "$r0"; mv "$w/r0" "$r1"
  refuse "two ranks' files swapped" "checkpoint.s40.r00000.gsck: rank 1's file of a 2x1x1 split; this is rank 0" \
    2 "${small[@]}" --restart "$w/bad"
  t; rm "$m"
  refuse "no manifest" "no checkpoint there" 2 "${small[@]}" --restart "$w/bad"
  t; echo garbage > "$m"
  refuse "manifest garbage" "checkpoint.manifest: not a gpustencil 3D checkpoint manifest" 2 "${small[@]}" --restart "$w/bad"
  t; truncate -s -2 "$m"
  refuse "manifest cut" "checkpoint.manifest: not a gpustencil 3D checkpoint manifest" 2 "${small[@]}" --restart "$w/bad"
  t; sed -i 's/^ranks 2$/ranks 2000000000/' "$m"
  refuse "manifest of 2e9 ranks" "checkpoint.manifest: names 2000000000 ranks" 2 "${small[@]}" --restart "$w/bad"
  t; sed -i 's/^scene .*/scene 0123456789abcdef/' "$m"
  refuse "manifest of another scene" "checkpoint.manifest: made from a different scene" 2 "${small[@]}" --restart "$w/bad"
  t; sed -i 's/^step 40$/step 30/' "$m"
  refuse "manifest of another step" "checkpoint.s30.r00000.gsck: No such file" 2 "${small[@]}" --restart "$w/bad"
  t; sed -i 's/^step 40$/step 30/' "$m"; mv "$r0" "${r0/s40/s30}"; mv "$r1" "${r1/s40/s30}"
  refuse "files of another step" "checkpoint.s30.r00000.gsck: step 40; its set's manifest says 30" \
    2 "${small[@]}" --restart "$w/bad"
  t; refuse "another iteration count" "checkpoint.s40.r00000.gsck: does not match this run" \
    2 "$src/tests/data/gprmax/small_3d/small_3d.in" --steps 160 --restart "$w/bad"
  # 2D and 3D sets are told apart.
  run 2 "$w/two.log" "$src/inputs/gpr.in" --steps 50 --stop-after 10 -o "$w/two" || f "2D set: $(tail -2 "$w/two.log")"
  refuse "a 2D set, a 3D model" "checkpoint.manifest: a checkpoint of a 2D model; this scene is 3D" \
    2 "${small[@]}" --restart "$w/two"
  t; refuse "a 3D set, a 2D model" "checkpoint.manifest: a checkpoint of a 3D model; this scene is 2D" \
    2 "$src/inputs/gpr.in" --steps 50 --restart "$w/bad"
  # The untouched set restarts (the refusals above damaged copies only).
  run 2 "$w/ok.log" "${small[@]}" --decomp 2x1x1 -o "$w/ok" --restart "$k" || f "the kept set: $(tail -2 "$w/ok.log")"
  run 1 "$w/ok-1.log" "${small[@]}" -o "$w/ok-1" || f "one rank: $(tail -2 "$w/ok-1.log")"
  same "$w/ok-1" "$w/ok" "the kept set" receivers.csv small_3d.h5
  one_set "$k" 2 40 "the set restarted from another folder"
fi
echo "ckpt3d_ranks ($b, $group): $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
