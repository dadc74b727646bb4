#!/usr/bin/env python3
"""Writes the seed corpus of fuzz_geomobj (corpus/geomobj/): small gprMax geometry objects files
(#geometry_objects_read) as h5py writes them, read or refused by the reader: valid ones
(contiguous, chunked with deflate and shuffle, with rigid and ID arrays, earliest and latest
file formats, a soft link) and odd ones (an external link, external raw storage, a virtual
dataset, a chunk far larger than its dataset, deflate twice, floats, strings, a string
dx_dy_dz). The links and sources point at paths that do not exist. Needs h5py (python3-h5py)."""
import os
import zlib

import h5py
import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "geomobj")
NOWHERE = "/nonexistent/gs-fuzz-geomobj.h5"


def path(name):
    return os.path.join(HERE, name)


def attrs(f):
    f.attrs["gprMax"] = "4.0.0b0"
    f.attrs["Title"] = "seed"
    f.attrs["dx_dy_dz"] = np.array([0.001, 0.001, 0.001])


def rigid(f, shape):
    f["rigidE"] = np.ones((12,) + shape, np.int8)
    f["rigidH"] = np.zeros((6,) + shape, np.int8)
    f["ID"] = np.arange(6 * (shape[0] + 1) * (shape[1] + 1) * (shape[2] + 1), dtype=np.uint32).reshape(
        (6, shape[0] + 1, shape[1] + 1, shape[2] + 1)) % 3


def raw_dataset(f, name, shape, chunk, deflates=0, data=None):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunk)
    for _ in range(deflates):
        dcpl.set_deflate(1)
    space = h5py.h5s.create_simple(shape, tuple(h5py.h5s.UNLIMITED for _ in shape))
    d = h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I16LE, space, dcpl)
    if data is not None:
        d.write_direct_chunk((0,) * len(shape), data)


def main():
    os.makedirs(HERE, exist_ok=True)
    shape = (3, 2, 4)
    data = (np.arange(24, dtype=np.int16).reshape(shape) % 3)
    with h5py.File(path("plain.h5"), "w") as f:
        attrs(f)
        f["data"] = data
    with h5py.File(path("rigid.h5"), "w") as f:
        attrs(f)
        f["data"] = data
        rigid(f, shape)
    with h5py.File(path("deflate.h5"), "w", libver="latest") as f:
        attrs(f)
        f.create_dataset("data", data=data, chunks=(2, 2, 2), compression="gzip", shuffle=True, fletcher32=True)
        f.create_dataset("rigidE", data=np.ones((12,) + shape, np.int8), chunks=(4, 2, 2, 2), compression="gzip")
    with h5py.File(path("soft.h5"), "w") as f:
        attrs(f)
        f["real"] = data
        f["data"] = h5py.SoftLink("/real")
    with h5py.File(path("external_link.h5"), "w") as f:
        attrs(f)
        f["data"] = h5py.ExternalLink(NOWHERE, "/data")
    with h5py.File(path("external_storage.h5"), "w") as f:
        attrs(f)
        f.create_dataset("data", shape=shape, dtype=np.int16, external=[(NOWHERE, 0, 48)])
    layout = h5py.VirtualLayout(shape=shape, dtype=np.int16)
    layout[:] = h5py.VirtualSource(NOWHERE, "data", shape=shape)
    with h5py.File(path("virtual.h5"), "w", libver="latest") as f:
        attrs(f)
        f.create_virtual_dataset("data", layout, fillvalue=0)
    with h5py.File(path("big_chunk.h5"), "w", libver="latest") as f:
        attrs(f)
        raw_dataset(f, "data", (1, 1, 1), (1200, 1200, 1400), 1, zlib.compress(b"\0" * 4096))
    with h5py.File(path("deflate_twice.h5"), "w", libver="latest") as f:
        attrs(f)
        raw_dataset(f, "data", (2, 2, 2), (2, 2, 2), 2, zlib.compress(zlib.compress(b"\0" * 16)))
    with h5py.File(path("floats.h5"), "w") as f:
        attrs(f)
        f["data"] = data.astype(np.float64)
    with h5py.File(path("strings.h5"), "w") as f:
        attrs(f)
        f["data"] = np.array([[[b"ab"] * 4] * 2] * 3)
    with h5py.File(path("spacing_text.h5"), "w") as f:
        f.attrs["dx_dy_dz"] = "0.001 0.001 0.001"
        f["data"] = data


if __name__ == "__main__":
    main()
