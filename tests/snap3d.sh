#!/usr/bin/env bash
# PNG snapshots of one plane of a 3D model (docs/fdtd.md, "3D models"): --snapshot-every or
# #snapshot_png with --slice (x=, y=, z= metres; i=, j=, k= nodes; default the plane through the
# first source, normal to z) and --slice-field (default the source's component). Each picture is
# a valid PNG of the plane's nodes across and up plus the 31-row label strip (wider only where the
# label's text needs it); bad slice values, fields and a slice without
# snapshots or on a 2D scene are refused with one line and exit 2.
set -u
bin=${GS_BIN:?}; src=${GS_SOURCE_DIR:?}
w=${GS_WORK:?}/snap3d; rm -rf "$w"; mkdir -p "$w"
fail=0
f() { echo "FAIL: $*"; fail=1; }
run() { timeout -k 5 60 "$bin" fdtd --backend cpu "$@"; }
# 200 x 30 x 6 cells (wide enough for the label), a z dipole at node (100, 15, 3).
cat > "$w/wide.in" <<'IN'
#domain: 0.400 0.060 0.012
#dx_dy_dz: 0.002 0.002 0.002
#time_window: 0.8e-9
#pml_cells: 2
#material: 4 0 1 0 half
#waveform: ricker 1 4e9 w
#hertzian_dipole: z 0.200 0.030 0.006 w
#box: 0 0 0 0.100 0.060 0.012 half
#snapshot_png: 50
IN
# png FILE W H [EXACT]: a valid PNG at least W wide (exactly, with EXACT) and H tall, not all white
png() {
  python3 - "$@" <<'PY' 2> "$w/png.err" || f "$1: $(tail -1 "$w/png.err")"
import struct, sys, zlib
path, W, H = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
exact = len(sys.argv) > 4
b = open(path, 'rb').read()
assert b[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
p, idat = 8, b''
while p < len(b):
    n, t = struct.unpack('>I', b[p:p + 4])[0], b[p + 4:p + 8]
    assert zlib.crc32(b[p + 4:p + 8 + n]) == struct.unpack('>I', b[p + 8 + n:p + 12 + n])[0], 'chunk CRC'
    if t == b'IHDR': w, h = struct.unpack('>II', b[p + 8:p + 16])
    if t == b'IDAT': idat += b[p + 8:p + 8 + n]
    p += 12 + n
raw = zlib.decompress(idat)
ok = (w == W if exact else w >= W) and h == H + 31 and len(raw) == h * (3 * w + 1)
if not ok: sys.stderr.write('%dx%d, expected %s%dx%d\n' % (w, h, '' if exact else '>=', W, H + 31))
sys.exit(0 if ok else 1)
PY
}
run "$w/wide.in" -o "$w/a" > "$w/a.log" 2>&1 || f "default slice: $(tail -2 "$w/a.log")"
ls "$w/a/snapshots" > "$w/a.list"
[ "$(tr '\n' ' ' < "$w/a.list")" = "ez_z3_00000050.png ez_z3_00000100.png ez_z3_00000150.png ez_z3_00000200.png " ] ||
  f "default slice: files $(tr '\n' ' ' < "$w/a.list")"
png "$w/a/snapshots/ez_z3_00000100.png" 201 31 exact
run "$w/wide.in" -o "$w/b" --snapshot-every 100 --slice y=0.030 --slice-field hx > "$w/b.log" 2>&1 || f "y slice: $(tail -2 "$w/b.log")"
png "$w/b/snapshots/hx_y15_00000100.png" 201 7 exact
run "$w/wide.in" -o "$w/c" --snapshot-every 200 --slice i=100 --slice-field ey > "$w/c.log" 2>&1 || f "x slice: $(tail -2 "$w/c.log")"
png "$w/c/snapshots/ey_x100_00000200.png" 31 7
run "$w/wide.in" -o "$w/d" --snapshot-every 200 --slice z=0.0109 > "$w/d.log" 2>&1 || f "z=0.0109: $(tail -2 "$w/d.log")"
[ -f "$w/d/snapshots/ez_z5_00000200.png" ] || f "z=0.0109 m is not node 5: $(ls "$w/d/snapshots")"
# Refusals: one line, exit 2.
refuse() { # WHAT NAME ARGS...
  local what=$1 name=$2 rc; shift 2
  run "$@" -o "$w/x" > "$w/o.log" 2> "$w/e.log"; rc=$?
  if [ $rc != 2 ] || [ "$(grep -c . "$w/e.log")" != 1 ] || ! grep -q -- "$name" "$w/e.log"; then
    f "$what: exit $rc, stderr: $(head -c 600 "$w/e.log")"
  fi
}
for s in z=0.013 z=-0.001 k=7 k=-1 i=201 j=1.5 q=3 z= z=abc x=1e999 x=nan "k=3 " k=0x3; do
  refuse "--slice '$s'" "--slice" "$w/wide.in" --slice "$s"
done
refuse "--slice-field Ez" "--slice-field" "$w/wide.in" --slice-field Ez
refuse "--slice-field none" "--slice-field" "$w/wide.in" --slice-field none
sed '/snapshot_png/d' "$w/wide.in" > "$w/nosnap.in"
refuse "--slice without snapshots" "need --snapshot-every" "$w/nosnap.in" --slice k=3
refuse "--slice on a 2D scene" "for 3D models" "$src/inputs/gpr.in" --steps 5 --slice k=0
[ $fail = 0 ] && echo "snap3d: all passed"
exit $fail
