#!/usr/bin/env python3
"""Draws inputs/material_map.png, the geometry of inputs/material_map.in:
grey 0 air, 96 dry sand, 160 wet clay (a wavy layer), 255 metal (a tunnel
lining), 40 air inside the tunnel. One pixel per cell (300 x 150 cells),
top row = highest y. Uses only the standard library."""
import math, struct, sys, zlib

W, H = 300, 150
rows = []
for py in range(H):
    y = H - 1 - py  # cells from the bottom
    row = bytearray()
    for x in range(W):
        g = 0
        surface = 110 + 4 * math.sin(x / 23.0)
        if y < surface:
            g = 96
        clay_top = 55 + 8 * math.sin(x / 31.0 + 1.0)
        if y < clay_top and y > clay_top - 18:
            g = 160
        r = math.hypot(x - 190, y - 75)
        if r < 22:
            g = 255
        if r < 19:
            g = 40
        row.append(g)
    rows.append(bytes(row))
raw = b"".join(b"\x00" + r for r in rows)
def chunk(t, d):
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", W, H, 8, 0, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b"")
open(sys.argv[1] if len(sys.argv) > 1 else "inputs/material_map.png", "wb").write(png)
