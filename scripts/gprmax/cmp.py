"""Compare receivers of two gprMax .h5 files (matched by Name, else by Position);
prints max|diff|/max|ref| in dB per component. Usage: cmp.py test.h5 ref.h5"""
import sys, h5py, numpy as np
def load(p):
    f = h5py.File(p, "r"); d = {}
    for k in f["rxs"]:
        g = f["rxs"][k]
        key = g.attrs.get("Name", k)
        if isinstance(key, bytes): key = key.decode()
        d[key] = {c: g[c][()] for c in g}
    return f, d
ft, t = load(sys.argv[1]); fr, r = load(sys.argv[2])
for a in ["Iterations", "dt", "nx_ny_nz", "dx_dy_dz", "nrx", "nsrc"]:
    if a in ft.attrs and a in fr.attrs and not np.array_equal(ft.attrs[a], fr.attrs[a]):
        print("ATTR DIFF", a, ft.attrs[a], fr.attrs[a])
worst = -999
for k in sorted(r):
    if k not in t: print("missing rx", k); continue
    for c in sorted(r[k]):
        a, b = t[k][c].astype(np.float64), r[k][c].astype(np.float64)
        m = np.abs(b).max()
        if m == 0: db = -np.inf if np.abs(a).max() == 0 else np.inf
        else: db = 20*np.log10(max(np.abs(a-b).max()/m, 1e-300))
        bit = np.array_equal(t[k][c], r[k][c])
        worst = max(worst, db if np.isfinite(db) else -999)
        print(f"{k:>14} {c}: {db:8.1f} dB{'  bit-identical' if bit else ''}")
print("worst", worst)
