#!/usr/bin/env python3
"""The SASS instructions of one profiled launch that issue most, those
whose warps run with the most idle lanes, and those where the warps were sampled most (with their
reasons, and the samples' shares by reason). Reads the per-instruction CSV of
`ncu -i REPORT --page source --csv --print-source sass` (SourceCounters section).
usage: ncu_top_sass.py src_sass.csv [N]"""
import csv
import sys


def main(path, n):
    rows = list(csv.reader(open(path)))
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    hdr, data = rows[head], rows[head + 1:]
    col = {name: hdr.index(name) for name in ("Source", "Instructions Executed", "Thread Instructions Executed")}
    def num(r, name):
        return int((r[col[name]] or "0").replace(",", ""))
    total = sum(num(r, "Instructions Executed") for r in data)
    idle_total = sum(32 * num(r, "Instructions Executed") - num(r, "Thread Instructions Executed") for r in data)
    print(f"{total} warp instructions, {idle_total / max(1, 32 * total):.1%} of their lanes idle")
    for title, key in (("most issued", lambda k: num(data[k], "Instructions Executed")),
                       ("most idle lanes", lambda k: 32 * num(data[k], "Instructions Executed") -
                        num(data[k], "Thread Instructions Executed"))):
        print(f" {title}:")
        for k in sorted(range(len(data)), key=key, reverse=True)[:n]:
            ex, th = num(data[k], "Instructions Executed"), num(data[k], "Thread Instructions Executed")
            print(f"  {k:6d} {data[k][col['Source']].strip()[:48]:48s} {ex:12d} lanes {th / max(1, ex):5.1f}")
    # (each reason has a twin "(Not Issued)" column, a subset of it; "selected" samples issued)
    stalls = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
    if "Warp Stall Sampling (All Samples)" in hdr and stalls:
        at = hdr.index("Warp Stall Sampling (All Samples)")
        samples = [int((r[at] or "0").replace(",", "")) for r in data]
        totals = {h: sum(int((r[hdr.index(h)] or "0").replace(",", "")) for r in data) for h in stalls}
        print(" samples by the warps' state: " + ", ".join(
            f"{h[6:]} {100.0 * v / max(1, sum(samples)):.1f} %" for h, v in sorted(totals.items(), key=lambda x: -x[1])
            if v * 100 >= sum(samples)))
        print(f" most stall samples (of {sum(samples)}), with their two largest reasons:")
        for k in sorted(range(len(data)), key=lambda k: samples[k], reverse=True)[:n]:
            why = sorted(((int((data[k][hdr.index(h)] or "0").replace(",", "")), h) for h in stalls), reverse=True)[:2]
            reasons = ", ".join(f"{h[6:]} {v}" for v, h in why if v)
            print(f"  {k:6d} {data[k][col['Source']].strip()[:48]:48s} {samples[k]:8d}  {reasons}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12)
