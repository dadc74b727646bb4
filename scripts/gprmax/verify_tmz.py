"""Independent numpy float32 re-implementation of a gprMax 4 TMz run FROM rules.md, used to
check the rules. Geometry (ID array) is taken from the .grid.npz dump; coefficients, PML,
source and receivers are recomputed from the rules and compared with gprMax.
Usage: verify_tmz.py DIR/MODEL  (expects MODEL.in parsed minimally, MODEL.grid.npz, MODEL.h5)"""
import sys
import h5py
import numpy as np
from scipy.constants import c, epsilon_0 as e0, mu_0 as m0

base = sys.argv[1]
d = np.load(base + ".grid.npz")
ref = h5py.File(base + ".h5", "r")
ID = d["ID"]
dt = float(d["dt"]); its = int(d["iterations"])
dx, dy, dz = ref.attrs["dx_dy_dz"]; nx, ny, nz = ref.attrs["nx_ny_nz"]
assert nz == 1
f32 = np.float32

# --- coefficients (rules d)
er, se, mr, sm = d["mat_er"], d["mat_se"], d["mat_mr"], d["mat_sm"]
nm = len(er)
CE = np.zeros((nm, 5), f32); CH = np.zeros((nm, 5), f32)
for m in range(nm):
    EA = e0 * er[m] / dt + 0.5 * se[m]; EB = e0 * er[m] / dt - 0.5 * se[m]
    if d["mat_names"][m] == "pec" or se[m] == np.inf:
        CE[m] = 0
    else:
        CE[m] = (EB / EA, (1 / dx) * 1 / EA, (1 / dy) * 1 / EA, (1 / dz) * 1 / EA, 1 / EA)
    HA = m0 * mr[m] / dt + 0.5 * sm[m]; HB = m0 * mr[m] / dt - 0.5 * sm[m]
    CH[m] = (HB / HA, (1 / dx) * 1 / HA, (1 / dy) * 1 / HA, (1 / dz) * 1 / HA, 1 / HA)
print("coeffE bit-equal:", np.array_equal(CE, d["updatecoeffsE"]),
      " coeffH bit-equal:", np.array_equal(CH, d["updatecoeffsH"]))

# --- PML (rules g): sigma max from x0 slab (outermost plane)
t = 10
solid = d["solid"]
erx0 = er[solid[0, :, 0]].sum() / (ny * nz); mrx0 = mr[solid[0, :, 0]].sum() / (ny * nz)
z0 = np.sqrt(m0 / e0)
smax = 0.8 * 5 / (z0 * dx * np.sqrt(erx0 * mrx0))
prof = (np.linspace(0, t + 0.5, 2 * t + 2) / t) ** 4
sE = prof[0:-1:2][:-1] * smax; sH = prof[1::2][:-1] * smax
def coeffs(s):
    # alpha/kappa profiles are float32 arrays, so 2*e0*kappa and 2*e0 + dt*alpha are float32
    k2e0 = np.float64(f32(2 * e0))
    tmp = k2e0 + dt * (0 + s)
    return (f32(k2e0 / tmp), f32(k2e0 / tmp),
            f32((k2e0 - dt * (0 + s)) / tmp), f32(2 * s * dt / (1 * tmp)))
ERA, ERB, ERE, ERF = [a.astype(f32) for a in coeffs(sE)]
HRA, HRB, HRE, HRF = [a.astype(f32) for a in coeffs(sH)]
ok = all(np.array_equal(a, d["pml_x0_" + n][0]) for a, n in zip((ERA, ERB, ERE, ERF, HRA, HRB, HRE, HRF),
                                                               ("ERA", "ERB", "ERE", "ERF", "HRA", "HRB", "HRE", "HRF")))
print("PML coeff bit-equal:", ok, " sigmamax", smax, d["pml_x0_sigmamax"])

# --- source / receivers from the input file (minimal parser)
src = []; rxs = []; waves = {}; tw = (its - 1) * dt
srcsteps = np.array(ref.attrs["srcsteps"]); rxsteps = np.array(ref.attrs["rxsteps"])
model = int(sys.argv[2]) if len(sys.argv) > 2 else 0
def rnd(v):
    r = np.rint(v)
    if abs(v - np.trunc(v)) == 0.5: r = np.trunc(v)
    return int(r)
for line in open(base.split("_m")[0] + ".in" if False else sys.argv[3] if len(sys.argv) > 3 else base + ".in"):
    p = line.split()
    if not p: continue
    if p[0] == "#waveform:": waves[p[4]] = (p[1], float(p[2]), float(p[3]))
    if p[0] == "#hertzian_dipole:":
        src.append((rnd(float(p[2]) / dx), rnd(float(p[3]) / dy), p[5],
                    float(p[6]) if len(p) > 7 else None, float(p[7]) if len(p) > 7 else None))
    if p[0] == "#time_window:":
        try:
            tw = (int(p[1]) - 1) * dt
        except ValueError:
            tw = float(p[1])
    if p[0] == "#rx:":
        rxs.append((rnd(float(p[1]) / dx), rnd(float(p[2]) / dy)))
def wave(kind, amp, f, tt):
    if kind in ("ricker", "gaussiandotdot", "gaussiandotdotnorm", "gaussiandoubleprime"):
        chi = np.sqrt(2) / f; zeta = np.pi ** 2 * f ** 2
    else:
        chi = 1 / f; zeta = 2 * np.pi ** 2 * f ** 2
    dd = tt - chi
    if kind == "ricker":
        return -((2 * zeta * (2 * zeta * dd ** 2 - 1) * np.exp(-zeta * dd ** 2)) * (1 / (2 * zeta))) * amp
    if kind == "gaussiandotdotnorm":
        return 2 * zeta * (2 * zeta * dd ** 2 - 1) * np.exp(-zeta * dd ** 2) * (1 / (2 * zeta)) * amp
    if kind in ("gaussiandotdot", "gaussiandoubleprime"):
        return 2 * zeta * (2 * zeta * dd ** 2 - 1) * np.exp(-zeta * dd ** 2) * amp
    if kind in ("gaussiandot", "gaussianprime"):
        return -2 * zeta * dd * np.exp(-zeta * dd ** 2) * amp
    if kind == "gaussiandotnorm":
        return -2 * zeta * dd * np.exp(-zeta * dd ** 2) * np.sqrt(np.exp(1) / (2 * zeta)) * amp
    if kind == "gaussian":
        return np.exp(-zeta * dd ** 2) * amp
    if kind == "sine":
        return (0.0 if tt * f > 1 else np.sin(2 * np.pi * f * tt)) * amp
    if kind == "contsine":
        return min(0.25 * tt * f, 1) * np.sin(2 * np.pi * f * tt) * amp
    raise NotImplementedError(kind)

Ez = np.zeros((nx + 1, ny + 1), f32); Hx = np.zeros_like(Ez); Hy = np.zeros_like(Ez)
IDE = ID[2, :, :, 0]; IDHx = ID[3, :, :, 0]; IDHy = ID[4, :, :, 0]
# PML psi arrays: x0/xmax for Ez (dHy) and Hy (dEz); y0/ymax for Ez (dHx) and Hx (dEz)
PE = {k: np.zeros((t, ny + 1), f32) for k in ("x0", "xmax")}
PEy = {k: np.zeros((nx + 1, t), f32) for k in ("y0", "ymax")}
PH = {k: np.zeros((t, ny + 1), f32) for k in ("x0", "xmax")}
PHy = {k: np.zeros((nx + 1, t), f32) for k in ("y0", "ymax")}
dxf, dyf = f32(dx), f32(dy)
comps = ("Ez", "Hx", "Hy", "Iz")
out = np.zeros((len(rxs), len(comps), its), f32)
rxs = [(i + model * rxsteps[0], j + model * rxsteps[1]) for i, j in rxs]
srcs = []  # (i, j, start, stop, waveform table): rules e, start/stop and the half step
for si, sj, sw, start, stop in src:
    if start is None or stop is None:
        start, stop = 0.0, tw
    else:
        stop = min(stop, tw)
    kind, amp, fr = waves[sw]
    wt = np.zeros(its + 1, f32)
    for n in range(its + 1):
        tt = dt * n
        if start <= tt <= stop:
            wt[n] = wave(kind, amp, fr, tt - start + 0.5 * dt)
    srcs.append((si + model * srcsteps[0], sj + model * srcsteps[1], start, stop, wt))
for n in range(its):
    for r, (i, j) in enumerate(rxs):
        out[r, 0:3, n] = Ez[i, j], Hx[i, j], Hy[i, j]
        out[r, 3, n] = 0 if i == 0 or j == 0 else \
            dx * (np.float64(Hx[i, j - 1]) - Hx[i, j]) + dy * (np.float64(Hy[i, j]) - Hy[i - 1, j])
    # H update
    m = IDHx[1:nx, 0:ny]
    Hx[1:nx, 0:ny] = CH[m, 0] * Hx[1:nx, 0:ny] - CH[m, 2] * (Ez[1:nx, 1:ny + 1] - Ez[1:nx, 0:ny])
    m = IDHy[0:nx, 1:ny]
    Hy[0:nx, 1:ny] = CH[m, 0] * Hy[0:nx, 1:ny] + CH[m, 1] * (Ez[1:nx + 1, 1:ny] - Ez[0:nx, 1:ny])
    # H PML: order x0, y0, xmax, ymax
    for slab in ("x0", "y0", "xmax", "ymax"):
        if slab in ("x0", "xmax"):
            ii = np.arange(t - 1, -1, -1) if slab == "x0" else np.arange(nx - t, nx)
            dEz = (Ez[ii + 1, 0:ny] - Ez[ii, 0:ny]) / dxf
            mm = IDHy[ii, 0:ny]; ph = PH[slab][:, 0:ny]
            Hy[ii, 0:ny] = Hy[ii, 0:ny] + CH[mm, 4] * ((HRA[:, None] - f32(1)) * dEz + HRB[:, None] * ph)
            PH[slab][:, 0:ny] = HRE[:, None] * ph - HRF[:, None] * dEz
        else:
            jj = np.arange(t - 1, -1, -1) if slab == "y0" else np.arange(ny - t, ny)
            dEz = (Ez[0:nx, jj + 1] - Ez[0:nx, jj]) / dyf
            mm = IDHx[0:nx, jj]; ph = PHy[slab][0:nx, :]
            Hx[0:nx, jj] = Hx[0:nx, jj] - CH[mm, 4] * ((HRA[None, :] - f32(1)) * dEz + HRB[None, :] * ph)
            PHy[slab][0:nx, :] = HRE[None, :] * ph - HRF[None, :] * dEz
    # E update
    m = IDE[1:nx, 1:ny]
    Ez[1:nx, 1:ny] = (CE[m, 0] * Ez[1:nx, 1:ny] + CE[m, 1] * (Hy[1:nx, 1:ny] - Hy[0:nx - 1, 1:ny])) \
        - CE[m, 2] * (Hx[1:nx, 1:ny] - Hx[1:nx, 0:ny - 1])
    for slab in ("x0", "y0", "xmax", "ymax"):
        if slab in ("x0", "xmax"):
            ii = np.arange(t, 0, -1) if slab == "x0" else np.arange(nx - t, nx)
            dHy = (Hy[ii, 0:ny] - Hy[ii - 1, 0:ny]) / dxf
            mm = IDE[ii, 0:ny]; ph = PE[slab][:, 0:ny]
            Ez[ii, 0:ny] = Ez[ii, 0:ny] + CE[mm, 4] * ((ERA[:, None] - f32(1)) * dHy + ERB[:, None] * ph)
            PE[slab][:, 0:ny] = ERE[:, None] * ph - ERF[:, None] * dHy
        else:
            jj = np.arange(t, 0, -1) if slab == "y0" else np.arange(ny - t, ny)
            dHx = (Hx[0:nx, jj] - Hx[0:nx, jj - 1]) / dyf
            mm = IDE[0:nx, jj]; ph = PEy[slab][0:nx, :]
            Ez[0:nx, jj] = Ez[0:nx, jj] - CE[mm, 4] * ((ERA[None, :] - f32(1)) * dHx + ERB[None, :] * ph)
            PEy[slab][0:nx, :] = ERE[None, :] * ph - ERF[None, :] * dHx
    # Hertzian dipole (float32 product, then float64)
    for si, sj, start, stop, wt in srcs:
        if start <= n * dt <= stop:
            s = np.float64(f32(CE[IDE[si, sj], 4] * wt[n])) * dz * (1 / (dx * dy * dz))
            Ez[si, sj] = f32(np.float64(Ez[si, sj]) - s)

names = {}
for k in ref["rxs"]:
    g = ref["rxs"][k]; names[tuple(np.rint(g.attrs["Position"][:2] / [dx, dy]).astype(int))] = g
for r, (i, j) in enumerate(rxs):
    g = names[(i, j)]
    for ci, cname in enumerate(comps):
        if cname not in g:
            continue
        b = g[cname][()].astype(float); a = out[r, ci].astype(float)
        mb = np.abs(b).max()
        db = "zero in both" if mb == 0 and np.abs(a).max() == 0 else \
            ("REF ZERO" if mb == 0 else f"{20*np.log10(max(np.abs(a-b).max(), 1e-300)/mb):.1f} dB")
        print(f"rx ({i},{j}) {cname}: {db}, bit-identical: {np.array_equal(out[r, ci], g[cname][()])}")
