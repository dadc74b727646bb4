#!/usr/bin/env python3
"""Where the warps of a persistent FDTD kernel wait: reads the per-instruction CSV of
`ncu -i REPORT --page source --csv --print-source sass` and prints the share of the stall samples
spent at each block barrier (BAR.SYNC) and in the grid barrier's spin (CCTL.IVALL), and the busy
samples between them. A barrier's waits are sampled at the instruction after the BAR (the warp's
PC has moved on), so the samples with stall_barrier are charged to the barrier before them.
usage: ncu_barrier_share.py src_sass.csv"""
import csv
import sys


def main(path):
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    hdr, data = rows[head], rows[head + 1:]
    col = {name: hdr.index(name) for name in ("Source", "Warp Stall Sampling (All Samples)", "stall_barrier")}
    total = sum(int(r[col["Warp Stall Sampling (All Samples)"]] or 0) for r in data)
    waits, busy, last_bar = {}, {}, None
    for k, r in enumerate(data):
        src = r[col["Source"]].strip()
        samples = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
        bar = int(r[col["stall_barrier"]] or 0)
        if bar and last_bar is not None:
            waits[last_bar] = waits.get(last_bar, 0) + bar
        key = last_bar if last_bar is not None else -1
        busy[key] = busy.get(key, 0) + samples - bar
        if "BAR.SYNC" in src or "CCTL.IVALL" in src:
            last_bar = k
    print(f"{total} samples; waits at each barrier (instruction index: share of all samples), busy after it:")
    for k in sorted(set(waits) | set(busy)):
        w, b = waits.get(k, 0), busy.get(k, 0)
        if (w + b) * 100 >= total:
            what = data[k][col["Source"]].strip()[:24] if k >= 0 else "kernel start"
            print(f"  {k:6d} {what:24s} wait {100.0 * w / total:5.1f} %   busy after {100.0 * b / total:5.1f} %")


if __name__ == "__main__":
    main(sys.argv[1])
