#!/usr/bin/env bash
# #geometry_objects_read of hostile files (the reliability issue): data that HDF5 would fetch from
# a FIFO (an external link, external raw storage, a virtual dataset, a soft link through an
# external link), a FIFO as the file itself, storage declared far beyond the dataset (one huge
# chunk, a deflate bomb, deflate twice, a filter that sizes its output from the file), values of
# the wrong kind, the HDF5 library crashing in the reader, and a corrupt file on which libhdf5
# loops (tests/data/geomobj/hdf5_loop.h5, found by fuzz_geomobj: H5Dopen2 never returns; the
# reader's helper ends at its CPU-time bound). Each is refused within seconds
# with exit status 2, one line naming the file and the reason, and no output folder; valid
# files (chunked, compressed, a soft link inside the file) are read. Needs python3 with h5py.
set -u
bin=${GS_BIN:?}
probe=${GS_GEOMOBJ_PROBE:?}
work=${GS_WORK:?}/geomobj_hostile
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
py=; for c in python3 /usr/bin/python3; do "$c" -c "import h5py, numpy" 2>/dev/null && { py=$c; break; }; done
[ -n "$py" ] || { echo "geomobj_hostile: no python3 with h5py: skipped"; exit 77; }
mkfifo fifo fifo.h5
"$py" - "$work/fifo" <<'PY' || exit 1
import sys, zlib, h5py, numpy as np
fifo = sys.argv[1]
def base(f):
    f.attrs["dx_dy_dz"] = np.array([0.001] * 3)
def chunked(f, shape, chunk, deflates, stream=None, scaleoffset=False):
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunk)
    for _ in range(deflates):
        dcpl.set_deflate(1)
    if scaleoffset:
        dcpl.set_scaleoffset(h5py.h5z.SO_INT, 0)
    d = h5py.h5d.create(f.id, b"data", h5py.h5t.STD_I16LE, h5py.h5s.create_simple(shape, (h5py.h5s.UNLIMITED,) * 3), dcpl)
    if stream is not None:
        d.write_direct_chunk((0, 0, 0), stream)
with h5py.File("ext_link.h5", "w") as f:
    base(f); f["data"] = h5py.ExternalLink(fifo, "/data")
with h5py.File("ext_storage.h5", "w") as f:
    base(f); f.create_dataset("data", shape=(2, 2, 2), dtype=np.int16, external=[(fifo, 0, 16)])
lay = h5py.VirtualLayout(shape=(2, 2, 2), dtype=np.int16)
lay[:] = h5py.VirtualSource(fifo, "data", shape=(2, 2, 2))
with h5py.File("virtual.h5", "w", libver="latest") as f:
    base(f); f.create_virtual_dataset("data", lay, fillvalue=0)
with h5py.File("soft_ext.h5", "w") as f:
    base(f); f["x"] = h5py.ExternalLink(fifo, "/"); f["data"] = h5py.SoftLink("/x/data")
with h5py.File("rigid_ext.h5", "w") as f:
    base(f); f["data"] = np.zeros((2, 2, 2), np.int16); f["rigidE"] = np.zeros((12, 2, 2, 2), np.int8)
    f["rigidH"] = h5py.ExternalLink(fifo, "/rigidH"); f["ID"] = np.zeros((6, 3, 3, 3), np.uint32)
with h5py.File("big_chunk.h5", "w", libver="latest") as f:  # 1x1x1 declared as one 4 GB chunk, never written
    base(f); chunked(f, (1, 1, 1), (1200, 1200, 1400), 0)
c = zlib.compressobj(9)  # a 1 MiB chunk whose 130 KB stream inflates to 128 MiB
bomb = b"".join(c.compress(bytes(1 << 24)) for _ in range(8)) + c.flush()
with h5py.File("bomb.h5", "w", libver="latest") as f:
    base(f); chunked(f, (1, 1, 1), (512, 512, 2), 1, bomb)
with h5py.File("deflate2.h5", "w", libver="latest") as f:
    base(f); chunked(f, (2, 2, 2), (2, 2, 2), 2, zlib.compress(zlib.compress(bytes(16))))
with h5py.File("scaleoffset.h5", "w") as f:
    base(f); chunked(f, (2, 2, 2), (2, 2, 2), 0, None, True)
with h5py.File("floats.h5", "w") as f:
    base(f); f["data"] = np.zeros((2, 2, 2))
with h5py.File("spacing_text.h5", "w") as f:
    f.attrs["dx_dy_dz"] = "0.001"; f["data"] = np.zeros((2, 2, 2), np.int16)
with h5py.File("spacing_long.h5", "w", libver="latest") as f:
    f.attrs["dx_dy_dz"] = np.full(100000, 0.001); f["data"] = np.zeros((2, 2, 2), np.int16)
for name, kw in (("gzip.h5", dict(chunks=(1, 2, 2), compression="gzip", shuffle=True, fletcher32=True)),
                 ("plain.h5", {})):
    with h5py.File(name, "w") as f:
        base(f); f.create_dataset("data", data=np.zeros((2, 2, 2), np.int16), **kw)
with h5py.File("soft.h5", "w") as f:
    base(f); f["real"] = np.zeros((2, 2, 2), np.int16); f["data"] = h5py.SoftLink("/real")
with h5py.File("unwritten.h5", "w") as f:  # chunks never written: read as the fill value
    base(f); f.create_dataset("data", (2, 2, 2), dtype=np.int16, chunks=(1, 1, 2))
PY
fail=0; checks=0
# Every file through the reader, as #geometry_objects_read reads it (each in its helper process).
t0=$SECONDS
cp "${GS_SOURCE_DIR:?}/tests/data/geomobj/hdf5_loop.h5" . || exit 1
out=$(timeout 60 "$probe" 4096 hdf5_loop.h5 ext_link.h5 ext_storage.h5 virtual.h5 soft_ext.h5 rigid_ext.h5 big_chunk.h5 bomb.h5 \
  deflate2.h5 scaleoffset.h5 floats.h5 spacing_text.h5 spacing_long.h5 fifo.h5 fifo gzip.h5 plain.h5 soft.h5 \
  unwritten.h5 2>&1); rc=$?
[ $rc = 0 ] && [ $((SECONDS - t0)) -le 30 ] || { echo "FAIL: the probe: rc=$rc after $((SECONDS - t0)) s"; fail=$((fail + 1)); }
while IFS='|' read -r file want; do
  checks=$((checks + 1))
  line=$(grep -F "$file: " <<<"$out" | head -1)
  grep -qE -- "^$file: $want" <<<"$line" || { echo "FAIL: $file: '$line', want '$want'"; fail=$((fail + 1)); }
done <<'CASES'
hdf5_loop.h5|refused 3: hdf5_loop.h5: not read within the CPU time its size and its cells allow \(2 s and more\): refused \(a corrupt file can make the HDF5 library loop\)$
ext_link.h5|refused 3: ext_link.h5: 'data' is an external link \(to an object of another file\): refused$
ext_storage.h5|refused 3: ext_storage.h5: 'data' keeps its data in external raw files: refused$
virtual.h5|refused 3: virtual.h5: 'data' is a virtual dataset \(its data in other files\): refused$
soft_ext.h5|refused 3: soft_ext.h5: 'data' is not a dataset of this file
rigid_ext.h5|refused 3: rigid_ext.h5: 'rigidH' is an external link
big_chunk.h5|refused 3: big_chunk.h5: 'data' is stored in chunks of 4032000000 bytes, more than the dataset itself \(2 bytes\)$
bomb.h5|refused 3: bomb.h5: (H5Dread failed: .*(memory|alloc)|the HDF5 library failed on it \((signal|exit status) [0-9]+; a crash or its memory bound\))
deflate2.h5|refused 3: deflate2.h5: 'data' uses filter 1 \(deflate\): only deflate \(once\), shuffle and fletcher32 are read$
scaleoffset.h5|refused 3: scaleoffset.h5: 'data' uses filter 6 \(scaleoffset\)
floats.h5|refused 3: floats.h5: dataset 'data' does not hold integers
spacing_text.h5|refused 3: spacing_text.h5: no attribute dx_dy_dz of three positive numbers$
spacing_long.h5|refused 3: spacing_long.h5: no attribute dx_dy_dz of three positive numbers$
fifo.h5|refused 3: fifo.h5: a FIFO, not a regular file$
fifo|refused 3: fifo: a FIFO, not a regular file$
gzip.h5|ok 2 2 2$
plain.h5|ok 2 2 2$
soft.h5|ok 2 2 2$
unwritten.h5|ok 2 2 2$
CASES
# Through fdtd: exit status 2, one line naming the scene's line and the file, no output folder.
printf '#material: 2 0 1 0 sand\n' >m.txt
scene() { # scene NAME FILE: a small 3D model reading FILE
  printf '#domain: 0.01 0.01 0.01\n#dx_dy_dz: 0.001 0.001 0.001\n#time_window: 3\n#pml_cells: 2\n' >"$1.in"
  printf '#geometry_objects_read: 0.002 0.002 0.002 %s m.txt\n' "$2" >>"$1.in"
}
check() { # check WANT_RC PATTERN NAME [env...]: the run of NAME.in
  local want=$1 pat=$2 name=$3; shift 3
  local err rc lines t0=$SECONDS
  err=$(env "$@" timeout 30 "$bin" fdtd --backend cpu "$name.in" -o "out_$name" 2>&1 >/dev/null); rc=$?
  lines=$(printf '%s\n' "$err" | grep -c .)
  checks=$((checks + 1))
  if [ "$rc" != "$want" ] || { [ "$want" = 2 ] && { [ "$lines" != 1 ] || [ -e "out_$name" ]; }; } ||
    ! grep -qE -- "$pat" <<<"$err" || [ $((SECONDS - t0)) -gt 20 ]; then
    echo "FAIL: $name -> rc=$rc (want $want), $lines stderr lines, $((SECONDS - t0)) s, folder $([ -e "out_$name" ] && echo left || echo none):"
    echo "$err" | head -5 | sed 's/^/    /'
    fail=$((fail + 1))
  fi
}
g="#geometry_objects_read: "
scene virtual virtual.h5
check 2 "virtual.in:5: $g.*virtual.h5: 'data' is a virtual dataset" virtual
scene fifo fifo.h5
check 2 "fifo.in:5: $g.*fifo.h5: a FIFO, not a regular file" fifo
scene plain plain.h5
check 0 "" plain
# A materials file that starts with a UTF-8 byte order mark is read as the same file without
# it (the mark is read past, as in the input file): material 0 stays sand.
printf '\xef\xbb\xbf#material: 4 0 1 0 sand\n#material: 9 0 1 0 clay\n' >bom.txt
tail -c +4 bom.txt >nobom.txt
for m in bom nobom; do
  sed "s/ m.txt\$/ $m.txt/" plain.in >"$m.in"
  timeout 30 "$bin" fdtd --backend cpu "$m.in" -o "out_$m" 2>/dev/null | grep '^checksum' >"$m.sum"
done
checks=$((checks + 1))
[ -s bom.sum ] && cmp -s bom.sum nobom.sum || { echo "FAIL: a materials file with a byte order mark: $(cat bom.sum) vs $(cat nobom.sum)"; fail=$((fail + 1)); }
# The HDF5 library crashing inside the reader (as it does on some corrupt files): one line, status 2.
# (Under AddressSanitizer the crash is its report, which ends the helper with status 1.)
shim=${GS_H5_CRASH_SHIM:-}
if [ -n "$shim" ] && [ -f "$shim" ]; then
  scene crash plain.h5
  check 2 "crash.in:5: $g.*plain.h5: the HDF5 library failed on it \((signal 11|exit status 1)" crash LD_PRELOAD="$shim" \
    ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
fi
echo "geomobj_hostile: $checks checks, $fail failed"
[ $fail = 0 ]
