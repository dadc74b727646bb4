#!/usr/bin/env python3
"""The SASS instructions of one profiled launch that issue most, and those whose warps run with
the most idle lanes (issue #20's diagnostics): reads the per-instruction CSV of
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


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 12)
