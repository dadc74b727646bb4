#!/usr/bin/env python3
"""Session 15: the 18 cuts measured on one H200 (tiles_cuts_all.txt; us a step, bench fdtd, 4000
steps, 10-cell CPML) and the cost kernels/fdtd_run.cu's plan gives each (its slowest tile): the
free box's rounds of 32 x 32 threads + (2 x-slab + 6 y-slab frame nodes) / 1024. Cut of an axis:
(tiles, first width, middle width), the last tile the rest. Run: python3 cut_times.py"""
def ceil(a, b): return -(-a // b)
DATA = [((2001, 1001), (16, 126, 126), (8, 126, 126), 17.0), ((2001, 1001), (22, 43, 96), (6, 167, 167), 12.85),
        ((2001, 1001), (11, 182, 182), (12, 43, 92), 11.65), ((2001, 1001), (18, 75, 116), (7, 139, 145), 15.6),
        ((2001, 1001), (13, 139, 157), (10, 75, 107), 14.1), ((2001, 1001), (26, 43, 80), (5, 201, 201), 13.6),
        ((2001, 1001), (10, 201, 201), (13, 43, 84), 11.5), ((1001, 1001), (8, 126, 126), (16, 63, 63), 11.1),
        ((1001, 1001), (11, 43, 102), (12, 43, 92), 9.7), ((1001, 1001), (12, 43, 92), (11, 43, 102), 8.8),
        ((1001, 1001), (10, 75, 107), (13, 43, 84), 9.2), ((1001, 1001), (13, 43, 84), (10, 75, 107), 8.7),
        ((1001, 1001), (11, 75, 95), (12, 43, 92), 8.0), ((601, 301), (13, 47, 47), (10, 31, 31), 6.4),
        ((601, 301), (12, 43, 52), (11, 28, 28), 6.1), ((601, 301), (12, 43, 52), (10, 31, 31), 6.1),
        ((601, 301), (22, 28, 28), (6, 43, 54), 6.3), ((601, 301), (20, 31, 31), (6, 43, 54), 6.4)]
SLAB = 11  # the free box starts 11 nodes in and ends 11 before the end (10-cell CPML)
def tiles(cut, X):
    n, first, mid = cut
    s = 0
    for b in range(n):
        w = X - s if b == n - 1 else first if b == 0 else mid
        lo, hi = max(s, SLAB), min(s + w, X - SLAB)
        yield w, max(0, hi - lo)
        s += w
def cost(cx, cy, X, Y):
    worst = 0
    for w, fw in set(tiles(cx, X)):
        for h, fh in set(tiles(cy, Y)):
            f, g = (fw, fh) if fw and fh else (0, 0)
            worst = max(worst, ceil(f, 32) * ceil(g, 32) + (2 * (w - f) * h + 6 * f * (h - g)) / 1024)
    return worst
for (X, Y), cx, cy, t in DATA:
    tall = cx[0] > 2 and cy[0] > 2 and cx[2] < cy[2]
    print(f"{X - 1}x{Y - 1} x {cx} y {cy}: {t:5.2f} us, cost {cost(cx, cy, X, Y):5.1f}{' (tall: not planned)' if tall else ''}")
