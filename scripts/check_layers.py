#!/usr/bin/env python3
"""The layer rule (docs/design.md, "Layers"): every #include "..." in a source
file must name a header of its own layer or of a layer below it, and a layer
must not include the system headers of the libraries it may not use.
Usage: check_layers.py [REPO]. Prints one line per violation; exit 1 if any."""
import os
import re
import sys

# layer -> (folder, layers it may include from, system headers it may not include)
LAYERS = {
    "kernels": ("kernels", [], ["mpi.h", "png.h", "hwloc.h", "zlib.h", "hdf5.h", "stdio.h"]),
    "base": ("src/base", ["kernels"], ["png.h", "hwloc.h", "hdf5.h"]),
    "mpi": ("mpi", ["base", "kernels"], ["png.h", "hwloc.h", "hdf5.h"]),
    "png": ("src/png", ["base", "kernels"], ["hwloc.h", "hdf5.h"]),
    "formats": ("src/formats", ["base", "kernels"], ["hwloc.h", "mpi.h", "png.h"]),
    "model": ("src/model", ["formats", "png", "base", "kernels"], ["hwloc.h", "mpi.h", "hdf5.h"]),
    "engine": ("src/engine", ["model", "mpi", "base", "kernels"], ["hwloc.h", "hdf5.h", "png.h"]),
    "outputs": ("src/outputs", ["engine", "model", "formats", "png", "mpi", "base", "kernels"], ["hwloc.h", "hdf5.h"]),
    "run": ("src/run", ["outputs", "engine", "model", "formats", "png", "mpi", "base", "kernels"], ["hwloc.h", "hdf5.h"]),
    "scale": ("src/scale", ["png", "mpi", "base", "kernels"], ["hwloc.h", "hdf5.h"]),
    "app": ("src/app", ["run", "outputs", "engine", "model", "formats", "scale", "png", "mpi", "base", "kernels"], ["hdf5.h"]),
}
SOURCE = (".c", ".h", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^">]+)[">]')


def headers_of(repo):
    """header name -> layer that holds it"""
    owner = {}
    for layer, (folder, _, _) in LAYERS.items():
        for name in os.listdir(os.path.join(repo, folder)):
            if name.endswith((".h", ".cuh")):
                if name in owner:
                    print(f"{folder}/{name}: header name also used in layer {owner[name]}")
                owner[name] = layer
    return owner


def check_file(repo, layer, path, owner):
    folder, allowed, banned = LAYERS[layer]
    bad = []
    with open(path, errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            kind, name = m.groups()
            where = f"{os.path.relpath(path, repo)}:{number}"
            if kind == "<":
                if name in banned:
                    bad.append(f"{where}: layer {layer} may not include <{name}>")
                continue
            if "/" in name:
                bad.append(f'{where}: "{name}": name headers without a path (each layer is one include folder)')
            elif name not in owner:
                bad.append(f'{where}: "{name}" is no header of any layer')
            elif owner[name] != layer and owner[name] not in allowed:
                bad.append(f'{where}: layer {layer} may not include "{name}" (layer {owner[name]})')
    return bad


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    owner = headers_of(repo)
    bad = []
    for layer, (folder, _, _) in LAYERS.items():
        for root, _, files in os.walk(os.path.join(repo, folder)):
            for name in sorted(files):
                if name.endswith(SOURCE):
                    bad += check_file(repo, layer, os.path.join(root, name), owner)
    for line in bad:
        print(line)
    print(f"layer rule: {len(bad)} violation(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
