"""A stand-in for `gpustencil fdtd` that checks the comparison harness itself
(scripts/gprmax/selftest.sh): instead of simulating, it writes gprMax's own reference output
of the scene (from GS_FAKE_DATA/<MODEL>/) to OUT, as gpustencil would name it (MODEL.h5, or
MODEL1.h5 .. MODELN.h5 with -n N; a merged reference is split into per-run files with Name
and Position attributes), then damages it as GS_FAKE_MODE says:
  same      unchanged (must pass)
  reorder   receivers written in reverse order (must pass: matched by Name)
  noise     relative noise of 1e-4 on every component (about -80 dB: must pass)
  scale     the first non-zero component of the last receiver that has one, in the last run, times 1.01 (-40 dB: must fail)
  refzero   a component that is zero in the reference made non-zero (must fail)
  dt        dt changed by 1e-9 relative (must fail)
  iters     Iterations attribute off by one (must fail)
  droprx    the last receiver of the last run removed (must fail)
  dropcomp  one component of the first receiver removed (must fail)
  missing   the last run's file not written (must fail)
Usage (as gpustencil): fake_fdtd.py fdtd MODEL.in -o OUT --backend B [-n N]"""
import glob
import os
import shutil
import sys

import h5py
import numpy as np


def parse(argv):
    args = {"n": 1}
    it = iter(argv[1:])
    for a in it:
        if a in ("-o", "--output"):
            args["out"] = next(it)
        elif a in ("-n", "--runs"):
            args["n"] = int(next(it))
        elif a == "--backend":
            next(it)
        elif a.endswith(".in"):
            args["input"] = a
    return args


def split_merged(merged, n, model, out):
    """gprMax's merged file -> per-run files (Name/Position cannot be known: rxK, 0)."""
    with h5py.File(merged, "r") as f:
        for m in range(n):
            with h5py.File(os.path.join(out, f"{model}{m + 1}.h5"), "w") as g:
                for k, v in f.attrs.items():
                    g.attrs[k] = v
                for rx in f["rxs"]:
                    grp = g.create_group(f"rxs/{rx}")
                    grp.attrs["Name"] = rx
                    grp.attrs["Position"] = np.zeros(3)
                    for c in f["rxs"][rx]:
                        grp[c] = f["rxs"][rx][c][:, m]


def rewrite_reversed(path):
    with h5py.File(path, "r+") as f:
        names = sorted(f["rxs"], key=lambda s: int(s[2:]))
        for k in names:
            f.move(f"rxs/{k}", f"tmp/{k}")
        for i, k in enumerate(reversed(names)):
            f.move(f"tmp/{k}", f"rxs/rx{i + 1}")
        del f["tmp"]


def damage(files, mode):
    rng = np.random.default_rng(1)
    last = files[-1]
    if mode == "missing":
        os.remove(last)
        return
    if mode == "reorder":
        for p in files:
            rewrite_reversed(p)
        return
    if mode == "noise":
        for p in files:
            with h5py.File(p, "r+") as g:
                for rx in g["rxs"]:
                    for c in g["rxs"][rx]:
                        d = g["rxs"][rx][c]
                        m = np.abs(d[()]).max()
                        d[...] = d[()] + (1e-4 * m * rng.uniform(-1, 1, d.shape)).astype(d.dtype)
        return
    with h5py.File(last if mode in ("scale", "droprx") else files[0], "r+") as f:
        rxs = sorted(f["rxs"], key=lambda s: int(s[2:]))
        if mode == "scale":
            grp, c = next((f["rxs"][rx], c) for rx in reversed(rxs) for c in sorted(f["rxs"][rx])
                          if np.abs(f["rxs"][rx][c][()]).max() > 0)
            grp[c][...] = grp[c][()] * np.float32(1.01)
        elif mode == "refzero":
            for rx in rxs:
                zero = [c for c in sorted(f["rxs"][rx]) if np.abs(f["rxs"][rx][c][()]).max() == 0]
                if zero:
                    f["rxs"][rx][zero[0]][5] = np.float32(1e-3)
                    break
            else:
                sys.exit("fake_fdtd: no zero component to damage in this scene")
        elif mode == "dt":
            f.attrs["dt"] = f.attrs["dt"] * (1 + 1e-9)
        elif mode == "iters":
            f.attrs["Iterations"] = f.attrs["Iterations"] + 1
        elif mode == "droprx":
            del f["rxs"][rxs[-1]]
            f.attrs["nrx"] = len(rxs) - 1
        elif mode == "dropcomp":
            grp = f["rxs"][rxs[0]]
            del grp[sorted(grp)[0]]
        elif mode not in ("same", "noise"):
            sys.exit(f"fake_fdtd: unknown GS_FAKE_MODE {mode}")


def main():
    a = parse(sys.argv)
    model = os.path.basename(a["input"])[:-3]
    # The reference folder is the one holding MODEL.in (its name may differ from the model's).
    hits = glob.glob(os.path.join(os.environ["GS_FAKE_DATA"], "*", model + ".in"))
    ref = os.path.dirname(hits[0]) if hits else os.path.join(os.environ["GS_FAKE_DATA"], model)
    out, n = a["out"], a["n"]
    os.makedirs(out, exist_ok=True)
    if n == 1:
        files = [os.path.join(out, f"{model}.h5")]
        shutil.copy(os.path.join(ref, f"{model}.h5"), files[0])
    elif os.path.exists(os.path.join(ref, f"{model}_merged.h5")):
        split_merged(os.path.join(ref, f"{model}_merged.h5"), n, model, out)
        files = [os.path.join(out, f"{model}{m}.h5") for m in range(1, n + 1)]
    else:
        files = [os.path.join(out, f"{model}{m}.h5") for m in range(1, n + 1)]
        for m, p in enumerate(files, 1):
            shutil.copy(os.path.join(ref, f"{model}{m}.h5"), p)
    damage(files, os.environ.get("GS_FAKE_MODE", "same"))


if __name__ == "__main__":
    main()
