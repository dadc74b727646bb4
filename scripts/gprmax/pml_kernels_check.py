"""Checks our CPML node expressions (kernels/fdtd3d_node.h: gs_fdtd3_pml_x, the X of a
correction f + c X, and
gs_fdtd3_pml_coefs of kernels/fdtd3d_ref.c) against gprMax's own compiled PML updates
(gprMax.cython.pml_updates_{electric,magnetic}_{HORIPML,MRIPML}, the float32 functions
order2_* of HORIPML and order1_*/order2_* of MRIPML): random fields, Phi, coefficient tables
and material factors on one small slab of every side, E and H; every field and Phi value
must be bit-identical. Our side is built from the repository's sources with the C compiler
(-ffp-contract=off, as the project builds them). --swap-psi reverses the two products of
MRIPML's Psi (a check that the test can fail).
Usage: PYTHONPATH=/path/to/built/gprMax python3 pml_kernels_check.py [--swap-psi]
(Own helper; it changes nothing in gprMax.) Exit 0 all identical, 1 otherwise."""
import ctypes, importlib, os, subprocess, sys, tempfile
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WRAP = r"""
#include <stddef.h>
#include "fdtd3d_kernels.h"
#include "fdtd3d_node.h"
/* node n: coefficients k + q[n] K, in place: f, p0, p1 */
void terms(int form, const float *k, const int *q, const float *d, const float *c, float *f, float *p0, float *p1,
           size_t n, int swap) {
  for (size_t i = 0; i < n; ++i) {
    const float *kk = k + (size_t)q[i] * GS_FDTD3_PML_K;
    float n0, n1, a = p0[i], b = p1[i];
    if (swap && form == GS_FDTD3_MRIPML2) { /* Psi's products the other way round */
      const float psi = fmaf(kk[3], b, kk[2] * a), e = d[i] - psi;
      n0 = fmaf(kk[6], a, kk[4] * e), n1 = fmaf(kk[7], b, kk[5] * e);
      f[i] = fmaf(c[i], fmaf(kk[1], d[i], -(kk[0] * psi)), f[i]);
    } else {
      f[i] = fmaf(c[i], gs_fdtd3_pml_x(form, kk, d[i], a, b, &n0, &n1), f[i]);
    }
    p0[i] = n0, p1[i] = n1;
  }
}
"""
FORMS = {"HORIPML2": (1, "HORIPML", 2), "MRIPML1": (2, "MRIPML", 1), "MRIPML2": (3, "MRIPML", 2)}
E_TERMS = {0: [(1, 2, -1), (2, 1, +1)], 1: [(0, 2, +1), (2, 0, -1)], 2: [(0, 1, -1), (1, 0, +1)]}
H_TERMS = {0: [(1, 2, +1), (2, 1, -1)], 1: [(0, 2, -1), (2, 0, +1)], 2: [(0, 1, +1), (1, 0, -1)]}


def build(tmp):
    src = os.path.join(tmp, "wrap.c")
    open(src, "w").write(WRAP)
    lib = os.path.join(tmp, "libpml.so")
    subprocess.check_call(["cc", "-std=c11", "-O2", "-ffp-contract=off", "-fPIC", "-shared", "-I",
                           os.path.join(ROOT, "kernels"), src, os.path.join(ROOT, "kernels", "fdtd3d_ref.c"),
                           "-o", lib, "-lm"])
    return ctypes.CDLL(lib)


def ptr(a, t=ctypes.c_float):
    return a.ctypes.data_as(ctypes.POINTER(t))


def own(a):
    return np.array(a, dtype=np.float32, order="C", copy=True)


def coefs(lib, code, RA, RB, RE, RF):
    t = RA.shape[1]
    out = np.zeros((t, 9), np.float32)
    for q in range(t):
        r = np.zeros((2, 4), np.float32)
        for c in range(RA.shape[0]):
            r[c] = [RA[c, q], RB[c, q], RE[c, q], RF[c, q]]
        lib.gs_fdtd3_pml_coefs(code, ptr(r), ptr(out[q]))
    return out


def one(lib, rng, form, elec, axis, plus, swap):
    code, fam, terms = FORMS[form]
    mod = importlib.import_module(f"gprMax.cython.pml_updates_{'electric' if elec else 'magnetic'}_{fam}")
    fn = getattr(mod, f"order{terms}_{'xyz'[axis]}{'plus' if plus else 'minus'}")
    n, t = np.array([9, 8, 7]), 4
    lo, hi = [0, 0, 0], list(n)
    if plus:
        lo[axis] = n[axis] - t
    else:
        hi[axis] = t
    sn = [hi[q] - lo[q] for q in range(3)]
    F = [rng.standard_normal(tuple(n + 1)).astype(np.float32) for _ in range(6)]
    table = (rng.uniform(0.5, 2, (5, 5)) * rng.choice([1e-3, 1, 1e3], (5, 5))).astype(np.float32)
    ID = rng.integers(0, 5, (6,) + tuple(n + 1)).astype(np.uint32)
    slots = (E_TERMS if elec else H_TERMS)[axis]
    Phi = []
    for comp, _, _ in slots:
        s = [sn[q] + (1 if (q != comp) == bool(elec) else 0) for q in range(3)]
        Phi.append(rng.standard_normal([terms] + s).astype(np.float32))
    RA = rng.uniform(0.3, 3, (terms, t)).astype(np.float32)
    RB = rng.uniform(0.1, 2, (terms, t)).astype(np.float32)
    RE = rng.uniform(0.1, 1, (terms, t)).astype(np.float32)
    RF = rng.uniform(0.01, 5, (terms, t)).astype(np.float32)
    dl = np.float32(rng.uniform(0.5, 2))
    K = coefs(lib, code, RA, RB, RE, RF)
    ours, ophi = [x.copy() for x in F], [p.copy() for p in Phi]
    base = 0 if elec else 3
    for slot, (comp, other, sign) in enumerate(slots):
        for i in range(t):
            nn = (lo[axis] + i) if plus else (hi[axis] - i if elec else hi[axis] - 1 - i)
            at = [slice(lo[q], hi[q]) for q in range(3)]
            at[axis] = nn
            nb = list(at)
            nb[axis] = nn - 1 if elec else nn + 1
            g = F[(3 if elec else 0) + other]
            diff = ((g[tuple(at)] - g[tuple(nb)]) if elec else (g[tuple(nb)] - g[tuple(at)])) / dl
            c = table[ID[base + comp][tuple(at)], 4] * np.float32(sign)
            pat = [slice(0, sn[q]) for q in range(3)]
            pat[axis] = i
            f = own(ours[base + comp][tuple(at)])  # copies: the C side writes them
            p0 = own(Phi[slot][(0,) + tuple(pat)])
            p1 = own(Phi[slot][(1,) + tuple(pat)]) if terms == 2 else np.zeros_like(p0)
            d, c = own(diff), own(c)
            q = np.full(f.shape, i, np.int32)
            lib.terms(code, ptr(K), ptr(q, ctypes.c_int), ptr(d), ptr(c), ptr(f), ptr(p0), ptr(p1),
                      ctypes.c_size_t(f.size), swap)
            ours[base + comp][tuple(at)] = f
            ophi[slot][(0,) + tuple(pat)] = p0
            if terms == 2:
                ophi[slot][(1,) + tuple(pat)] = p1
    G, GP = [x.copy() for x in F], [p.copy() for p in Phi]
    fn(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], 1, table, ID, *G, GP[0], GP[1], RA, RB, RE, RF, dl)
    return sum(int(np.sum(a.view(np.uint32) != b.view(np.uint32))) for a, b in zip(G + GP, ours + ophi))


def main():
    swap = int("--swap-psi" in sys.argv)
    rng = np.random.default_rng(20261129)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        lib = build(tmp)
        for form in FORMS:
            for elec in (1, 0):
                for axis in range(3):
                    for plus in (0, 1):
                        k = one(lib, rng, form, elec, axis, plus, swap)
                        bad += k > 0
                        print(f"{form} {'E' if elec else 'H'} {'xyz'[axis]}{'plus' if plus else 'minus'}: "
                              f"{'identical' if k == 0 else f'{k} values differ'}")
    print(f"{'all identical' if not bad else f'{bad} functions differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
