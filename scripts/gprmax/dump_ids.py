"""Build a gprMax model (geometry only, no time steps) and dump its built grid for
tests/test_geometry3d.c: OUT gets gprMax's solid and per-component ID arrays and its
materials table in a small binary format (all little-endian):
  "GSG3" magic, int32 nx ny nz nmat,
  nmat x (uint16 name length, name bytes, float64 er se mr sm),
  then 7 arrays, each run-length coded as (uint16 value, uint16 run) pairs and ended by
  a (0, 0) pair: solid (nx*ny*nz), then ID of Ex Ey Ez Hx Hy Hz ((nx+1)(ny+1)(nz+1)),
  x fastest.
Usage: PYTHONPATH=/work/gprmax-src python3 dump_ids.py MODEL.in OUT
(Own helper; it only observes gprMax objects.)"""
import struct
import sys

import numpy as np

import gprMax
from gprMax.model import Model

_out = sys.argv[2]
_orig_build = Model.build


def _rle(a):
    flat = np.ascontiguousarray(np.asarray(a).transpose()).ravel()  # x fastest
    if flat.max(initial=0) > 65535:
        raise SystemExit("ID over 65535")
    out = bytearray()
    n = len(flat)
    change = np.flatnonzero(np.diff(flat)) + 1
    starts = np.concatenate(([0], change))
    ends = np.concatenate((change, [n]))
    for s, e in zip(starts, ends):
        v, run = int(flat[s]), int(e - s)
        while run > 0:
            r = min(run, 65535)
            out += struct.pack("<HH", v, r)
            run -= r
    out += struct.pack("<HH", 0, 0)
    return bytes(out)


def _build(self):
    _orig_build(self)
    G = self.G
    with open(_out, "wb") as f:
        f.write(b"GSG3")
        f.write(struct.pack("<4i", G.nx, G.ny, G.nz, len(G.materials)))
        for m in G.materials:
            name = m.ID.encode()
            f.write(struct.pack("<H", len(name)) + name)
            f.write(struct.pack("<4d", float(m.er), float(m.se), float(m.mr), float(m.sm)))
        f.write(_rle(G.solid))
        for c in range(6):
            f.write(_rle(G.ID[c]))


Model.build = _build

if __name__ == "__main__":
    gprMax.run(inputfile=sys.argv[1], geometry_only=True)
