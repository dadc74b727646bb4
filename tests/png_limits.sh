#!/usr/bin/env bash
# PNG inputs built to exhaust memory or block: chunk bombs (tEXt, zTXt and
# iTXt chunks declaring about 2 GiB in a 44-byte file), truncated interlaced images (whose row
# pointers leaked) and a FIFO named .png. Each is refused with one line naming it, the
# good image beside them is done (exit 1), the run stays under 300 MB of resident memory, and the
# same bombs through #material_map give exit 2 and one line.
set -u
w=${GS_WORK:?}/png_limits; rm -rf "$w"; mkdir -p "$w/in"
mk=${GS_MKPNG:?}; bin=${GS_BIN:?}
fail=0
check() { if ! eval "$1"; then echo "FAIL: $2"; fail=$((fail + 1)); fi; }
$mk "$w/in/good.png" 64 48 grey 8 || exit 1
python3 - "$w/in" <<'PY'
import struct, sys, zlib
def chunk(t, d, length=None):
    n = len(d) if length is None else length
    return struct.pack('>I', n) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
sig = b'\x89PNG\r\n\x1a\n'
ihdr = chunk(b'IHDR', struct.pack('>IIBBBBB', 64, 48, 8, 0, 0, 0, 0))
for kind in (b'tEXt', b'zTXt', b'iTXt'):  # 8 + 25 + 12 bytes: a chunk claiming 2^31 - 1 bytes, then nothing
    open(f'{sys.argv[1]}/bomb-{kind.decode()}.png', 'wb').write((sig + ihdr + chunk(kind, b'', 0x7fffffff)[:12])[:44])
# Interlaced 2000 x 2000 RGBA 16-bit images cut half way through their data: libpng fails inside
# png_read_image; 40 of them leaked 327 MB of row pointers before.
rows = b''.join(b'\0' + bytes(2000 * 8) for _ in range(2000))
ihdr7 = chunk(b'IHDR', struct.pack('>IIBBBBB', 2000, 2000, 16, 6, 0, 0, 1))
data = zlib.compress(rows * 2, 1)
whole = sig + ihdr7 + chunk(b'IDAT', data) + chunk(b'IEND', b'')
for i in range(40):
    open(f'{sys.argv[1]}/cut-{i:02d}.png', 'wb').write(whole[:len(whole) // 2 + i])
PY
mkfifo "$w/in/fifo.png"
out=$( (/usr/bin/time -f 'peak %M KB' timeout 120 "$bin" scale --backend cpu --threads 2 -d 2 -o "$w/out" "$w/in" 2>&1); echo "rc=$?")
echo "$out" | grep -E 'peak|rc=|scale:' | sed 's/^/    /'
check '[[ "$out" == *"rc=1"* ]]' "scale exit status 1 (some inputs failed): $(echo "$out" | tail -1)"
check '[ -f "$w/out/good.png" ]' "the good image was done"
for f in bomb-tEXt bomb-zTXt bomb-iTXt cut-00 cut-39; do
  check '[ "$(grep -c "$f.png: " <<<"$out")" = 1 ]' "$f.png named once with a reason"
done
check 'grep -q "fifo.png: a FIFO, not a regular file" <<<"$out"' "the FIFO refused without blocking"
peak=$(sed -n 's/.*peak \([0-9]*\) KB.*/\1/p' <<<"$out")
check '[ -n "$peak" ] && [ "$peak" -lt 307200 ]' "peak resident memory ${peak:-?} KB under 300 MB"
for f in bomb-tEXt.png bomb-iTXt.png fifo.png; do
  printf '#domain: 0.2 0.2 0.002\n#dx_dy_dz: 0.002 0.002 0.002\n#time_window: 10\n#material_map: in/%s 0 0 0 pec\n' "$f" \
    > "$w/map-$f.in"
  err=$(timeout 60 /usr/bin/time -f 'peak %M KB' "$bin" fdtd --backend cpu "$w/map-$f.in" -o "$w/mapout" 2>&1 >/dev/null)
  rc=$?
  kb=$(sed -n 's/.*peak \([0-9]*\) KB.*/\1/p' <<<"$err")
  check '[ $rc = 2 ] && [ "$(grep -vc "^peak\|^Command exited" <<<"$err")" = 1 ] && grep -q "material_map: .*$f" <<<"$err" && [ "$kb" -lt 307200 ]' \
    "#material_map $f: exit 2, one line, under 300 MB (rc=$rc, ${kb:-?} KB: $(head -1 <<<"$err"))"
done
echo "png_limits: $fail failed"
[ $fail = 0 ]
