#!/usr/bin/env bash
# Damaged checkpoints are refused cleanly: header bytes flipped (a sample here;
# tests/test_ckpt_header.c flips every one), fields changed with the header's CRC made to hold
# (the step's top byte, a CPML box ending before it starts (across and along), a CPML side, an offset, the ghost
# layers, the receivers, the data length, the array pitch, the step), a truncated file, a FIFO
# in place of the file or the manifest, a manifest claiming 2,000,000,000 ranks or a
# decomposition that does not give its rank count, a missing file, on 1 and 2 ranks. Each must
# end within 30 s with exit status 2, one line on stderr naming the file, and a peak resident
# size below 300 MB; the undamaged checkpoints restart to the bits of an unbroken run. A new
# run removes the stale checkpoint files and temporaries killed runs left in its output folder;
# a completed run (a restart, -n 2) leaves none.
# The edits know the header of format 3 (no header CRC) too, so that the script can be run
# against an older gpustencil (GS_BIN) to see it fail.
# usage: ckpt_corrupt.sh [all]: without `all`, the edited fields are checked on 2 ranks for three
# of them (every one on 1 rank: rank 1's file is read by the same code); `all` (the slow tier,
# ctest ckpt_corrupt_all) checks every field on 2 ranks too.
set -u
every2=0; [ "${1:-}" = all ] && every2=1
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}; mpi=${GS_MPIEXEC:?}
w=${GS_WORK:?}/ckpt_corrupt${1:+_$1}; rm -rf "$w"; mkdir -p "$w"
scene=$src/inputs/gpr.in
fail=0
f() { echo "FAIL: $*"; fail=1; }
fdtd() { # RANKS ARGS...: the fdtd command on RANKS ranks (1: no mpirun), 30 s at most, peak RSS in $w/rss
  local n=$1; shift
  if [ "$n" = 1 ]; then
    timeout -k 5 30 /usr/bin/time -o "$w/rss" -f %M "$bin" fdtd --backend cpu "$scene" --steps 300 "$@"
  else # the largest rank's peak: mpirun's time covers only mpirun
    timeout -k 5 30 "$mpi" -np "$n" --oversubscribe /usr/bin/time -a -o "$w/rss" -f %M "$bin" fdtd --backend cpu \
      "$scene" --steps 300 "$@"
  fi
}
# refuse RANKS DIR WHAT NAME: a restart from DIR on RANKS ranks ends with exit 2 and one line
# on stderr naming NAME (a file of DIR), within 30 s and 300 MB.
refuse() {
  local n=$1 dir=$2 what=$3 name=$4 rc
  rm -f "$w/rss"
  fdtd "$n" --restart "$dir" -o "$w/out" > "$w/o.log" 2> "$w/e.log"; rc=$?
  # mpirun adds its own lines about the exit status; the program's start with gpustencil:
  local lines; lines=$(grep -c . "$w/e.log"); [ "$n" = 1 ] || lines=$(grep -c '^gpustencil' "$w/e.log")
  local rss; rss=$(grep -E '^[0-9]+$' "$w/rss" 2> /dev/null | sort -n | tail -1)
  if [ $rc != 2 ] || [ "$lines" != 1 ] || ! grep -q -- "$name" "$w/e.log" || [ "${rss:-0}" -gt 307200 ]; then
    f "$what ($n rank(s)): exit $rc, ${rss:-?} kB, stderr: $(head -c 600 "$w/e.log")"
  fi
}
# A header edit: edit.py FILE FIELD [INDEX] OP VALUE; fixes the header CRC of format 4.
cat > "$w/edit.py" <<'PY'
import struct, sys, zlib
path, field, op, val = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4], 0)
b = bytearray(open(path, 'rb').read())
v4 = b[:8] == b'GSCKPT04'
# offset and size of each field: format 4 (docs/fdtd.md), format 3 (the struct of old gpustencils)
off4 = dict(step=(24, 8), oi0=(64, 8), g=(60, 4), pitch=(96, 8), nrx=(112, 4), side0=(120, 4), side1=(124, 4),
            box0lo=(136, 8), box0hi=(144, 8), box0o0=(152, 8), box0o1=(160, 8), data_bytes=(264, 8))
off3 = dict(step=(24, 8), oi0=(72, 8), g=(136, 4), pitch=(48, 8), nrx=(88, 4), side0=(144, 4), side1=(148, 4),
            box0lo=(160, 8), box0hi=(168, 8), box0o0=(176, 8), box0o1=(184, 8), data_bytes=(104, 8))
o, n = (off4 if v4 else off3)[field]
fmt = '<q' if n == 8 else '<i'
x = struct.unpack_from(fmt, b, o)[0]
if op == 'xorbyte': b[o + n - 1] ^= val     # the field's top byte
elif op == 'add': x += val
elif op == 'set': x = val
elif op == 'from': x = struct.unpack_from(fmt, b, (off4 if v4 else off3)[sys.argv[5]][0])[0] + val
if op != 'xorbyte': struct.pack_into(fmt, b, o, x)
if v4: struct.pack_into('<I', b, 276, zlib.crc32(bytes(b[:276])))
open(path, 'wb').write(b)
PY
edit() { python3 "$w/edit.py" "$@" || f "edit $*"; }

# The checkpoints: one rank's file after 200 steps, a 2x1 set of two ranks at step 200.
fdtd 1 -o "$w/full" > "$w/full.log" 2>&1 || f "unbroken run: $(tail -2 "$w/full.log")"
fdtd 1 --stop-after 200 --checkpoint-every 100 -o "$w/c1" > "$w/c1.log" 2>&1 || f "1 rank: $(tail -2 "$w/c1.log")"
fdtd 2 --decomp 2x1 --stop-after 200 --checkpoint-every 100 -o "$w/c2" > "$w/c2.log" 2>&1 || f "2 ranks: $(tail -2 "$w/c2.log")"
[ -f "$w/c1/checkpoint.gsck" ] && [ -f "$w/c2/checkpoint.manifest" ] || { f "no checkpoints: $(ls "$w/c1" "$w/c2")"; exit 1; }
good1=$w/c1/checkpoint.gsck good2=$w/c2/checkpoint.s200.r00001.gsck

# The undamaged ones restart to the bits of the unbroken run (copies: a restart in place removes them).
for n in 1 2; do
  rm -rf "$w/ok"; cp -r "$w/c$n" "$w/ok"
  fdtd "$n" --restart "$w/ok" -o "$w/ok" > "$w/ok.log" 2>&1 || f "restart ($n): $(tail -2 "$w/ok.log")"
  [ "$(grep checksum "$w/full.log")" = "$(grep checksum "$w/ok.log")" ] || f "restart ($n): checksum differs"
  ls "$w/ok" | grep -q '^checkpoint' && f "restart ($n): checkpoint files left after the run completed: $(ls "$w/ok")"
done

# (a) Header bytes flipped through the program: every 20th and the last 4 on 1 rank, every 56th
# and the last 2 in rank 1's file on 2 (tests/test_ckpt_header.c flips every one in-process).
hdr=$(python3 -c "import sys; print(280 if open(sys.argv[1],'rb').read(8)==b'GSCKPT04' else 288)" "$good1")
for ((k = 0; k < hdr; ++k)); do
  [ $((k % 20)) = 0 ] || [ $k -ge $((hdr - 4)) ] || continue
  rm -rf "$w/d"; mkdir "$w/d"; cp "$good1" "$w/d/checkpoint.gsck"
  printf "$(printf '\\x%02x' $(( $(od -An -tu1 -j $k -N1 "$good1") ^ 0xff )))" |
    dd of="$w/d/checkpoint.gsck" bs=1 seek=$k conv=notrunc 2> /dev/null
  refuse 1 "$w/d" "header byte $k flipped" checkpoint.gsck
done
for ((k = 0; k < hdr; ++k)); do
  [ $((k % 56)) = 0 ] || [ $k -ge $((hdr - 2)) ] || continue
  rm -rf "$w/d"; cp -r "$w/c2" "$w/d"
  printf "$(printf '\\x%02x' $(( $(od -An -tu1 -j $k -N1 "$good2") ^ 0xff )))" |
    dd of="$w/d/checkpoint.s200.r00001.gsck" bs=1 seek=$k conv=notrunc 2> /dev/null
  refuse 2 "$w/d" "rank 1's header byte $k flipped" checkpoint.s200.r00001.gsck
done

# (b) Fields changed with the header CRC made to hold, on 1 rank and in rank 1's file on 2.
cases=("step xorbyte 0x40" "box0hi from -3 box0lo" "box0o1 from -1 box0o0" "box0o1 from -3 box0o0" "side0 add 2" "side1 set 0" "oi0 add 2" "g set 0" "g set 1000"
       "nrx add 1" "data_bytes add 4" "pitch add 32" "step add 1" "step set -1")
on2=("box0hi from -3 box0lo" "g set 1000" "data_bytes add 4")
for c in "${cases[@]}"; do
  for n in 1 2; do
    if [ $n = 2 ] && [ $every2 = 0 ] && ! printf '%s\n' "${on2[@]}" | grep -qxF -- "$c"; then continue; fi
    rm -rf "$w/d"; cp -r "$w/c$n" "$w/d"
    file=checkpoint.gsck; [ $n = 2 ] && file=checkpoint.s200.r00001.gsck
    # shellcheck disable=SC2086
    edit "$w/d/$file" $c
    refuse "$n" "$w/d" "$c" "$file"
  done
done
# Truncated, a FIFO in place of the file or the manifest.
for n in 1 2; do
  rm -rf "$w/d"; cp -r "$w/c$n" "$w/d"
  file=checkpoint.gsck; [ $n = 2 ] && file=checkpoint.s200.r00001.gsck
  head -c $(( $(stat -c %s "$w/d/$file") - 1000 )) "$w/c$n/$file" > "$w/d/$file"
  refuse "$n" "$w/d" "truncated" "$file"
  rm -f "$w/d/$file"; mkfifo "$w/d/$file"
  refuse "$n" "$w/d" "a FIFO" "$file"
done
rm -rf "$w/d"; cp -r "$w/c2" "$w/d"; rm "$w/d/checkpoint.manifest"; mkfifo "$w/d/checkpoint.manifest"
refuse 2 "$w/d" "a FIFO manifest" checkpoint.manifest
# Manifests: 2,000,000,000 ranks, a decomposition not giving the rank count, a missing file.
manifest() { # RANKS DECOMP
  sed -e "s/^ranks .*/ranks $1/" -e "s/^decomp .*/decomp $2/" "$w/c2/checkpoint.manifest" > "$w/d/checkpoint.manifest"
}
rm -rf "$w/d"; cp -r "$w/c2" "$w/d"
manifest 2000000000 2x1; refuse 2 "$w/d" "2e9 ranks" checkpoint.manifest
manifest 2000000000 40000x50000; refuse 2 "$w/d" "2e9 ranks, 40000x50000" checkpoint.manifest
manifest 3 2x1; refuse 2 "$w/d" "3 ranks, 2x1" checkpoint.manifest
manifest 2 2x1; rm "$w/d/checkpoint.s200.r00001.gsck"
refuse 2 "$w/d" "a missing file" checkpoint.s200.r00001.gsck

# Stale files: a new run into a folder with a killed run's temporaries and an old set removes
# them (they would be mixed up with its own); a completed run leaves no checkpoint file.
rm -rf "$w/st"; cp -r "$w/c2" "$w/st"
cp "$good1" "$w/st/checkpoint.s100.r00000.gsck.tmp-12345"; : > "$w/st/checkpoint.manifest.tmp-12345"
cp "$good1" "$w/st/checkpoint.gsck.tmp-999"; cp "$good2" "$w/st/checkpoint.s50.r00003.gsck"
fdtd 1 --stop-after 100 --checkpoint-every 100 -o "$w/st" > "$w/st.log" 2>&1 || f "stale: $(tail -2 "$w/st.log")"
[ "$(ls "$w/st" | grep '^checkpoint' | tr '\n' ' ')" = "checkpoint.gsck " ] || f "stale files left by a new run: $(ls "$w/st")"
cp "$good1" "$w/st/checkpoint.gsck.tmp-999"; cp "$good2" "$w/st/checkpoint.s50.r00003.gsck"
"$mpi" -np 2 --oversubscribe "$bin" fdtd --backend cpu "$scene" --steps 300 --restart "$w/st" -o "$w/st" > "$w/st2.log" 2>&1 ||
  f "stale restart: $(tail -2 "$w/st2.log")"
[ "$(grep checksum "$w/full.log")" = "$(grep checksum "$w/st2.log")" ] || f "stale restart: checksum differs"
ls "$w/st" | grep -q '^checkpoint' && f "checkpoint files left after a completed restart: $(ls "$w/st")"
fdtd 1 -n 2 --checkpoint-every 100 -o "$w/n2" > "$w/n2.log" 2>&1 || f "-n 2: $(tail -2 "$w/n2.log")"
ls "$w/n2" | grep -q '^checkpoint' && f "checkpoint files left after -n 2: $(ls "$w/n2")"
[ $fail = 0 ] && echo "ckpt_corrupt: all damaged checkpoints refused"
exit $fail
