#!/usr/bin/env bash
# Outputs that cannot be written (the reliability issue): a folder where a checkpoint, a manifest,
# the receivers or a snapshot goes, and a disk that fills (a small tmpfs; root only, else that part
# is skipped) while views, snapshots, checkpoints or receivers are written, on 1 and 2 ranks. Each
# run ends with exit status 1 and one line naming the file and the system's reason (said once
# however many outputs fail after it), on every rank: no signal, no MPI_Abort, no status 3, no
# temporary file left; the receivers' other file (.csv or .h5) is written all the same.
set -u
bin=${GS_BIN:?}
mpiexec=${GS_MPIEXEC:?}
work=${GS_WORK:?}/outputs_unwritable
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0; checks=0
run() { # run NP PATTERN OUTDIR SCENE [options...]: exit 1 and one gpustencil line matching PATTERN
  local np=$1 pat=$2 out=$3 scene=$4; shift 4
  local all err rc lines
  local launch=("$mpiexec" -np "$np")
  [ "$np" = 1 ] && launch=()
  all=$(timeout 60 "${launch[@]}" "$bin" fdtd --backend cpu "$@" "$scene" -o "$out" 2>&1 >/dev/null); rc=$?
  err=$(grep -E '^gpustencil|MPI_ABORT|Signal|signal|fatal' <<<"$all")
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != 1 ] || [ "$lines" != 1 ] || ! grep -qE -- "$pat" <<<"$err" ||
    [ -n "$(find "$out" -name '*.tmp-*' 2>/dev/null)" ]; then
    echo "FAIL: $np rank(s) $scene $* -o $out -> rc=$rc (want 1), $lines lines (want 1):"
    echo "$all" | head -8 | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
printf '#domain: 0.1 0.1 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 40\n#waveform: ricker 1 1e9 w\n' >s2.in
printf '#hertzian_dipole: z 0.05 0.05 0 w\n#rx: 0.06 0.05 0\n#snapshot_png: 10\n' >>s2.in
printf '#geometry_view: 0 0 0 0.1 0.1 0.002 0.002 0.002 0.002 v2 n\n' >>s2.in
printf '#domain: 0.05 0.05 0.05\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 30\n#pml_cells: 2\n' >s3.in
printf '#waveform: ricker 1 1e9 w\n#hertzian_dipole: z 0.02 0.02 0.02 w\n#rx: 0.03 0.02 0.02\n' >>s3.in
printf '#snapshot: 0 0 0 0.05 0.05 0.05 0.002 0.002 0.002 10 snap.h5\n#snapshot_png: 7\n' >>s3.in
# A folder where the file goes.
mkdir -p a/checkpoint.gsck b/checkpoint.manifest c/receivers.csv d/snapshots/ez_00000010.png e/checkpoint.s5.r00001.gsck
run 1 "fdtd: checkpoint: writing a/checkpoint.gsck: Is a directory" a s2.in --checkpoint-every 10
run 2 "fdtd: checkpoint: writing b/checkpoint.manifest: Is a directory" b s2.in --checkpoint-every 10
run 1 "fdtd: writing c/receivers.csv: Is a directory" c s3.in
# ... and the receivers' other file is written all the same, in 3D and 2D
[ -s c/s3.h5 ] || { echo "FAIL: c/s3.h5 not written beside the failed receivers.csv"; fail=$((fail + 1)); }
mkdir -p f/s3.h5 g/s2.h5
run 1 "fdtd: .*f/s3.h5.*Is a directory" f s3.in
run 1 "fdtd: .*g/s2.h5.*Is a directory" g s2.in
for x in f g; do
  checks=$((checks + 1))
  [ -s $x/receivers.csv ] || { echo "FAIL: $x/receivers.csv not written beside the failed .h5"; fail=$((fail + 1)); }
done
run 1 "fdtd: snapshot d/snapshots/ez_00000010.png: .*d/snapshots/ez_00000010.png: Is a directory" d s2.in
run 2 "fdtd: checkpoint: writing e/checkpoint.s5.r00001.gsck: Is a directory" e s3.in --checkpoint-every 5
# A disk that fills: the first output that fails is said, whichever it is.
mkdir -p full
if mount -t tmpfs -o size=8k tmpfs full 2>/dev/null; then
  for c in "8 1 s2.in" "24 1 s2.in" "48 1 s2.in" "64 2 s2.in" "16 1 s3.in" "768 1 s3.in" "1024 2 s3.in"; do
    set -- $c
    rm -rf full/o
    mount -o remount,size="$1"k full || { echo "FAIL: remount"; fail=$((fail + 1)); }
    run "$2" "^gpustencil: fdtd: .*full/o/.*: No space left on device" full/o "$3" --checkpoint-every 5
  done
  umount full
else
  echo "outputs_unwritable: no tmpfs here (not root?): the full-disk runs skipped"
fi
echo "outputs_unwritable: $checks checks, $fail failed"
[ $fail = 0 ]
