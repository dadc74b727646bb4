"""Compare gpustencil's gprMax-layout receiver output with a gprMax reference.

Usage:
  cmp.py [--limit DB] [--name NAME] OURS.h5 REF.h5
  cmp.py [--limit DB] [--name NAME] --runs N OURS_PREFIX REF
      N runs (-n N): ours are OURS_PREFIX1.h5 .. OURS_PREFIXN.h5; REF is either a merged file
      (gprMax's outputfiles_merge: rxs/rxK/<comp> of shape (Iterations, N)) or a prefix whose
      REF1.h5 .. REFN.h5 exist.
  cmp.py OURS_merged.h5 REF_merged.h5   two merged B-scans of the same width, trace by trace.

For every run (trace), every receiver of the reference and every component it holds, prints
max|ours - ref| / max|ref| in dB. Receivers are matched by their Name attribute, else by
Position (gprMax sorts them by Name, so file order is not relied on); a merged reference has
neither, so its rxK is compared with our rxK. Fails (exit 1) when a figure is above the limit
(default -60 dB), when a component is zero in the reference but not in ours, when a receiver or
component is missing or extra, when a trace has the wrong length, or when the root attributes
Iterations, nx_ny_nz, dx_dy_dz differ or dt differs by more than 1e-12 (relative).
Components identically zero in both pass. Exit 2: a file is missing or unreadable.
Last lines: `NAME: worst -87.3 dB (rx1 Ez)` and `NAME: PASS ...` or `NAME: FAIL ...`."""
import argparse
import math
import os
import sys

try:
    import h5py
    import numpy as np
except ImportError as e:  # the shell driver checks first; this is for hand use
    sys.exit(f"cmp.py needs numpy and h5py ({e}); on Debian: apt-get install python3-h5py")


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


class Run:
    """One output file (or one column of a merged file): root attributes and receivers."""

    def __init__(self, path, column=None):
        self.path, self.column = path, column
        with h5py.File(path, "r") as f:
            self.attrs = {k: f.attrs[k] for k in f.attrs}
            self.rxs = []  # (group, Name or None, Position or None, {component: float64 array})
            grp = f["rxs"] if "rxs" in f else {}
            for g in sorted(grp, key=lambda s: (len(s), s)):
                rx = grp[g]
                name = text(rx.attrs["Name"]) if "Name" in rx.attrs else None
                pos = np.asarray(rx.attrs["Position"], dtype=np.float64) if "Position" in rx.attrs else None
                comps = {}
                for c in rx:
                    d = rx[c][()]
                    if column is not None:
                        if d.ndim != 2 or column >= d.shape[1]:
                            raise ValueError(f"{path}: rxs/{g}/{c} has shape {d.shape}, no column {column}")
                        d = d[:, column]
                    comps[c] = d.astype(np.float64)
                self.rxs.append((g, name, pos, comps))
            # Transmission lines (tls/tlN: Vinc Iinc Vtotal Itotal) are compared like receivers,
            # named by their group; with --field-peak V against the line's voltage peak, I its current's.
            lines = f["tls"] if "tls" in f and column is None else {}
            self.tl_attrs = {}  # tls/tlN: (Resistance, dl), compared exactly
            for g in sorted(lines, key=lambda s: (len(s), s)):
                tl = lines[g]
                self.tl_attrs[f"tls/{g}"] = tuple(float(tl.attrs[a]) if a in tl.attrs else None
                                                  for a in ("Resistance", "dl"))
                pos = np.asarray(tl.attrs["Position"], dtype=np.float64) if "Position" in tl.attrs else None
                self.rxs.append((f"tls/{g}", f"tls/{g}", pos, {c: tl[c][()].astype(np.float64) for c in tl}))

    def label(self):
        return self.path if self.column is None else f"{self.path}[:, {self.column}]"


def check_attrs(ours, ref, problems, where):
    for a in ("Iterations", "nx_ny_nz", "dx_dy_dz", "dt"):
        if a not in ref.attrs:
            continue
        if a not in ours.attrs:
            problems.append(f"{where}attribute {a} missing (reference {ref.attrs[a]})")
            continue
        o, r = np.asarray(ours.attrs[a]), np.asarray(ref.attrs[a])
        if a == "dt":
            ok = o.shape == r.shape and abs(float(o) - float(r)) <= 1e-12 * abs(float(r))
        else:
            ok = o.shape == r.shape and np.array_equal(o, r)
        if not ok:
            problems.append(f"{where}attribute {a}: ours {o.tolist()}, reference {r.tolist()}")


def match(ours, ref, merged):
    """Pairs (ref rx, our rx or None); also our receivers left unmatched."""
    left = list(ours.rxs)
    pairs = []
    for r in ref.rxs:
        hit = None
        if merged:
            hit = next((o for o in left if o[0] == r[0]), None)
        if hit is None and r[1] is not None:
            hit = next((o for o in left if o[1] == r[1]), None)
        if hit is None and r[2] is not None:
            hit = next((o for o in left if o[2] is not None and o[2].shape == r[2].shape
                        and np.allclose(o[2], r[2], rtol=0, atol=1e-9)), None)
        if hit is not None:
            left.remove(hit)
        pairs.append((r, hit))
    return pairs, left


FIELD_PEAK = False  # --field-peak: divide by the peak of the receiver's field (E, H or I), not the component's


def figure(a, b, peak=None):
    """dB of max|a-b|/max|b|; None when both are identically zero, +inf when only b is."""
    m = np.abs(b).max() if b.size else 0.0
    if peak is not None and m > 0:
        m = peak
    if m == 0:
        return None if (a.size == 0 or np.abs(a).max() == 0) else math.inf
    d = np.abs(a - b).max()
    return -math.inf if d == 0 else 20 * math.log10(d / m)


def compare(pairs_of_runs, limit, name, merged):
    problems, worst, worst_at, n_fig = [], None, "", 0
    multi = len(pairs_of_runs) > 1
    for t, (ours, ref) in enumerate(pairs_of_runs):
        where = f"trace {t + 1} " if multi else ""
        check_attrs(ours, ref, problems, where)
        for g, v in getattr(ref, "tl_attrs", {}).items():
            if getattr(ours, "tl_attrs", {}).get(g) != v:
                problems.append(f"{where}{g}: Resistance, dl {getattr(ours, 'tl_attrs', {}).get(g)}, reference {v}")
        pairs, extra = match(ours, ref, merged)
        for o in extra:
            problems.append(f"{where}extra receiver {o[0]} '{o[1]}' (not in the reference)")
        for r, o in pairs:
            rname = f"{r[0]}" + (f" '{r[1]}'" if r[1] is not None else "")
            if o is None:
                problems.append(f"{where}receiver {rname} missing in ours")
                print(f"  {where}{rname}: MISSING")
                continue
            cells = []
            for c in sorted(r[3]):
                if c not in o[3]:
                    problems.append(f"{where}{rname} {c} missing in ours")
                    cells.append(f"{c} MISSING")
                    continue
                a, b = o[3][c], r[3][c]
                if a.shape != b.shape:
                    problems.append(f"{where}{rname} {c}: length {a.shape} vs reference {b.shape}")
                    cells.append(f"{c} SHAPE {a.shape}!={b.shape}")
                    continue
                peak = None
                if FIELD_PEAK:  # "within -60 dB of its field's peak" (E, H or I of this receiver)
                    peak = max(np.abs(r[3][k]).max() for k in r[3] if k[0] == c[0] and r[3][k].size)
                db = figure(a, b, peak)
                n_fig += 1
                if db is None:
                    cells.append(f"{c} zero")
                    continue
                if db == math.inf:
                    problems.append(f"{where}{rname} {c}: zero in the reference, ours max {np.abs(a).max():.3e}")
                    cells.append(f"{c} REF-ZERO(ours {np.abs(a).max():.2e}) FAIL")
                    continue
                if worst is None or db > worst:
                    worst, worst_at = db, f"{where}{r[0]} {c}"
                bad = db > limit
                if bad:
                    problems.append(f"{where}{rname} {c}: {db:.1f} dB > {limit:g} dB")
                tag = " identical" if db == -math.inf else ""
                cells.append(f"{c} {db:.1f} dB{tag}{' FAIL' if bad else ''}")
            for c in sorted(set(o[3]) - set(r[3])):
                problems.append(f"{where}{rname} {c}: extra component in ours")
                cells.append(f"{c} EXTRA")
            print(f"  {where}{rname}: " + "  ".join(cells))
    w = "n/a (no non-zero reference component)" if worst is None else f"{worst:.1f} dB ({worst_at})"
    print(f"{name}: worst {w}")
    if problems:
        for p in problems[:50]:
            print(f"  problem: {p}")
        if len(problems) > 50:
            print(f"  ... and {len(problems) - 50} more")
        print(f"{name}: FAIL ({len(problems)} problem(s), limit {limit:g} dB)")
        return 1
    print(f"{name}: PASS ({n_fig} comparisons in {len(pairs_of_runs)} run(s), limit {limit:g} dB)")
    return 0


def merged_width(path):
    """Number of traces of a merged file (2-D receiver datasets), else 0."""
    try:
        with h5py.File(path, "r") as f:
            shapes = {f["rxs"][g][c].shape for g in f["rxs"] for c in f["rxs"][g]}
    except (OSError, KeyError):
        return 0
    return shapes.pop()[1] if len(shapes) == 1 and len(next(iter(shapes))) == 2 else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--limit", type=float, default=-60.0, help="dB limit (default -60)")
    ap.add_argument("--name", default=None, help="label of the summary line")
    ap.add_argument("--runs", type=int, default=1, help="number of runs (-n N)")
    ap.add_argument("--field-peak", action="store_true",
                    help="relative to the peak of the receiver's field (E, H or I) rather than of each component")
    ap.add_argument("ours")
    ap.add_argument("ref")
    a = ap.parse_args()
    global FIELD_PEAK
    FIELD_PEAK = a.field_peak
    name = a.name or os.path.basename(a.ref).removesuffix(".h5")
    try:
        merged = False
        if a.runs <= 1 and merged_width(a.ref) and merged_width(a.ours) == merged_width(a.ref):
            merged, n = True, merged_width(a.ref)  # two merged B-scans, trace by trace
            pairs = [(Run(a.ours, column=m), Run(a.ref, column=m)) for m in range(n)]
        elif a.runs <= 1 and merged_width(a.ref):
            raise ValueError(f"{a.ref} is a merged B-scan of {merged_width(a.ref)} traces: "
                             f"give --runs {merged_width(a.ref)} and the prefix of our run files")
        elif a.runs <= 1:
            pairs = [(Run(a.ours), Run(a.ref))]
        else:
            ours = [Run(f"{a.ours}{m}.h5") for m in range(1, a.runs + 1)]
            if a.ref.endswith(".h5") and os.path.isfile(a.ref):
                merged = True
                with h5py.File(a.ref, "r") as f:
                    widths = {f["rxs"][g][c].shape[1:] for g in f["rxs"] for c in f["rxs"][g]}
                if widths != {(a.runs,)}:
                    raise ValueError(f"{a.ref}: merged traces {sorted(widths)}, expected ({a.runs},) for -n {a.runs}")
                refs = [Run(a.ref, column=m) for m in range(a.runs)]
            else:
                refs = [Run(f"{a.ref}{m}.h5") for m in range(1, a.runs + 1)]
            pairs = list(zip(ours, refs))
    except (OSError, KeyError, ValueError) as e:
        print(f"{name}: cannot compare: {e}")
        print(f"{name}: FAIL (missing or unreadable output)")
        return 2
    if merged:
        print(f"  (merged reference: its rxK is compared with our rxK of each run)")
    return compare(pairs, a.limit, name, merged)


if __name__ == "__main__":
    sys.exit(main())
