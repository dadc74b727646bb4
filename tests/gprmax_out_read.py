#!/usr/bin/env python3
"""Reads the files tests/test_gprmax_out.c wrote (src/formats/gprmax_out.c) as gprMax 4's tools
read them and compares them with gprMax's own files.

Usage: gprmax_out_read.py OUT_DIR REF_DIR   (REF_DIR: tests/data/gprmax)

- Layout: every group, dataset and attribute of our cylinder_Ascan_2D.h5,
  cylinder_half_space.vtkhdf, snapshot_2.h5 and snapshot_2.vtkhdf (written with the reference
  models' metadata) has the name, HDF5 type (string kind, character set, padding, size), shape
  and, for metadata, the value of gprMax's file of the same name.
- plot_Ascan.py's reading (paths, nrx, Iterations, dt, rxs/rxN keys, Name, data) and
  outputfiles_merge.py's (get_output_data, merge_files: its attributes copied, data stacked)
  on our receiver files; the merged file's attributes typed as gprMax's merged reference.
- Snapshot and geometry data against the formulas of the C test, in both orders (.h5: x, y, z;
  VTKHDF: z, y, x), the optional datasets left out of bare.vtkhdf.
- The layered writers' files (small_layers.*, bare_layers.*, lines_slabs.vtkhdf,
  geomobj_slabs.h5) hold what the whole writers' files of the same data hold.
- .vti: the XML parses (xml.etree, with the raw appended block cut out as a VTK reader does),
  its arrays decode to the same data, the geometry's JSON comment parses.
Where VTK for Python is installed, VTK's XML reader reads the .vti files too; with
GS_GPRMAX_SRC=DIR (a gprMax source tree) gprMax's own merge_files and plot_Ascan run on our files.
"""
import glob
import json
import os
import re
import struct
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np

FAILS = []


def check(cond, what):
    if not cond:
        FAILS.append(what)
        print("FAIL:", what)


def type_sig(tid):
    """What a reader can tell of an HDF5 type."""
    if isinstance(tid, h5py.h5t.TypeStringID):
        vlen = tid.is_variable_str()
        return ("string", "vlen" if vlen else tid.get_size(), tid.get_cset(), tid.get_strpad())
    return (tid.get_class(), tid.get_size(), str(tid.dtype))


def space_sig(sid):
    return (sid.get_simple_extent_type(), sid.shape)


def layout(f):
    """path -> (kind, type, space) for every object and attribute."""
    out = {}

    def attrs(path, obj):
        for name in obj.attrs:
            a = obj.attrs.get_id(name)
            out[f"{path}@{name}"] = ("attr", type_sig(a.get_type()), space_sig(a.get_space()))

    def visit(path, obj):
        if isinstance(obj, h5py.Dataset):
            out[path] = ("dataset", type_sig(obj.id.get_type()), space_sig(obj.id.get_space()))
        else:
            out[path] = ("group",)
        attrs(path, obj)

    attrs("/", f)
    f.visititems(visit)
    return out


def same_value(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.all(a == b))
    return type(a) is type(b) and a == b


def compare_layout(ours, ref, data_paths):
    """Same objects, types and shapes; same metadata values (all but data_paths' contents)."""
    with h5py.File(ours, "r") as fo, h5py.File(ref, "r") as fr:
        lo, lr = layout(fo), layout(fr)
        for key in sorted(set(lo) | set(lr)):
            check(lo.get(key) == lr.get(key), f"{os.path.basename(ours)} {key}: ours {lo.get(key)}, gprMax's {lr.get(key)}")
            if key not in lo or key not in lr:
                continue
            path, _, attr = key.partition("@")
            if attr:
                vo, vr = fo[path].attrs[attr], fr[path].attrs[attr]
                check(same_value(vo, vr), f"{os.path.basename(ours)} {key}: ours {vo!r}, gprMax's {vr!r}")
            elif lo[key][0] == "dataset" and path not in data_paths:
                vo, vr = fo[path][()], fr[path][()]
                check(same_value(vo, vr), f"{os.path.basename(ours)} {key}: ours {vo!r}, gprMax's {vr!r}")


def plot_ascan_read(filename, outputs=("Ex", "Ey", "Ez", "Hx", "Hy", "Hz")):
    """toolboxes/Plotting/plot_Ascan.py's reading, as it is there without the plotting (and
    skipping the outputs a receiver lacks, where it stops): {rxpath: (title, {output: data})}
    and the time axis."""
    f = h5py.File(filename, "r")
    paths = ["/"]
    is_subgrids = "/subgrids" in f
    if is_subgrids:
        paths = paths + ["/subgrids/" + path + "/" for path in f["/subgrids"].keys()]
    nrxs = []
    for path in paths:
        if f[path].attrs["nrx"] > 0:
            nrxs.append(f[path].attrs["nrx"])
        else:
            paths.remove(path)
    got = {}
    for path in paths:
        iterations = f[path].attrs["Iterations"]
        nrx = f[path].attrs["nrx"]
        dt = f[path].attrs["dt"]
        time = np.linspace(0, (iterations - 1) * dt, num=iterations)
        for rx in range(1, nrx + 1):
            rxpath = path + "rxs/rx" + str(rx) + "/"
            availableoutputs = list(f[rxpath].keys())
            title = rxpath + " - " + f[rxpath].attrs["Name"]
            data = {}
            for output in outputs:
                if output in availableoutputs:
                    data[output] = f[rxpath + output][:] * 1
            got[rxpath] = (title, data)
    f.close()
    return got, time


def get_output_data(filename, rxnumber, rxcomponent):
    """toolboxes/Utilities/outputfiles_merge.py: get_output_data, as it is there."""
    with h5py.File(filename, "r") as f:
        nrx = f.attrs["nrx"]
        dt = f.attrs["dt"]
        assert nrx != 0
        path = "/rxs/rx" + str(rxnumber) + "/"
        availableoutputs = list(f[path].keys())
        assert rxcomponent in availableoutputs
        outputdata = f[path + "/" + rxcomponent]
        outputdata = np.array(outputdata)
    return outputdata, dt


def merge_files(outputfiles, merged_outputfile):
    """toolboxes/Utilities/outputfiles_merge.py: merge_files, as it is there (the version
    string is gprMax's own)."""
    fout = h5py.File(merged_outputfile, "w")
    for i, outputfile in enumerate(outputfiles):
        fin = h5py.File(outputfile, "r")
        nrx = fin.attrs["nrx"]
        if i == 0:
            fout.attrs["gprMax"] = "4.0.0b0"
            for key in ["Iterations", "nx_ny_nz", "dx_dy_dz", "dt", "nsrc", "nrx", "srcsteps", "rxsteps"]:
                fout.attrs[key] = fin.attrs[key]
            for rx in range(1, nrx + 1):
                path = "/rxs/rx" + str(rx)
                grp = fout.create_group(path)
                availableoutputs = list(fin[path].keys())
                for output in availableoutputs:
                    grp.create_dataset(
                        output, (fout.attrs["Iterations"], len(outputfiles)), dtype=fin[path + "/" + output].dtype
                    )
        for rx in range(1, nrx + 1):
            path = "/rxs/rx" + str(rx) + "/"
            availableoutputs = list(fin[path].keys())
            for output in availableoutputs:
                fout[path + "/" + output][:, i] = fin[path + "/" + output][:]
        fin.close()
    fout.close()


def natural_keys(text):
    return [int(c) if c.isdigit() else c for c in re.split(r"(\d+)", text)]


def series(n, c, offset):
    return (np.arange(n, dtype=np.float64) + (c + 1) * 1000 + offset).astype(np.float32)


def check_receivers(out, ref):
    compare_layout(f"{out}/cylinder_Ascan_2D.h5", f"{ref}/cylinder_Ascan_2D/cylinder_Ascan_2D.h5", {"rxs/rx1/" + c for c in "Ex Ey Ez Hx Hy Hz".split()})
    got, time = plot_ascan_read(f"{out}/cylinder_Ascan_2D.h5")
    check(list(got) == ["/rxs/rx1/"] and got["/rxs/rx1/"][0] == "/rxs/rx1/ - Rx(70,85,0)", f"plot_Ascan: {list(got)}")
    check(len(time) == 637 and time[-1] == 636 * 4.717308673499368e-12, "plot_Ascan: time axis")
    for c, name in enumerate("Ex Ey Ez Hx Hy Hz".split()):
        check(np.array_equal(got["/rxs/rx1/"][1][name], series(637, c, 0)), f"plot_Ascan: {name}")

    got, _ = plot_ascan_read(f"{out}/multi.h5", outputs=("Ex", "Ez", "Hy", "Iz"))
    want = {"/rxs/rx1/": ("r10", {"Ez": series(5, 0, 0.5), "Iz": series(5, 1, 0.5)}),
            "/rxs/rx2/": ("r2", {"Hy": series(5, 2, 0.5)}),
            "/rxs/rx3/": ("Rx(5,6,0)", {"Ex": series(5, 3, 0.5)})}
    check(sorted(got) == sorted(want), f"multi.h5 receivers {sorted(got)}")
    for path, (name, data) in want.items():
        title, gdata = got.get(path, ("", {}))
        check(title == path + " - " + name, f"multi.h5 {path} title {title!r}")
        check(sorted(gdata) == sorted(data), f"multi.h5 {path} outputs {sorted(gdata)}")
        for k in data:
            check(k in gdata and gdata[k].dtype == np.float32 and np.array_equal(gdata[k], data[k]), f"multi.h5 {path}{k}")
    with h5py.File(f"{out}/multi.h5", "r") as f:
        a = f.attrs
        check(a["Title"] == "caf\u00e9 \u2013 model" and a["gprMax"] == "4.0.0b0", f"multi.h5 Title {a['Title']!r}")
        check(a["nsrc"] == 2 and a["nrx"] == 3 and list(a["srcsteps"]) == [2, 0, 0] and list(a["rxsteps"]) == [3, 0, 0],
              "multi.h5 counts and steps")
        check(f["srcs/src1"].attrs["Type"] == "VoltageSource" and list(f["srcs/src2"].attrs["Position"]) == [0.3, 0.4, 0],
              "multi.h5 sources")
        check(list(f["rxs/rx3"].attrs["Position"]) == [0.05, 0.06, 0], "multi.h5 rx3 Position")

    files = glob.glob(f"{out}/bscan" + "*.h5")
    outputfiles = [name for name in files if "_merged" not in name]
    outputfiles.sort(key=natural_keys)
    check([os.path.basename(n) for n in outputfiles] == ["bscan1.h5", "bscan2.h5", "bscan3.h5"], f"bscan files {outputfiles}")
    merged = f"{out}/bscan_merged.h5"
    merge_files(outputfiles, merged)
    data, dt = get_output_data(merged, 1, "Ez")
    want = np.stack([series(7, 2, 100 * run) for run in (1, 2, 3)], axis=1)
    check(dt == 2e-12 and data.dtype == np.float32 and np.array_equal(data, want), "merged Ez")
    data, _ = get_output_data(merged, 1, "Hx")
    check(np.array_equal(data, np.stack([series(7, 3, 100 * run) for run in (1, 2, 3)], axis=1)), "merged Hx")
    with h5py.File(merged, "r") as fo, h5py.File(f"{ref}/cylinder_Bscan_2D/cylinder_Bscan_2D_merged.h5", "r") as fr:
        lo, lr = layout(fo), layout(fr)
        for key in [k for k in lr if k.startswith("/@")]:
            check(lo.get(key) == lr[key], f"merged {key}: ours {lo.get(key)}, gprMax's {lr[key]}")


def field(size, c):
    """The C test's snapshot data, indexed [k, j, i]."""
    k, j, i = np.meshgrid(np.arange(size[2]), np.arange(size[1]), np.arange(size[0]), indexing="ij")
    return (c * 1000000 + i + 100 * j + 10000 * k).astype(np.float32)


def check_snapshots(out, ref):
    names = "Ex Ey Ez Hx Hy Hz".split()
    compare_layout(f"{out}/snapshot_2.h5", f"{ref}/whole_domain_2d/snapshot_2.h5", set(names))
    compare_layout(f"{out}/snapshot_2.vtkhdf", f"{ref}/whole_domain_2d/snapshot_2.vtkhdf", {"VTKHDF/CellData/" + n for n in names})
    for name, size in (("snapshot_2", (10, 10, 1)), ("small", (4, 3, 2))):
        with h5py.File(f"{out}/{name}.h5", "r") as f:
            check(list(f.attrs["nx_ny_nz"]) == list(size), f"{name}.h5 nx_ny_nz")
            for c, n in enumerate(names):
                check(np.array_equal(f[n][()], field(size, c).transpose()), f"{name}.h5 {n} (x, y, z)")
        with h5py.File(f"{out}/{name}.vtkhdf", "r") as f:
            v = f["VTKHDF"]
            check(v.attrs["Type"] == b"ImageData" and list(v.attrs["WholeExtent"]) == [0, size[0], 0, size[1], 0, size[2]],
                  f"{name}.vtkhdf Type, WholeExtent")
            for c, n in enumerate(names):
                check(np.array_equal(v["CellData"][n][()], field(size, c)), f"{name}.vtkhdf {n} (z, y, x)")
    with h5py.File(f"{out}/small.h5", "r") as f:
        check(f.attrs["time"] == 1.5e-9 and list(f.attrs["dx_dy_dz"]) == [0.01, 0.02, 0.03], "small.h5 time, dx_dy_dz")
    with h5py.File(f"{out}/small.vtkhdf", "r") as f:
        check(list(f["VTKHDF"].attrs["Origin"]) == [0.1, 0.2, 0.3], "small.vtkhdf Origin")
    with open(f"{out}/small.h5", "rb") as a, open(f"{out}/twice.h5", "rb") as b:
        check(a.read() == b.read(), "the same snapshot written twice differs (time stamps?)")
    with h5py.File(f"{out}/blocks.h5", "r") as f:
        check(list(f.keys()) == ["Ez"], f"blocks.h5 holds {list(f.keys())}, want Ez only")
        check(np.array_equal(f["Ez"][()], field((70, 250, 250), 2).transpose()), "blocks.h5 Ez (written in blocks)")


def material(size):
    k, j, i = np.meshgrid(np.arange(size[2]), np.arange(size[1]), np.arange(size[0]), indexing="ij")
    return ((i * 7 + j * 3 + k) % 3).astype(np.uint32)


def check_geometry(out, ref):
    compare_layout(f"{out}/cylinder_half_space.vtkhdf", f"{ref}/cylinder_Ascan_2D/cylinder_half_space.vtkhdf", {"VTKHDF/CellData/Material"})
    with h5py.File(f"{out}/cylinder_half_space.vtkhdf", "r") as f:
        check(np.array_equal(f["VTKHDF/CellData/Material"][()], material((120, 105, 1))), "geometry Material")
    with h5py.File(f"{out}/bare.vtkhdf", "r") as f:
        fd = f["VTKHDF/FieldData"]
        check(sorted(fd.keys()) == ["dx_dy_dz", "gprMax_version", "material_ids", "nx_ny_nz"], f"bare.vtkhdf FieldData {list(fd)}")
        check([s.decode() for s in fd["material_ids"][()]] == ["a--b", 'q"uote\\', "tab\there-"], "bare.vtkhdf material_ids")
        check(np.array_equal(f["VTKHDF/CellData/Material"][()], material((5, 4, 3))), "bare.vtkhdf Material")
        check(list(f["VTKHDF"].attrs["Spacing"]) == [0.5, 0.25, 0.125], "bare.vtkhdf Spacing")


def read_vti(path):
    """A VTK reader's view of an appended-raw .vti: the XML without the raw block, and the arrays."""
    with open(path, "rb") as f:
        raw = f.read()
    start = raw.index(b'<AppendedData encoding="raw">')
    mark = raw.index(b"_", start) + 1
    end = raw.rindex(b"</AppendedData>")
    root = ET.fromstring(raw[:start] + b'<AppendedData encoding="raw"/>' + raw[end + len(b"</AppendedData>"):])
    check(root.tag == "VTKFile" and root.get("type") == "ImageData" and root.get("header_type") == "UInt64", f"{path}: root")
    order = "<" if root.get("byte_order") == "LittleEndian" else ">"
    arrays = {}
    for a in root.iter("DataArray"):
        if a.get("format") != "appended":
            continue
        off = mark + int(a.get("offset"))
        (nbytes,) = struct.unpack(order + "Q", raw[off:off + 8])
        dtype = {"Float32": order + "f4", "UInt32": order + "u4"}[a.get("type")]
        arrays[a.get("Name")] = np.frombuffer(raw[off + 8:off + 8 + nbytes], dtype=dtype)
    check(raw[end - 1:end] == b"\n", f"{path}: appended block end")
    return raw, root, arrays


def check_vti(out):
    raw, root, arrays = read_vti(f"{out}/small.vti")
    img = root.find("ImageData")
    check(img.get("WholeExtent") == "0 4 0 3 0 2" and img.get("Origin") == "0.1 0.2 0.3" and img.get("Spacing") == "0.01 0.02 0.03",
          f"small.vti ImageData {img.attrib}")
    tv = img.find("FieldData/DataArray[@Name='TimeValue']")
    check(tv is not None and float(tv.text) == 1.5e-9, "small.vti TimeValue")
    for c, n in enumerate("Ex Ey Ez Hx Hy Hz".split()):
        check(n in arrays and np.array_equal(arrays[n], field((4, 3, 2), c).ravel()), f"small.vti {n}")
    for name, size, mats in (("cylinder_half_space", (120, 105, 1), ["pec", "free_space", "half_space"]),
                             ("bare", (5, 4, 3), ["a--b", 'q"uote\\', "tab\there-"])):
        raw, root, arrays = read_vti(f"{out}/{name}.vti")
        check(np.array_equal(arrays.get("Material"), material(size).ravel()), f"{name}.vti Material")
        comment = re.search(rb"<!-- (.*) -->", raw[:raw.index(b"<ImageData")]).group(1)
        meta = json.loads(comment)
        check(meta["Materials"] == mats and meta["gprMax_version"] == "4.0.0b0", f"{name}.vti comment {meta}")
        if name == "cylinder_half_space":
            check(meta["PMLthickness"] == [10, 10, 0, 10, 10, 0] and meta["nx_ny_nz"] == [120, 105, 1], "vti PML, nx_ny_nz")
            check(meta["Sources"] == [{"name": "HertzianDipole(50,85,0)", "position": [0.1, 0.17, 0.0]}], "vti Sources")
            check(meta["Receivers"] == [{"name": "Rx(70,85,0)", "position": [0.14, 0.17, 0.0]}], "vti Receivers")


def vtk_read(out):
    """VTK's own XML reader on our .vti files, where python3-vtk9 is installed (optional)."""
    try:
        import vtk
        from vtk.util.numpy_support import vtk_to_numpy
    except ImportError:
        print("no VTK for Python: .vti files not read by VTK")
        return
    for name, size, arrays in (("small", (4, 3, 2), "Ex Ey Ez Hx Hy Hz".split()), ("cylinder_half_space", (120, 105, 1), ["Material"])):
        r = vtk.vtkXMLImageDataReader()
        r.SetFileName(f"{out}/{name}.vti")
        r.Update()
        d = r.GetOutput()
        check(d.GetDimensions() == tuple(n + 1 for n in size), f"VTK: {name}.vti dimensions {d.GetDimensions()}")
        for c, a in enumerate(arrays):
            got = d.GetCellData().GetArray(a)
            want = material(size).ravel() if a == "Material" else field(size, c).ravel()
            check(got is not None and np.array_equal(vtk_to_numpy(got), want), f"VTK: {name}.vti {a}")
    print("VTK reads our .vti files")


def gprmax_tools(out, src):
    """gprMax's own tools on our files (optional: GS_GPRMAX_SRC)."""
    sys.path.insert(0, src)
    import matplotlib

    matplotlib.use("Agg")
    from toolboxes.Plotting.plot_Ascan import mpl_plot
    from toolboxes.Utilities.outputfiles_merge import get_output_data as real_get, merge_files as real_merge

    mpl_plot(f"{out}/cylinder_Ascan_2D.h5", save=False)
    mpl_plot(f"{out}/bscan1.h5", outputs=["Ez"], fft=False, save=False)
    files = sorted(glob.glob(f"{out}/bscan[0-9].h5"), key=natural_keys)
    real_merge(files, merged_outputfile=f"{out}/bscan_real_merged.h5")
    a, _ = real_get(f"{out}/bscan_real_merged.h5", 1, "Ez")
    b, _ = get_output_data(f"{out}/bscan_merged.h5", 1, "Ez")
    check(np.array_equal(a, b), "gprMax's merge_files differs from ours")
    print("gprMax's plot_Ascan and outputfiles_merge read our files")


def same_h5(a, b):
    """Every group, dataset and attribute of a in b and the other way round, with equal types,
    shapes and values (the objects' places in the files may differ)."""
    def items(f):
        got = {"/": f}
        f.visititems(lambda n, o: got.__setitem__(n, o))
        return got

    def value(v):
        v = np.asarray(v)
        return v.tolist() if v.dtype.kind == "O" else v

    with h5py.File(a, "r") as fa, h5py.File(b, "r") as fb:
        ia, ib = items(fa), items(fb)
        if set(ia) != set(ib):
            return f"objects {sorted(set(ia) ^ set(ib))}"
        for n in ia:
            x, y = ia[n], ib[n]
            if set(x.attrs) != set(y.attrs):
                return f"{n}: attributes"
            for k in x.attrs:
                u, v = x.attrs[k], y.attrs[k]
                if np.asarray(u).dtype != np.asarray(v).dtype or not np.array_equal(value(u), value(v)):
                    return f"{n} @{k}"
            if isinstance(x, h5py.Dataset) and (x.dtype != y.dtype or x.shape != y.shape or
                                                not np.array_equal(value(x[()]), value(y[()]))):
                return f"{n}: data"
    return None


def check_layered(out):
    """The layered and x-slab writers (fdtd's outputs over ranks) against the whole ones."""
    for a, b in [("small_layers.h5", "small.h5"), ("small_layers.vtkhdf", "small.vtkhdf"),
                 ("bare_layers.vtkhdf", "bare.vtkhdf"), ("lines_slabs.vtkhdf", "lines.vtkhdf"),
                 ("geomobj_slabs.h5", "geomobj.h5"), ("wide_layers.h5", "wide.h5")]:
        why = same_h5(f"{out}/{a}", f"{out}/{b}")
        check(why is None, f"{a} differs from {b}: {why}")


def main():
    out, ref = sys.argv[1], sys.argv[2]
    check_layered(out)
    check_receivers(out, ref)
    check_snapshots(out, ref)
    check_geometry(out, ref)
    check_vti(out)
    vtk_read(out)
    if os.environ.get("GS_GPRMAX_SRC"):
        gprmax_tools(out, os.environ["GS_GPRMAX_SRC"])
    print(f"gprmax_out_read: {len(FAILS)} failed")
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
