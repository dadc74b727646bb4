#!/usr/bin/env python3
"""Plots of `gpustencil bench fdtd|halo --csv FILE` rows, as SVG (no
dependencies beyond Python 3): efficiency of each multi-rank run against the
1-rank time of the same job, grouped by grid, and halo GB/s against the
cudaMemcpyPeer ceiling measured in the same run.

usage: scripts/plot_bench.py bench.csv [OUTDIR]   (writes OUTDIR/scaling.svg, OUTDIR/halo.svg)
"""
import csv
import html
import os
import sys

COLOURS = ["#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2", "#b279a2", "#ff9da6", "#9d755d"]


def bars(title, groups, series, values, ylabel, ymax, lines=()):
    """groups: x labels; series: legend labels; values[(g, s)] -> number or None."""
    w, h, left, bottom, top = 900, 420, 70, 70, 40
    pw, ph = w - left - 200, h - top - bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<text x="{left}" y="22" font-size="15">{html.escape(title)}</text>']
    for k in range(6):  # grid lines
        v = ymax * k / 5
        y = top + ph - ph * v / ymax
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{v:g}</text>')
    for v, label in lines:
        y = top + ph - ph * v / ymax
        out.append(f'<line x1="{left}" y1="{y:.1f}" x2="{left + pw}" y2="{y:.1f}" stroke="#000" stroke-dasharray="4 3"/>')
        out.append(f'<text x="{left + pw + 4}" y="{y + 4:.1f}">{html.escape(label)}</text>')
    gw = pw / max(1, len(groups))
    bw = gw * 0.8 / max(1, len(series))
    for gi, g in enumerate(groups):
        x0 = left + gi * gw + gw * 0.1
        out.append(f'<text x="{x0 + gw * 0.4:.1f}" y="{top + ph + 18}" text-anchor="middle">{html.escape(g)}</text>')
        for si, s in enumerate(series):
            v = values.get((g, s))
            if v is None:
                continue
            bh = ph * min(v, ymax) / ymax
            x = x0 + si * bw
            out.append(f'<rect x="{x:.1f}" y="{top + ph - bh:.1f}" width="{bw * 0.95:.1f}" height="{bh:.1f}" '
                       f'fill="{COLOURS[si % len(COLOURS)]}"><title>{html.escape(s)}: {v:.3g}</title></rect>')
            out.append(f'<text x="{x + bw * 0.47:.1f}" y="{top + ph - bh - 3:.1f}" text-anchor="middle" '
                       f'font-size="9">{v:.3g}</text>')
    for si, s in enumerate(series):
        y = top + 10 + si * 18
        out.append(f'<rect x="{left + pw + 10}" y="{y}" width="12" height="12" fill="{COLOURS[si % len(COLOURS)]}"/>')
        out.append(f'<text x="{left + pw + 28}" y="{y + 10}">{html.escape(s)}</text>')
    out.append(f'<text x="16" y="{top + ph / 2}" transform="rotate(-90 16 {top + ph / 2})" '
               f'text-anchor="middle">{html.escape(ylabel)}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    outdir = sys.argv[2] if len(sys.argv) > 2 else "."
    os.makedirs(outdir, exist_ok=True)
    fdtd, halo = [], []
    # One file may hold both kinds (the header is written once, when the file
    # is new): the columns are known by the first field.
    columns = {
        "fdtd": "kind,scaling,grid_w,grid_h,ranks,decomp,transport,overlap,depth,steps,ms_step_1,ms_step_n,"
                "mcells_1,mcells_n,efficiency,halo_mb_step".split(","),
        "halo": "kind,grid_w,grid_h,ranks,decomp,transport,depth,exchanges,bytes,us_exchange,gbs,peer_same_gbs,"
                "peer_256m_gbs,peer_both_same_gbs,peer_both_256m_gbs".split(","),
    }
    with open(sys.argv[1], newline="") as f:
        for row in csv.reader(f):
            if row and row[0] in columns:
                rec = dict(zip(columns[row[0]], row))
                (fdtd if rec["kind"] == "fdtd" else halo).append(rec)
    written = []
    if fdtd:
        groups, series, values = [], [], {}
        for r in fdtd:
            g = f'{r["grid_w"]}x{r["grid_h"]} {r["ranks"]} ranks'
            s = f'{r["transport"]} R={r["depth"]} overlap {"on" if r["overlap"] == "1" else "off"} ({r["decomp"]})'
            groups += [g] if g not in groups else []
            series += [s] if s not in series else []
            values[(g, s)] = 100 * float(r["efficiency"])
        ymax = max(110, max(values.values()) * 1.05)
        svg = bars("bench fdtd: efficiency against the 1-GPU time of the same job", groups, series, values,
                   "efficiency (%)", ymax, lines=[(100, "100%")])
        path = os.path.join(outdir, "scaling.svg")
        open(path, "w").write(svg)
        written.append(path)
    if halo:
        groups, series, values = [], [], {}
        peer = 0
        for r in halo:
            g = f'{r["decomp"]} R={r["depth"]} ({float(r["bytes"]) / 1e3:.0f} KB)'
            s = r["transport"]
            groups += [g] if g not in groups else []
            series += [s] if s not in series else []
            values[(g, s)] = float(r["gbs"])
            peer = max(peer, float(r["peer_256m_gbs"]))
        lines = [(peer, f"cudaMemcpyPeer {peer:.0f}"), (0.9 * peer, "90%")] if peer else []
        # Rates print with two decimals: a slow run (a sanitized build) can read 0.00 everywhere.
        ymax = max([peer * 1.1] + [v * 1.1 for v in values.values()]) or 1.0
        svg = bars("bench halo: GB/s sent per rank and exchange", groups, series, values, "GB/s", ymax, lines)
        path = os.path.join(outdir, "halo.svg")
        open(path, "w").write(svg)
        written.append(path)
    print("wrote", " ".join(written) if written else "nothing (no rows)")


if __name__ == "__main__":
    main()
