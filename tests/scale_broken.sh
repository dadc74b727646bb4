#!/usr/bin/env bash
# Broken inputs among good ones: each is named on stderr with a reason, the
# good ones are done, exit status 1, and no partial or temporary output stays.
set -u
w=${GS_WORK:?}/scale_broken; rm -rf "$w"; mkdir -p "$w/in"
mk=${GS_MKPNG:?}; bin=${GS_BIN:?}
$mk "$w/good.png" 300 200 grey 8 level=6 || exit 1
cp "$w/good.png" "$w/in/good1.png"
$mk "$w/in/good2.png" 50 40 rgb 16 || exit 1
size=$(stat -c %s "$w/good.png")
for cut in 4 20 40 $((size / 2)) $((size - 30)) $((size - 5)); do
  head -c "$cut" "$w/good.png" > "$w/in/trunc_$cut.png"
done
# A flipped byte inside the first IDAT's data (its CRC no longer matches).
python3 - "$w/good.png" "$w/in/flipped.png" <<'PY'
import sys
d = bytearray(open(sys.argv[1], 'rb').read())
i = d.index(b'IDAT') + 40
d[i] ^= 0x5A
open(sys.argv[2], 'wb').write(d)
PY
: > "$w/in/empty.png"
echo "this is not a picture" > "$w/in/text.png"
# A valid header declaring 2147483647 x 2147483647 pixels.
python3 - "$w/in/huge.png" <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
ihdr = struct.pack('>IIBBBBB', 2**31 - 1, 2**31 - 1, 8, 0, 0, 0, 0)
idat = zlib.compress(b'\0' * 100)
open(sys.argv[1], 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr) + chunk(b'IDAT', idat) + chunk(b'IEND', b''))
PY
err=$("$bin" scale --backend "${GS_BACKEND:-cpu}" -d 2 -o "$w/out" "$w/in" 2>&1 >"$w/stdout"); rc=$?
fail=0
[ $rc = 1 ] || { echo "FAIL: exit status $rc, want 1"; fail=1; }
for f in trunc_4 trunc_20 trunc_40 trunc_$((size / 2)) trunc_$((size - 30)) trunc_$((size - 5)) flipped empty text huge; do
  line=$(grep -F "$w/in/$f.png: " <<<"$err")
  [ "$(grep -c . <<<"$line")" = 1 ] || { echo "FAIL: $f.png not named exactly once: '$line'"; fail=1; continue; }
  [ -n "${line#*: }" ] || { echo "FAIL: $f.png without reason"; fail=1; }
  [ -e "$w/out/$f.png" ] && { echo "FAIL: output left for $f.png"; fail=1; }
  echo "  $line"
done
grep -q "empty.png: empty file" <<<"$err" || { echo "FAIL: empty reason"; fail=1; }
grep -q "text.png: not a PNG file" <<<"$err" || { echo "FAIL: text reason"; fail=1; }
grep -q "huge.png: .*exceeds" <<<"$err" || { echo "FAIL: huge reason"; fail=1; }
grep -qi "flipped.png: .*CRC" <<<"$err" || { echo "FAIL: flipped reason"; fail=1; }
for g in good1 good2; do "$GS_MKPNG" --check "$w/out/$g.png" || { echo "FAIL: $g.png not done"; fail=1; }; done
left=$(find "$w/out" -name '.*' -type f | wc -l)
[ "$left" = 0 ] || { echo "FAIL: $left temporary files left"; fail=1; }
grep -q "2 done, 0 skipped, 10 failed" "$w/stdout" || { echo "FAIL: summary: $(cat "$w/stdout")"; fail=1; }
echo "scale_broken: $([ $fail = 0 ] && echo ok || echo FAILED)"
exit $fail
