"""Compare two HDF5 files (gprMax outputs: geometry views, geometry objects files, snapshots)
dataset by dataset and attribute by attribute: names, shapes, types and values.
Usage: h5same.py [--float-db LIMIT] [--int-width] [--int-diff N] [--quiet] OURS REF
Integer and string data must be identical; float data too, unless --float-db LIMIT is given: then
each float dataset's 20 log10(max|ours - ref| / max|ref|) is printed and must be at most LIMIT.
With --int-diff N each integer dataset's count of differing values is printed and may be up to N
(material IDs of a geometry view: a cell may change bin at a float32 rounding edge).
Exit 0 when they agree, 1 when they differ, 2 when a file cannot be read."""
import argparse
import sys

import numpy as np

try:
    import h5py
except ImportError:
    print("h5same.py: needs h5py (python3-h5py)")
    sys.exit(2)


def norm(v):
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.ndarray) and v.dtype.kind in "OS":
        return [x.decode() if isinstance(x, bytes) else x for x in v.ravel()]
    return v


def items(f):
    out = {}
    f.visititems(lambda n, o: out.__setitem__(n, o))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--float-db", type=float, default=None)
    ap.add_argument("--quiet", action="store_true")
    ap.add_argument("--int-width", action="store_true",
                    help="integers of different widths agree when their values do (gprMax's published "
                         "references store nx_ny_nz as int32, the pinned gprMax as int64)")
    ap.add_argument("--int-diff", type=int, default=None,
                    help="integer datasets may differ in up to N values (each count printed)")
    ap.add_argument("ours")
    ap.add_argument("ref")
    a = ap.parse_args()
    try:
        fo, fr = h5py.File(a.ours, "r"), h5py.File(a.ref, "r")
    except OSError as e:
        print(f"h5same.py: {e}")
        return 2
    bad = []
    io, ir = items(fo), items(fr)
    io[""], ir[""] = fo, fr
    for name in sorted(set(io) | set(ir)):
        if name not in io or name not in ir:
            bad.append(f"{name or '/'}: only in {'ours' if name in io else 'the reference'}")
            continue
        o, r = io[name], ir[name]
        for k in sorted(set(o.attrs) | set(r.attrs)):
            if k not in o.attrs or k not in r.attrs:
                bad.append(f"{name or '/'} @{k}: only in {'ours' if k in o.attrs else 'the reference'}")
            elif np.asarray(o.attrs[k]).dtype.kind != np.asarray(r.attrs[k]).dtype.kind or \
                    not np.array_equal(np.asarray(norm(o.attrs[k])), np.asarray(norm(r.attrs[k]))):
                bad.append(f"{name or '/'} @{k}: {o.attrs[k]!r} != {r.attrs[k]!r}")
        if not isinstance(r, h5py.Dataset):
            continue
        same_kind = a.int_width and o.dtype.kind in "iu" and r.dtype.kind in "iu"
        if o.shape != r.shape or (o.dtype != r.dtype and not same_kind):
            bad.append(f"{name}: {o.shape} {o.dtype} != {r.shape} {r.dtype}")
            continue
        vo, vr = o[()], r[()]
        if r.dtype.kind == "f" and a.float_db is not None:
            peak = np.max(np.abs(vr)) if vr.size else 0
            diff = np.max(np.abs(vo.astype(np.float64) - vr)) if vr.size else 0
            db = -np.inf if diff == 0 else (np.inf if peak == 0 else 20 * np.log10(diff / peak))
            print(f"{name}: {db:.1f} dB (peak {peak:.3g})")
            if db > a.float_db:
                bad.append(f"{name}: {db:.1f} dB above {a.float_db} dB")
        elif r.dtype.kind in "iu" and a.int_diff is not None:
            n = int(np.count_nonzero(vo != vr))
            print(f"{name}: {n} of {vr.size} values differ (at most {a.int_diff} allowed)")
            if n > a.int_diff:
                bad.append(f"{name}: {n} of {vr.size} values differ, more than {a.int_diff}")
        elif not np.array_equal(np.asarray(norm(vo)), np.asarray(norm(vr))):
            n = np.count_nonzero(np.asarray(norm(vo)) != np.asarray(norm(vr))) if vo.dtype.kind != "O" else "some"
            bad.append(f"{name}: {n} of {vr.size} values differ")
    for b in bad:
        print(f"{a.ours}: {b}")
    if not bad and not a.quiet:
        how = "identical to" if a.float_db is None else f"agrees (floats within {a.float_db} dB) with"
        print(f"{a.ours}: {how} {a.ref}")
    return 1 if bad else 0


sys.exit(main())
